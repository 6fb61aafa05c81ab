/**
 * POST /representation — keeps the invoice's PDF current in the private bucket and answers where it
 * is: `{ path, filename, stamped, cached, generated_at }`. The caller downloads it with their own
 * session; the bytes never pass through here.
 */
import { z } from "zod";
import { documentRepresentation } from "../../shared/core/documents/representation.ts";
import { invoiceKind } from "../../shared/core/invoices/kind.ts";
import { DOCUMENT_ROLES, operation, orgScoped, PROVIDER_ERRORS, uuid } from "../../shared/http/route.ts";

export const RepresentationRequest = orgScoped.extend({
  invoice_id: uuid,
  regenerate: z.boolean().default(false),
});
export type RepresentationRequest = z.input<typeof RepresentationRequest>;

export const RepresentationResponse = z.object({
  path: z.string(),
  filename: z.string(),
  stamped: z.boolean(),
  cached: z.boolean(),
  generated_at: z.string(),
});
export type RepresentationResponse = z.infer<typeof RepresentationResponse>;

export const representation = operation({
  summary: "Keep the invoice's PDF current in the private bucket and say where it is",
  input: RepresentationRequest,
  output: RepresentationResponse,
  roles: DOCUMENT_ROLES,
  errors: ["not_found", "business_rule", ...PROVIDER_ERRORS],
  handle: ({ org_id, invoice_id, regenerate }, ctx) =>
    documentRepresentation({
      kind: invoiceKind,
      input: { org_id, document_id: invoice_id, regenerate },
      ctx,
    }),
});
