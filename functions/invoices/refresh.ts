/** POST /refresh — re-queries the authority's status of a transmitted invoice. */
import { z } from "zod";
import { type RefreshResult, refreshInvoice } from "../../shared/core/invoices/refresh.ts";
import { DOCUMENT_ROLES, operation, orgScoped } from "../../shared/http/route.ts";
import { providerDirectory } from "./providers.ts";

export const RefreshRequest = orgScoped.extend({ invoice_id: z.guid({ error: "must be a UUID" }) });
export type RefreshRequest = z.input<typeof RefreshRequest>;
export type RefreshResponse = RefreshResult;

export const refresh = operation({
  input: RefreshRequest,
  roles: DOCUMENT_ROLES,
  handle: (input, ctx): Promise<RefreshResponse> =>
    refreshInvoice({
      input: { org_id: input.org_id, invoice_id: input.invoice_id.toLowerCase() },
      ctx: { serviceDb: ctx.serviceDb, providers: providerDirectory(ctx), actorId: ctx.caller.claims.sub },
    }),
});
