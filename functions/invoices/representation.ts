/**
 * POST /representation — keeps the invoice's PDF current in the private bucket and answers where it
 * is: `{ path, filename, stamped, cached, generated_at }`. The caller downloads it with their own
 * session; the bytes never pass through here (shared/http/document-routes.ts).
 */
import type { z } from "zod";
import { invoiceKind } from "../../shared/core/invoices/kind.ts";
import { representationRoute } from "../../shared/http/document-routes.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";

const route = representationRoute({
  kind: invoiceKind,
  idField: "invoice_id",
  noun: "invoice",
  example: {
    id: EXAMPLE.invoice_id,
    path: `${EXAMPLE.org_id}/invoices/${EXAMPLE.invoice_id}/factura-SETP990000001-7f1a2d58658b.pdf`,
    xmlPath: `${EXAMPLE.org_id}/invoices/${EXAMPLE.invoice_id}/ad-SETP990000001-0c9e4b7a1d2f.xml`,
  },
});

export const RepresentationRequest = route.request;
export type RepresentationRequest = z.input<typeof RepresentationRequest>;
export const RepresentationResponse = route.response;
export type RepresentationResponse = z.infer<typeof RepresentationResponse>;
export const representation = route.operation;
