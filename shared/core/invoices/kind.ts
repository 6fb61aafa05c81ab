/**
 * Invoices, the first kind of fiscal document: what the lifecycle (shared/core/documents) needs to
 * know about them. Content in `invoices` and `invoice_lines`; accepted means `transmitida`; the
 * authority code is the CUFE (with the company's technical key).
 */
import type { InvoiceDocumentRow } from "../../kernel/rows.ts";
import { toInvoicePdfModel } from "../../pdf/model.ts";
import type { DocumentKindSpec } from "../documents/kind.ts";

export const invoiceKind: DocumentKindSpec<"invoice"> & { accepted: "transmitida" } = {
  kind: "invoice",
  accepted: "transmitida",
  unsent: "pendiente",
  words: {
    noun: "invoice",
    alreadyAccepted: "already transmitted: the authority accepted this invoice",
    howToResend: "pass reissue: true to send it again",
    whileInProgress: "use /refresh to ask the authority, or reissue: true once it is idle",
  },
  folder: "invoices",
  // imported on the first send or render (../documents/kind.ts)
  prepare: async (document, environment) =>
    (await import("./document.ts")).prepareInvoice(document, environment),
  pdfModel: (document, fiscal, software) => toInvoicePdfModel(document, fiscal, { software }),
  fileName: (document: InvoiceDocumentRow, fingerprint) => `factura-${document.number}-${fingerprint}.pdf`,
};
