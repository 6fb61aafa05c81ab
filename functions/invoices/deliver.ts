/**
 * POST /deliver — e-mails a transmitted invoice's stamped PDF to the buyer, or to `to`.
 * Answers `{ invoice_id, delivery_id, to, status, message }`.
 */
import { z } from "zod";
import { deliverInvoice } from "../../shared/core/invoices/deliver.ts";
import { DOCUMENT_ROLES, operation, orgScoped, PROVIDER_ERRORS, uuid } from "../../shared/http/route.ts";
import { EmailAddress } from "../../shared/providers/deliver.ts";

export const DeliverRequest = orgScoped.extend({
  invoice_id: uuid,
  to: EmailAddress.optional(),
});
export type DeliverRequest = z.input<typeof DeliverRequest>;

export const DeliverResponse = z.object({
  invoice_id: z.string(),
  delivery_id: z.string(),
  to: z.string(),
  status: z.enum(["enviada", "error"]),
  message: z.string(),
});
export type DeliverResponse = z.infer<typeof DeliverResponse>;

export const deliver = operation({
  summary: "E-mail a transmitted invoice with its PDF and AttachedDocument",
  input: DeliverRequest,
  output: DeliverResponse,
  roles: DOCUMENT_ROLES,
  errors: ["not_found", "invalid_state", "business_rule", ...PROVIDER_ERRORS],
  handle: (input, ctx) => deliverInvoice({ input, ctx }),
});
