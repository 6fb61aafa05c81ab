/** POST /refresh — re-queries the authority's status of a transmitted invoice (shared/http/document-routes.ts). */
import type { z } from "zod";
import { invoiceKind } from "../../shared/core/invoices/kind.ts";
import { refreshRoute } from "../../shared/http/document-routes.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";

const route = refreshRoute({
  kind: invoiceKind,
  idField: "invoice_id",
  noun: "invoice",
  example: {
    id: EXAMPLE.invoice_id,
    path: `${EXAMPLE.org_id}/invoices/${EXAMPLE.invoice_id}/factura-SETP990000001-7f1a2d58658b.pdf`,
    xmlPath: `${EXAMPLE.org_id}/invoices/${EXAMPLE.invoice_id}/ad-SETP990000001-0c9e4b7a1d2f.xml`,
  },
});

export const RefreshRequest = route.request;
export type RefreshRequest = z.input<typeof RefreshRequest>;
export const RefreshResponse = route.response;
export type RefreshResponse = z.infer<typeof RefreshResponse>;
export const refresh = route.operation;
