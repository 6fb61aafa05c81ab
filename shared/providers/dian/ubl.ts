/**
 * The UBL 2.1 `Invoice`, `CreditNote` and `DebitNote` DIAN asks for (Anexo Técnico 1.9), built from
 * the document our protocol submits, unsigned: the second `ext:UBLExtension` is left empty for the
 * signature (./signature.ts). Elements follow the order of the OASIS schemas (maindoc/UBL-Invoice-2.1.xsd,
 * UBL-CreditNote-2.1.xsd, UBL-DebitNote-2.1.xsd), which `xmllint --schema` checks in the tests.
 *
 * Its amounts are the database's, as our protocol carries them (./ubl-amounts.ts, ./ubl-lines.ts);
 * the parties are their data (./parties.ts). The CUFE (invoices: the range's technical key) and the
 * CUDE (notes: the software PIN) are computed as DIAN recomputes them (../../co/cufe.ts):
 * ValImp1–3 are the document's TaxTotal amounts of IVA 01, INC 04 and ICA 03 ("0.00" when absent);
 * every other tax (bags, IBUA, …) enters only through ValTot, the PayableAmount (brief-business §4).
 *
 * A note (credit or debit) is an invoice's document with its own root, customization, profile and
 * line and quantity names (the table below), and the invoice it is of: DiscrepancyResponse (its
 * concept and reason) and BillingReference (the invoice's number, CUFE and date). A DebitNote has no
 * type code (UBL 2.1 defines none: DIAN files it as 92 by its root; one written fails the schema,
 * as Vendix's whole set did: brief-business §1) and carries its totals as RequestedMonetaryTotal
 * (LegalMonetaryTotal's children, DAU01); DIAN reads its CUDE's ValFac/ValTot from there.
 */

import { CUFE_TAXES, computeCude, computeCufe, dianQrText } from "../../co/cufe.ts";
import { centsToMoney, moneyToCents, type SubmitDocumentRequest } from "../../ports/providers/protocol.ts";
import { dianExtensions } from "./extensions.ts";
import { type DianDocumentInput, dianInputProblem } from "./input.ts";
import { customerParty, supplierParty, text } from "./parties.ts";
import type { SignableDocument } from "./signature.ts";
import {
  allowanceCharge,
  monetaryTotal,
  paymentExchangeRate,
  paymentMeans,
  prepaidPayment,
  taxTotal,
  withholdingTaxTotal,
} from "./ubl-amounts.ts";
import { documentLine, type LineNames } from "./ubl-lines.ts";
import { type Child, el, type Namespaces } from "./xml.ts";

const NS = {
  cac: "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
  cbc: "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
  ds: "http://www.w3.org/2000/09/xmldsig#",
  ext: "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2",
  xades: "http://uri.etsi.org/01903/v1.3.2#",
} as const;

/**
 * The `sts` namespace: DIAN_UBL_Structures.xsd's for invoices; for notes, the one DIAN's note
 * examples kept from version 1 (Odoo's l10n_co_dian `_get_sts_namespace` and soenac/api-dian send
 * credit and debit notes with it).
 */
export const STS_NAMESPACE = {
  invoice: "dian:gov:co:facturaelectronica:Structures-2-1",
  credit_note: "http://www.dian.gov.co/contratos/facturaelectronica/v1/Structures",
  debit_note: "http://www.dian.gov.co/contratos/facturaelectronica/v1/Structures",
} as const;

const KINDS = {
  invoice: {
    root: "Invoice",
    namespace: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
    customization: "10",
    profile: "DIAN 2.1: Factura Electrónica de Venta",
    typeCode: ["cbc:InvoiceTypeCode", "01"],
    codeName: "CUFE-SHA384",
    lines: { element: "cac:InvoiceLine", quantity: "cbc:InvoicedQuantity", allowanceChargeFirst: true },
    totals: "cac:LegalMonetaryTotal",
  },
  credit_note: {
    root: "CreditNote",
    namespace: "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2",
    // 20: a note that references the invoice it corrects
    customization: "20",
    profile: "DIAN 2.1: Nota Crédito de Factura Electrónica de Venta",
    typeCode: ["cbc:CreditNoteTypeCode", "91"],
    codeName: "CUDE-SHA384",
    lines: { element: "cac:CreditNoteLine", quantity: "cbc:CreditedQuantity", allowanceChargeFirst: false },
    totals: "cac:LegalMonetaryTotal",
  },
  debit_note: {
    root: "DebitNote",
    namespace: "urn:oasis:names:specification:ubl:schema:xsd:DebitNote-2",
    // 30: a note that references the invoice it raises (32: none; 33: Decreto 2242, inactive)
    customization: "30",
    profile: "DIAN 2.1: Nota Débito de Factura Electrónica de Venta",
    typeCode: null,
    codeName: "CUDE-SHA384",
    // UBL-CommonAggregateComponents-2.1.xsd's DebitNoteLineType: TaxTotal before AllowanceCharge
    lines: { element: "cac:DebitNoteLine", quantity: "cbc:DebitedQuantity", allowanceChargeFirst: false },
    totals: "cac:RequestedMonetaryTotal",
  },
} as const satisfies Record<string, { lines: LineNames } & Record<string, unknown>>;

/** The document before its signature (the signature goes in the second `ext:ExtensionContent`). */
export interface UnsignedDocument extends SignableDocument {
  /** The CUFE (invoice) or CUDE (note). */
  authorityCode: string;
  /** The QR text DIAN prints (../../co/cufe.ts `dianQrText`). */
  qrText: string;
}

/**
 * The document-level groups after the parties, in the order each kind's schema fixes
 * (maindoc/UBL-Invoice-2.1.xsd: PaymentMeans, PrepaidPayment, AllowanceCharge,
 * PaymentExchangeRate, TaxTotal, WithholdingTaxTotal, LegalMonetaryTotal; UBL-CreditNote-2.1.xsd:
 * PaymentMeans, PaymentExchangeRate, AllowanceCharge, TaxTotal, LegalMonetaryTotal — a credit note
 * has neither advances nor withholdings).
 */
const SECTIONS = {
  invoice: [
    "paymentMeans",
    "prepaidPayments",
    "allowanceCharges",
    "exchangeRate",
    "taxTotals",
    "withholdings",
    "monetaryTotal",
  ],
  credit_note: ["paymentMeans", "exchangeRate", "allowanceCharges", "taxTotals", "monetaryTotal"],
  // maindoc/UBL-DebitNote-2.1.xsd: AllowanceCharge, PaymentMeans, PaymentExchangeRate, TaxTotal,
  // RequestedMonetaryTotal (no WithholdingTaxTotal; a note carries no advances)
  debit_note: ["allowanceCharges", "paymentMeans", "exchangeRate", "taxTotals", "monetaryTotal"],
} as const;

type Section = (typeof SECTIONS)[keyof typeof SECTIONS][number];

function sections(doc: SubmitDocumentRequest): Record<Section, Child[]> {
  return {
    paymentMeans: [paymentMeans(doc)],
    prepaidPayments: (doc.prepayments ?? []).map((p) => prepaidPayment(doc, p)),
    allowanceCharges: (doc.allowance_charges ?? []).map((a) => allowanceCharge(doc, a)),
    exchangeRate: [paymentExchangeRate(doc, doc.exchange_rate)],
    taxTotals: doc.tax_totals.map((t) => taxTotal(doc, t)),
    withholdings: (doc.withholdings ?? []).map((w) => withholdingTaxTotal(doc, w)),
    monetaryTotal: [monetaryTotal(doc, KINDS[doc.kind].totals)],
  };
}

/** What a note (credit or debit) says of its invoice: its concept and reason, and the invoice itself. */
function noteReferences(doc: SubmitDocumentRequest): Child[] {
  const reference = doc.billing_reference;
  const correction = doc.correction;
  if (doc.kind === "invoice" || !reference || !correction) return [];
  return [
    el(
      "cac:DiscrepancyResponse",
      {},
      text("cbc:ReferenceID", reference.number),
      text("cbc:ResponseCode", correction.concept_code),
      text("cbc:Description", correction.reason),
    ),
    el(
      "cac:BillingReference",
      {},
      el(
        "cac:InvoiceDocumentReference",
        {},
        text("cbc:ID", reference.number),
        text("cbc:UUID", reference.authority_code, { schemeName: "CUFE-SHA384" }),
        text("cbc:IssueDate", reference.issue_date),
      ),
    ),
  ];
}

/** The CUFE or CUDE of `doc`, and its QR text. */
async function authorityCode(input: DianDocumentInput) {
  const { document: doc, dian } = input;
  const taxOf = (code: string) => doc.tax_totals.find((t) => t.code === code)?.tax_amount ?? "0.00";
  const fields = {
    number: doc.number,
    issueDate: doc.issue_date,
    issueTime: doc.issue_time,
    subtotal: doc.totals.subtotal,
    iva: taxOf(CUFE_TAXES.iva),
    inc: taxOf(CUFE_TAXES.inc),
    ica: taxOf(CUFE_TAXES.ica),
    total: doc.totals.total,
    issuerNit: doc.issuer.nit,
    buyerId: doc.buyer.id_number,
    environment: doc.environment,
  };
  const code =
    doc.kind === "invoice"
      ? await computeCufe({ ...fields, technicalKey: doc.issuer.technical_key ?? "" })
      : await computeCude({ ...fields, softwarePin: dian.software.pin });
  const qrText = dianQrText({
    ...fields,
    // ValOtroIm: every tax but IVA
    otherTaxes: centsToMoney(moneyToCents(doc.totals.tax_total) - moneyToCents(fields.iva)),
    cufe: code,
    codeLabel: doc.kind === "invoice" ? "CUFE" : "CUDE",
  });
  return { code, qrText };
}

/** Builds the unsigned document; throws a RangeError when `input` cannot make one (dianInputProblem). */
export async function buildUnsignedDocument(input: DianDocumentInput): Promise<UnsignedDocument> {
  const problem = dianInputProblem(input);
  if (problem) throw new RangeError(problem);
  const { document: doc, dian } = input;
  const kind = KINDS[doc.kind];
  const { code, qrText } = await authorityCode(input);
  const parts = sections(doc);
  const signatureSlot = el("ext:ExtensionContent");
  const namespaces: Namespaces = { "": kind.namespace, ...NS, sts: STS_NAMESPACE[doc.kind] };
  const root = el(
    kind.root,
    {},
    el(
      "ext:UBLExtensions",
      {},
      el("ext:UBLExtension", {}, el("ext:ExtensionContent", {}, await dianExtensions(doc, dian, code))),
      el("ext:UBLExtension", {}, signatureSlot),
    ),
    text("cbc:UBLVersionID", "UBL 2.1"),
    text("cbc:CustomizationID", kind.customization),
    text("cbc:ProfileID", kind.profile),
    text("cbc:ProfileExecutionID", doc.environment === "prd" ? "1" : "2"),
    text("cbc:ID", doc.number),
    text("cbc:UUID", code, { schemeID: doc.environment === "prd" ? "1" : "2", schemeName: kind.codeName }),
    text("cbc:IssueDate", doc.issue_date),
    text("cbc:IssueTime", doc.issue_time),
    doc.kind === "invoice" && doc.due_date && text("cbc:DueDate", doc.due_date),
    kind.typeCode && text(kind.typeCode[0], kind.typeCode[1]),
    doc.notes && text("cbc:Note", doc.notes),
    text("cbc:DocumentCurrencyCode", doc.currency),
    text("cbc:LineCountNumeric", String(doc.lines.length)),
    ...noteReferences(doc),
    supplierParty(doc.issuer, dian.resolution?.prefix),
    customerParty(doc.buyer),
    ...SECTIONS[doc.kind].flatMap((section) => parts[section]),
    ...doc.lines.map((line) => documentLine(doc, line, kind.lines)),
  );
  return { root, namespaces, signatureSlot, authorityCode: code, qrText };
}
