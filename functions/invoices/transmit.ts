/**
 * POST /transmit — sends 1 to 50 invoices to the tax authority. HTTP 200 with one result per
 * requested invoice, in request order, even when some of them end in `error`.
 */
import { z } from "zod";
import { type TransmitResult, transmitInvoices } from "../../shared/core/invoices/transmit.ts";
import { DOCUMENT_ROLES, operation, orgScoped, uuid } from "../../shared/http/route.ts";
import { providerDirectory } from "./providers.ts";

export const MAX_INVOICES_PER_CALL = 50;

export const TransmitRequest = orgScoped.extend({
  invoice_ids: z
    .array(uuid)
    .min(1, "send at least one invoice id")
    .max(MAX_INVOICES_PER_CALL, `at most ${MAX_INVOICES_PER_CALL} invoices per call`)
    .refine((ids) => new Set(ids).size === ids.length, "invoice ids must be distinct"),
  reissue: z.boolean().default(false),
});
export type TransmitRequest = z.input<typeof TransmitRequest>;
export type TransmitResponse = { results: TransmitResult[] };

export const transmit = operation({
  input: TransmitRequest,
  roles: DOCUMENT_ROLES,
  handle: (input, ctx): Promise<TransmitResponse> =>
    transmitInvoices({
      input,
      ctx: {
        serviceDb: ctx.serviceDb,
        providers: providerDirectory(ctx),
        actorId: ctx.caller.claims.sub,
        concurrency: ctx.deps.config.providers.transmitConcurrency,
        providerTimeoutMs: ctx.deps.config.providers.timeoutMs,
        log: ctx.log,
      },
    }),
});
