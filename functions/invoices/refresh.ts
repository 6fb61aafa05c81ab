/** POST /refresh — re-queries the authority's status of a transmitted invoice. */
import type { z } from "zod";
import { type RefreshResult, refreshInvoice } from "../../shared/core/invoices/refresh.ts";
import { DOCUMENT_ROLES, operation, orgScoped, uuid } from "../../shared/http/route.ts";
import { providerDirectory } from "./providers.ts";

export const RefreshRequest = orgScoped.extend({ invoice_id: uuid });
export type RefreshRequest = z.input<typeof RefreshRequest>;
export type RefreshResponse = RefreshResult;

export const refresh = operation({
  input: RefreshRequest,
  roles: DOCUMENT_ROLES,
  handle: (input, ctx): Promise<RefreshResponse> =>
    refreshInvoice({
      input,
      ctx: { serviceDb: ctx.serviceDb, providers: providerDirectory(ctx), actorId: ctx.caller.claims.sub },
    }),
});
