/**
 * POST /deliver — e-mails a transmitted invoice's stamped PDF to the buyer, or to `to`.
 * Answers `{ invoice_id, delivery_id, to, status, message }`. A repeat of a delivery to the same
 * address that is under way or just sent answers that delivery; past the hourly limits (per
 * invoice, per organization: config `deliver`) it is 429 `rate_limited` with Retry-After.
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
  /** `pendiente`: a delivery of this invoice to this address is under way; it is not sent twice. */
  status: z.enum(["enviada", "error", "pendiente"]),
  message: z.string(),
});
export type DeliverResponse = z.infer<typeof DeliverResponse>;

export const deliver = operation({
  summary: "E-mail a transmitted invoice with its PDF and AttachedDocument",
  input: DeliverRequest,
  output: DeliverResponse,
  roles: DOCUMENT_ROLES,
  // rate_limited (in PROVIDER_ERRORS) is also the route's own hourly limits
  errors: ["not_found", "invalid_state", "business_rule", ...PROVIDER_ERRORS],
  handle: (input, ctx) => {
    const { perDocument, perOrganization, windowSeconds } = ctx.deps.config.deliver;
    const limits = {
      per_document: perDocument,
      per_organization: perOrganization,
      window_seconds: windowSeconds,
    };
    return deliverInvoice({
      input,
      ctx: { ...ctx, limits, providerTimeoutMs: ctx.deps.config.providers.timeoutMs },
    });
  },
});
