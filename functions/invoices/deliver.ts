/**
 * POST /deliver — e-mails a transmitted invoice's stamped PDF to the buyer, or to `to`.
 * Answers `{ invoice_id, delivery_id, to, status, message }`. A repeat of a delivery to the same
 * address that is under way or just sent answers that delivery; past the hourly limits (per
 * invoice, per organization: config `deliver`) it is 429 `rate_limited` with Retry-After.
 */
import { z } from "zod";
import { deliverInvoice } from "../../shared/core/invoices/deliver.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";
import { DOCUMENT_ROLES, operation, orgScoped, PROVIDER_ERRORS, uuid } from "../../shared/http/route.ts";
import { EmailAddress } from "../../shared/providers/deliver.ts";

export const DeliverRequest = orgScoped.extend({
  invoice_id: uuid.meta({ description: "A `transmitida` invoice of this organization." }),
  to: EmailAddress.optional().meta({ description: "Where to send it; the buyer's e-mail when left out." }),
});
export type DeliverRequest = z.input<typeof DeliverRequest>;

export const DeliverResponse = z.object({
  invoice_id: z.string().meta({ description: "The invoice, as requested." }),
  delivery_id: z.string().meta({ description: "The delivery's record (the table `deliveries`)." }),
  to: z.string().meta({ description: "The address it was sent to." }),
  /** `pendiente`: a delivery of this invoice to this address is under way; it is not sent twice. */
  status: z.enum(["enviada", "error", "pendiente"]).meta({
    description:
      "`enviada`: the provider took the e-mail; `error`: it refused or failed (retried by reconcile " +
      "unless the address bounced); `pendiente`: a delivery to this address is under way, not sent twice.",
  }),
  message: z.string().meta({ description: "What happened, for a person to read." }),
});
export type DeliverResponse = z.infer<typeof DeliverResponse>;

export const deliver = operation({
  summary: "E-mail a transmitted invoice with its PDF and AttachedDocument",
  input: DeliverRequest,
  output: DeliverResponse,
  roles: DOCUMENT_ROLES,
  // rate_limited (in PROVIDER_ERRORS) is also the route's own hourly limits
  errors: ["not_found", "invalid_state", "business_rule", ...PROVIDER_ERRORS],
  example: {
    request: { org_id: EXAMPLE.org_id, invoice_id: EXAMPLE.invoice_id },
    response: {
      invoice_id: EXAMPLE.invoice_id,
      delivery_id: EXAMPLE.delivery_id,
      to: "facturacion@cliente.com.co",
      status: "enviada",
      message: "Sent to facturacion@cliente.com.co.",
    },
  },
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
