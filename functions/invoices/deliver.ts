/**
 * POST /deliver — e-mails a transmitted invoice's stamped PDF to the buyer, or to `to`.
 * Answers `{ invoice_id, delivery_id, to, status, message }`.
 */
import type { z } from "zod";
import { type DeliverResult, deliverInvoice } from "../../shared/core/invoices/deliver.ts";
import { DOCUMENT_ROLES, operation, orgScoped, uuid } from "../../shared/http/route.ts";
import { EmailAddress } from "../../shared/providers/deliver.ts";
import { providerDirectory } from "./providers.ts";

export const DeliverRequest = orgScoped.extend({
  invoice_id: uuid,
  to: EmailAddress.optional(),
});
export type DeliverRequest = z.input<typeof DeliverRequest>;
export type DeliverResponse = DeliverResult;

export const deliver = operation({
  input: DeliverRequest,
  roles: DOCUMENT_ROLES,
  handle: (input, ctx): Promise<DeliverResponse> =>
    deliverInvoice({
      input,
      ctx: {
        serviceDb: ctx.serviceDb,
        providers: providerDirectory(ctx),
        documents: ctx.deps.documents,
        actorId: ctx.caller.claims.sub,
      },
    }),
});
