/**
 * The UBL 2.1 `Invoice`, `CreditNote` and `DebitNote` DIAN asks for (Anexo Técnico 1.9), built from
 * the document our protocol submits, unsigned: the second `ext:UBLExtension` is left empty for the
 * signature (./signature.ts). Elements follow the order of the OASIS schemas (maindoc/UBL-Invoice-2.1.xsd,
 * UBL-CreditNote-2.1.xsd, UBL-DebitNote-2.1.xsd), which `xmllint --schema` checks in the tests.
 *
 * A note (credit or debit) is an invoice's document with its own root, customization, profile and
 * line and quantity names (the table below), and the invoice it is of: DiscrepancyResponse (its
 * concept and reason) and BillingReference (the invoice's number, CUFE and date). A DebitNote has no
 * type code (UBL 2.1 defines none: DIAN files it as 92 by its root; one written fails the schema,
 * as Vendix's whole set did: brief-business §1) and carries its totals as RequestedMonetaryTotal
 * (LegalMonetaryTotal's children, DAU01); DIAN reads its CUDE's ValFac/ValTot from there.
 *
 * The CUFE (invoices: the range's technical key) and the CUDE (notes: the software PIN) are
 * computed as DIAN recomputes them (../../co/cufe.ts): IVA is tax scheme 01, INC 04, ICA 03 (never charged
 * here), amounts truncated to two decimals.
 */

import { computeCude, computeCufe, dianQrText } from "../../co/cufe.ts";
import {
  centsToMoney,
  type Line,
  moneyToCents,
  type SubmitDocumentRequest,
} from "../../ports/providers/protocol.ts";
import { dianExtensions } from "./extensions.ts";
import { type DianDocumentInput, dianInputProblem } from "./input.ts";
import { customerParty, supplierParty, text } from "./parties.ts";
import type { SignableDocument } from "./signature.ts";
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
    line: "cac:InvoiceLine",
    quantity: "cbc:InvoicedQuantity",
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
    line: "cac:CreditNoteLine",
    quantity: "cbc:CreditedQuantity",
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
    line: "cac:DebitNoteLine",
    quantity: "cbc:DebitedQuantity",
    totals: "cac:RequestedMonetaryTotal",
  },
} as const;

/** The document before its signature (the signature goes in the second `ext:ExtensionContent`). */
export interface UnsignedDocument extends SignableDocument {
  /** The CUFE (invoice) or CUDE (note). */
  authorityCode: string;
  /** The QR text DIAN prints (../../co/cufe.ts `dianQrText`). */
  qrText: string;
}

/** A tax scheme's total and its subtotals by rate. Lines not taxed (ZZ) are in none. */
interface TaxGroup {
  code: "01" | "04";
  name: string;
  cents: bigint;
  rates: Map<string, { base: bigint; tax: bigint }>;
}

const TAX_NAMES = { "01": "IVA", "04": "INC" } as const;

/** "19" → "19.00": DIAN wants two decimals (three trigger FAS01b). */
export function percent(rate: string): string {
  const [whole = "0", decimals = ""] = rate.split(".");
  return `${whole}.${decimals.padEnd(2, "0").slice(0, 2)}`;
}

function taxGroups(lines: readonly Line[]): TaxGroup[] {
  const groups = new Map<string, TaxGroup>();
  for (const line of lines) {
    if (line.tax_code === "ZZ") continue;
    const group = groups.get(line.tax_code) ?? {
      code: line.tax_code,
      name: TAX_NAMES[line.tax_code],
      cents: 0n,
      rates: new Map(),
    };
    groups.set(line.tax_code, group);
    const rate = percent(line.tax_rate);
    const subtotal = group.rates.get(rate) ?? { base: 0n, tax: 0n };
    group.rates.set(rate, subtotal);
    subtotal.base += moneyToCents(line.line_extension);
    subtotal.tax += moneyToCents(line.tax_amount);
    group.cents += moneyToCents(line.tax_amount);
  }
  return [...groups.values()].sort((a, b) => a.code.localeCompare(b.code));
}

function taxTotal(currency: string, group: TaxGroup) {
  const amount = (name: string, cents: bigint) => text(name, centsToMoney(cents), { currencyID: currency });
  return el(
    "cac:TaxTotal",
    {},
    amount("cbc:TaxAmount", group.cents),
    ...[...group.rates].map(([rate, { base, tax }]) =>
      el(
        "cac:TaxSubtotal",
        {},
        amount("cbc:TaxableAmount", base),
        amount("cbc:TaxAmount", tax),
        el(
          "cac:TaxCategory",
          {},
          text("cbc:Percent", rate),
          el("cac:TaxScheme", {}, text("cbc:ID", group.code), text("cbc:Name", group.name)),
        ),
      ),
    ),
  );
}

function documentLine(doc: SubmitDocumentRequest, line: Line) {
  const kind = KINDS[doc.kind];
  const money = (name: string, value: string) => text(name, value, { currencyID: doc.currency });
  const unit = line.unit_code ?? "94";
  return el(
    kind.line,
    {},
    text("cbc:ID", String(line.position)),
    text(kind.quantity, line.quantity, { unitCode: unit }),
    money("cbc:LineExtensionAmount", line.line_extension),
    line.tax_code !== "ZZ" &&
      taxTotal(doc.currency, {
        code: line.tax_code,
        name: TAX_NAMES[line.tax_code],
        cents: moneyToCents(line.tax_amount),
        rates: new Map([
          [
            percent(line.tax_rate),
            { base: moneyToCents(line.line_extension), tax: moneyToCents(line.tax_amount) },
          ],
        ]),
      }),
    el(
      "cac:Item",
      {},
      text("cbc:Description", line.description),
      el(
        "cac:StandardItemIdentification",
        {},
        // 999: the issuer's own coding ("Estándar de adopción del contribuyente")
        text("cbc:ID", line.code ?? String(line.position), { schemeID: "999" }),
      ),
    ),
    el(
      "cac:Price",
      {},
      money("cbc:PriceAmount", line.unit_price),
      text("cbc:BaseQuantity", line.quantity, { unitCode: unit }),
    ),
  );
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
async function authorityCode(input: DianDocumentInput, groups: TaxGroup[]) {
  const { document: doc, dian } = input;
  const taxOf = (code: string) => centsToMoney(groups.find((g) => g.code === code)?.cents ?? 0n);
  const fields = {
    number: doc.number,
    issueDate: doc.issue_date,
    issueTime: doc.issue_time,
    subtotal: doc.totals.subtotal,
    iva: taxOf("01"),
    inc: taxOf("04"),
    ica: "0.00",
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
    otherTaxes: taxOf("04"),
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
  const groups = taxGroups(doc.lines);
  const { code, qrText } = await authorityCode(input, groups);
  const money = (name: string, cents: bigint) =>
    text(name, centsToMoney(cents), { currencyID: doc.currency });
  const subtotal = moneyToCents(doc.totals.subtotal);
  const taxed = groups.reduce((sum, g) => sum + [...g.rates.values()].reduce((s, r) => s + r.base, 0n), 0n);
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
    el(
      "cac:PaymentMeans",
      {},
      text("cbc:ID", doc.payment_form ?? "1"),
      // 1: "instrumento no definido", when the document does not say how it is paid
      text("cbc:PaymentMeansCode", doc.payment_method ?? "1"),
      text("cbc:PaymentDueDate", doc.due_date ?? doc.issue_date),
    ),
    ...groups.map((g) => taxTotal(doc.currency, g)),
    el(
      kind.totals,
      {},
      money("cbc:LineExtensionAmount", subtotal),
      money("cbc:TaxExclusiveAmount", taxed),
      money("cbc:TaxInclusiveAmount", subtotal + moneyToCents(doc.totals.tax_total)),
      money("cbc:PayableAmount", moneyToCents(doc.totals.total)),
    ),
    ...doc.lines.map((line) => documentLine(doc, line)),
  );
  return { root, namespaces, signatureSlot, authorityCode: code, qrText };
}
