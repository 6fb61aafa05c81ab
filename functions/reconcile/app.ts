/**
 * The `reconcile` function's app: one POST, opened only by `Authorization: Bearer
 * <EINV_RECONCILE_SECRET>` (compared in constant time), which runs one reconcile pass and answers
 * `{ run_id, picked, settled, still_open, deliveries_retried, webhooks_delivered, webhooks_failed,
 * took_ms }`. No user token opens it, and
 * the einvoicing function neither mounts it nor accepts its secret.
 */
import { Hono } from "hono";
import { ConfigError } from "../../shared/config.ts";
import { reconcile } from "../../shared/core/reconcile/run.ts";
import type { AppDeps, AppEnv, Mounting } from "../../shared/http/context.ts";
import { fail, handleError, handleNotFound } from "../../shared/http/errors.ts";
import { postOnly, requestContext, timingSafeEqual } from "../../shared/http/middleware.ts";

export const RECONCILE_FUNCTION = "reconcile";

export function createReconcileApp(deps: AppDeps, { mountedAt = "" }: Mounting = {}): Hono<AppEnv> {
  const secret = deps.config.reconcile.secret;
  if (!secret) {
    throw new ConfigError(
      "invalid configuration: EINV_RECONCILE_SECRET is required by the reconcile function",
    );
  }
  const app = new Hono<AppEnv>().basePath(`${mountedAt}/${RECONCILE_FUNCTION}`);
  app.use(requestContext(deps, { mountedAt }));
  app.use(postOnly);
  app.use(async (c, next) => {
    const match = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "");
    if (!match?.[1] || !timingSafeEqual(match[1], secret)) {
      fail("unauthenticated", "The reconcile secret is missing or wrong.");
    }
    await next();
  });
  app.post("/", async (c) => {
    const serviceDb = deps.db.asService();
    const { reconcile: settings, providers, webhooks } = deps.config;
    const result = await reconcile({
      ctx: {
        serviceDb,
        providers: await deps.providers(serviceDb),
        documents: deps.documents,
        software: deps.config.software,
        log: c.get("log"),
        webhooks: {
          secretBox: deps.secretBox,
          egress: deps.egress,
          allowPrivateUrls: providers.allowPrivateUrls,
          timeoutMs: webhooks.timeoutMs,
          concurrency: webhooks.concurrency,
        },
      },
      options: {
        budgetMs: settings.budgetMs,
        batchSize: settings.batchSize,
        graceSeconds: settings.graceSeconds,
        concurrency: providers.transmitConcurrency,
        providerTimeoutMs: providers.timeoutMs,
      },
    });
    c.get("log").info("reconcile run", { ...result });
    return c.json(result, 200);
  });
  app.onError(handleError);
  app.notFound(handleNotFound);
  return app;
}
