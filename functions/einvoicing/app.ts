/**
 * The `einvoicing` function's app: the shared pipeline, then the route groups. Supabase hands
 * the function its path with the function name first (`/einvoicing/transmit`), hence `basePath`; a
 * server that hands it on unchanged (the local one: `/functions/v1/einvoicing/transmit`) says where
 * it is mounted, so the request need not be copied to rewrite its URL.
 */
import { Hono } from "hono";
import type { AppDeps, AppEnv, Mounting } from "../../shared/http/context.ts";
import { handleError, handleNotFound } from "../../shared/http/errors.ts";
import { mount, type OperationGroup } from "../../shared/http/lazy.ts";
import {
  appCors,
  authenticate,
  jsonBody,
  postOnly,
  requestContext,
  requireApiKey,
} from "../../shared/http/middleware.ts";
import { creditNoteOperations } from "../credit-notes/routes.ts";
import { debitNoteOperations } from "../debit-notes/routes.ts";
import { integrationOperations } from "../integrations/routes.ts";
import { invoiceOperations } from "../invoices/routes.ts";
import { webhookOperations } from "../webhooks/routes.ts";

export const FUNCTION_NAME = "einvoicing";

/** The route groups and where each is mounted: the app, docs/openapi.json and the client follow this list. */
export const ROUTE_GROUPS: readonly { name: string; prefix: string; operations: OperationGroup }[] = [
  { name: "Invoices", prefix: "", operations: invoiceOperations },
  { name: "Credit notes", prefix: "/credit-notes", operations: creditNoteOperations },
  { name: "Debit notes", prefix: "/debit-notes", operations: debitNoteOperations },
  { name: "Integrations", prefix: "/integrations", operations: integrationOperations },
  // not "Webhooks": the reference's section of the messages sent to endpoints is already called that
  { name: "Webhook endpoints", prefix: "/webhooks", operations: webhookOperations },
];

/** The pipeline every route runs behind, without routes: the app below and tests mount on it. */
export function createPipeline(deps: AppDeps, { mountedAt = "" }: Mounting = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>().basePath(`${mountedAt}/${FUNCTION_NAME}`);
  app.use(requestContext(deps, { mountedAt }));
  app.use(appCors(deps.config.http.corsOrigins));
  app.use(postOnly, requireApiKey, authenticate, jsonBody);
  app.onError(handleError);
  app.notFound(handleNotFound);
  return app;
}

export function createApp(deps: AppDeps, mounting: Mounting = {}): Hono<AppEnv> {
  const app = createPipeline(deps, mounting);
  for (const { prefix, operations } of ROUTE_GROUPS) app.route(prefix || "/", mount(operations));
  return app;
}
