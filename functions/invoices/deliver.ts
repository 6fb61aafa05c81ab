/**
 * POST /deliver — e-mails a transmitted invoice's AttachedDocument and stamped PDF, in one ZIP, to
 * the buyer, or to `to` (shared/http/deliver-route.ts). Answers `{ invoice_id, delivery_id, to,
 * status, message }`. A repeat of a delivery to the same address that is under way or just sent
 * answers that delivery; past the hourly limits (per invoice, per organization: config `deliver`)
 * it is 429 `rate_limited` with Retry-After.
 */
import type { z } from "zod";
import { invoiceKind } from "../../shared/core/invoices/kind.ts";
import { deliverRoute } from "../../shared/http/deliver-route.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";

const route = deliverRoute({
  kind: invoiceKind,
  idField: "invoice_id",
  noun: "invoice",
  exampleId: EXAMPLE.invoice_id,
  summary: "E-mail a transmitted invoice with its PDF and AttachedDocument",
});

export const DeliverRequest = route.request;
export type DeliverRequest = z.input<typeof DeliverRequest>;
export const DeliverResponse = route.response;
export type DeliverResponse = z.infer<typeof DeliverResponse>;
export const deliver = route.operation;
