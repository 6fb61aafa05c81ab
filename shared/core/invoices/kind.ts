/**
 * Invoices, the first kind of fiscal document: what the lifecycle (shared/core/documents) needs to
 * know about them. Content in `invoices` and `invoice_lines`; accepted means `transmitida`; the
 * authority code is the CUFE (with the company's technical key).
 */
import type { InvoiceDocumentRow } from "../../db/rows.ts";
import { BusinessRuleError } from "../../errors.ts";
import { toInvoicePdfModel } from "../../pdf/model.ts";
import { renderStatusOf } from "../../providers/docsgen.ts";
import type { DocumentKindSpec } from "../documents/kind.ts";
import { prepareInvoice } from "./document.ts";

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
  prepare: prepareInvoice,
  pdfModel: (document, fiscal) => toInvoicePdfModel(document, fiscal),
  renderRequest(document, fiscal, environment, stamp) {
    const prepared = prepareInvoice(document, environment);
    if (!prepared.ok) {
      throw new BusinessRuleError(`The invoice cannot be rendered: ${prepared.problems.join("; ")}.`);
    }
    const { kind: _kind, reference, issuer, ...data } = prepared.request;
    const { technical_key: _secret, ...publicIssuer } = issuer;
    return {
      kind: "invoice",
      reference,
      document: { ...data, issuer: publicIssuer, status: renderStatusOf(fiscal.status), ...(stamp ?? {}) },
    };
  },
  fileName: (document: InvoiceDocumentRow, fingerprint) => `factura-${document.number}-${fingerprint}.pdf`,
};
