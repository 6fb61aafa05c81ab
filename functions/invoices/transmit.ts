/**
 * POST /transmit — sends 1 to 50 invoices to the tax authority. HTTP 200 with one result per
 * requested invoice, in request order, even when some of them end in `error`.
 */
import { z } from "zod";
import { type TransmitResult, transmitInvoices } from "../../shared/core/invoices/transmit.ts";
import { DOCUMENT_ROLES, operation, orgScoped } from "../../shared/http/route.ts";
import { createProviderDirectory } from "../../shared/providers/directory.ts";

export const MAX_INVOICES_PER_CALL = 50;

export const TransmitRequest = orgScoped.extend({
  invoice_ids: z
    .array(z.guid({ error: "must be a UUID" }))
    .min(1, "send at least one invoice id")
    .max(MAX_INVOICES_PER_CALL, `at most ${MAX_INVOICES_PER_CALL} invoices per call`)
    .refine(
      (ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length,
      "invoice ids must be distinct",
    ),
  reissue: z.boolean().default(false),
});
export type TransmitRequest = z.input<typeof TransmitRequest>;
export type TransmitResponse = { results: TransmitResult[] };

export const transmit = operation({
  input: TransmitRequest,
  roles: DOCUMENT_ROLES,
  handle: (input, { deps, caller, serviceDb, log }): Promise<TransmitResponse> =>
    transmitInvoices({
      input: { ...input, invoice_ids: input.invoice_ids.map((id) => id.toLowerCase()) },
      ctx: {
        serviceDb,
        providers: createProviderDirectory({
          serviceDb,
          secretBox: deps.secretBox,
          timeoutMs: deps.config.providers.timeoutMs,
          allowPrivateUrls: deps.config.providers.allowPrivateUrls,
          ...(deps.providerFetch ? { fetch: deps.providerFetch } : {}),
        }),
        actorId: caller.claims.sub,
        concurrency: deps.config.providers.transmitConcurrency,
        providerTimeoutMs: deps.config.providers.timeoutMs,
        log,
      },
    }),
});
