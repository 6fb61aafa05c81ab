/**
 * POST /transmit — sends 1 to 50 invoices to the tax authority. HTTP 200 with one result per
 * requested invoice, in request order, even when some of them end in `error`.
 */
import { z } from "zod";
import { transmitDocuments } from "../../shared/core/documents/transmit.ts";
import { invoiceKind } from "../../shared/core/invoices/kind.ts";
import { DOCUMENT_ROLES, operation, orgScoped, transmitting, uuid } from "../../shared/http/route.ts";

export const MAX_INVOICES_PER_CALL = 50;

export const TransmitRequest = orgScoped.extend({
  invoice_ids: z
    .array(uuid)
    .min(1, "send at least one invoice id")
    .max(MAX_INVOICES_PER_CALL, `at most ${MAX_INVOICES_PER_CALL} invoices per call`)
    .refine((ids) => new Set(ids).size === ids.length, "invoice ids must be distinct")
    .meta({ uniqueItems: true }),
  reissue: z.boolean().default(false),
});
export type TransmitRequest = z.input<typeof TransmitRequest>;

export const TransmitResponse = z.object({
  results: z.array(
    z.object({
      invoice_id: z.string(),
      status: z.enum(["pendiente", "en_proceso", "transmitida", "error"]),
      message: z.string(),
    }),
  ),
});
export type TransmitResponse = z.infer<typeof TransmitResponse>;

export const transmit = operation({
  summary: "Transmit 1 to 50 invoices to the tax authority",
  input: TransmitRequest,
  output: TransmitResponse,
  roles: DOCUMENT_ROLES,
  errors: [],
  firstCallAuthorizes: true, // the claim checks the membership
  handle: async ({ org_id, invoice_ids, reissue }, ctx) => {
    const results = await transmitDocuments({
      kind: invoiceKind,
      input: { org_id, document_ids: invoice_ids, reissue },
      ctx: transmitting(ctx),
    });
    return {
      results: results.map(({ document_id, status, message }) => ({
        invoice_id: document_id,
        status: status as TransmitResponse["results"][number]["status"],
        message,
      })),
    };
  },
});
