/**
 * The UBL 2.1 XML of a document the sandbox accepted — an `Invoice` (CUFE) or a `CreditNote`
 * (CUDE) — the way DIAN's Anexo técnico de Factura Electrónica de Venta v1.9 (Resolución 000165 de
 * 2023) lays out the fields the protocol carries: the DIAN extensions (here only the QR text), the
 * header (UBLVersionID, CustomizationID, ProfileExecutionID, ID, UUID with its schemeName, dates), the
 * issuer and buyer as AccountingSupplierParty / AccountingCustomerParty (PartyTaxScheme with the NIT
 * under DIAN's agency 195), the tax totals per scheme and rate, LegalMonetaryTotal and the lines. It
 * is what the AttachedDocument embeds (./attached-document.ts). A sandbox document: no numbering
 * resolution, no software security code and no XAdES signature (docs/sandbox.md says so).
 */
import { centsToMoney, moneyToCents, type SubmitDocumentRequest } from "../shared/providers/protocol.ts";
import { all, el, leaf, type Markup } from "./xml.ts";

export const NS = {
  cac: "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
  cbc: "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
  ext: "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2",
  sts: "dian:gov:co:facturaelectronica:Structures-2-1",
} as const;

/** DIAN, as the agency of the identification schemes (Anexo: schemeAgencyID 195). */
export const DIAN_AGENCY = {
  schemeAgencyID: "195",
  schemeAgencyName: "CO, DIAN (Dirección de Impuestos y Aduanas Nacionales)",
};

/** Tax scheme names by code (Anexo 13.2.6.2 table of taxes); ZZ is "not taxed". */
const TAX_NAMES: Record<string, string> = { "01": "IVA", "04": "INC", ZZ: "No aplica" };

/** The `schemeName` of an authority code: CUFE for an invoice, CUDE for a credit note. */
export function codeScheme(doc: SubmitDocumentRequest): "CUFE-SHA384" | "CUDE-SHA384" {
  return doc.kind === "credit_note" ? "CUDE-SHA384" : "CUFE-SHA384";
}

/** ProfileExecutionID: 1 production, 2 test (habilitación). */
export function profileExecutionId(doc: SubmitDocumentRequest): "1" | "2" {
  return doc.environment === "prd" ? "1" : "2";
}

/** A party's tax registration (cac:PartyTaxScheme), as both the documents and the container use it. */
export function partyTaxScheme(party: {
  name: string;
  id: string;
  idType: string;
  checkDigit?: string | undefined;
  taxLevel?: string | undefined;
}): Markup {
  return el(
    "cac:PartyTaxScheme",
    null,
    el("cbc:RegistrationName", null, party.name),
    el("cbc:CompanyID", { ...DIAN_AGENCY, schemeID: party.checkDigit, schemeName: party.idType }, party.id),
    leaf("cbc:TaxLevelCode", party.taxLevel),
    el("cac:TaxScheme", null, el("cbc:ID", null, "01"), el("cbc:Name", null, "IVA")),
  );
}

export function issuerParty(doc: SubmitDocumentRequest): Parameters<typeof partyTaxScheme>[0] {
  return {
    name: doc.issuer.legal_name,
    id: doc.issuer.nit,
    idType: "31",
    checkDigit: doc.issuer.check_digit,
    taxLevel: doc.issuer.fiscal_responsibilities?.join(";") || "R-99-PN",
  };
}

export function buyerParty(doc: SubmitDocumentRequest): Parameters<typeof partyTaxScheme>[0] {
  return {
    name: doc.buyer.name,
    id: doc.buyer.id_number,
    idType: doc.buyer.id_type,
    checkDigit: doc.buyer.check_digit,
    taxLevel: "R-99-PN",
  };
}

/** The document's XML root element (without the XML declaration), with its authority's code. */
export function ublDocument(doc: SubmitDocumentRequest, authorityCode: string, qrText: string): Markup {
  const credit = doc.kind === "credit_note";
  const currency = { currencyID: doc.currency };
  const address = (city: string | undefined, line: string | undefined) =>
    city || line
      ? el(
          "cac:PhysicalLocation",
          null,
          el(
            "cac:Address",
            null,
            leaf("cbc:ID", city),
            line ? el("cac:AddressLine", null, el("cbc:Line", null, line)) : null,
            el("cac:Country", null, el("cbc:IdentificationCode", null, "CO")),
          ),
        )
      : null;
  const party = (
    role: "cac:AccountingSupplierParty" | "cac:AccountingCustomerParty",
    who: Parameters<typeof partyTaxScheme>[0],
    extra: { personType?: string | undefined; tradeName?: string | undefined; email?: string | undefined },
    place: Markup | null,
  ) =>
    el(
      role,
      null,
      leaf("cbc:AdditionalAccountID", extra.personType),
      el(
        "cac:Party",
        null,
        el("cac:PartyName", null, el("cbc:Name", null, extra.tradeName ?? who.name)),
        place,
        partyTaxScheme(who),
        el(
          "cac:PartyLegalEntity",
          null,
          el("cbc:RegistrationName", null, who.name),
          el("cbc:CompanyID", { ...DIAN_AGENCY, schemeID: who.checkDigit, schemeName: who.idType }, who.id),
        ),
        extra.email ? el("cac:Contact", null, el("cbc:ElectronicMail", null, extra.email)) : null,
      ),
    );

  const lines = doc.lines.map((line) =>
    el(
      credit ? "cac:CreditNoteLine" : "cac:InvoiceLine",
      null,
      el("cbc:ID", null, String(line.position)),
      el(
        credit ? "cbc:CreditedQuantity" : "cbc:InvoicedQuantity",
        { unitCode: line.unit_code ?? "94" },
        line.quantity,
      ),
      el("cbc:LineExtensionAmount", currency, line.line_extension),
      line.tax_code === "ZZ"
        ? null
        : el(
            "cac:TaxTotal",
            null,
            el("cbc:TaxAmount", currency, line.tax_amount),
            taxSubtotal(line.line_extension, line.tax_amount, line.tax_rate, line.tax_code, currency),
          ),
      el(
        "cac:Item",
        null,
        el("cbc:Description", null, line.description),
        line.code ? el("cac:SellersItemIdentification", null, el("cbc:ID", null, line.code)) : null,
      ),
      el(
        "cac:Price",
        null,
        el("cbc:PriceAmount", currency, line.unit_price),
        el("cbc:BaseQuantity", { unitCode: line.unit_code ?? "94" }, line.quantity),
      ),
    ),
  );

  const taxable = doc.lines.filter((line) => line.tax_code !== "ZZ");
  const correction = doc.correction;
  const reference = doc.billing_reference;
  return el(
    credit ? "CreditNote" : "Invoice",
    {
      xmlns: `urn:oasis:names:specification:ubl:schema:xsd:${credit ? "CreditNote" : "Invoice"}-2`,
      "xmlns:cac": NS.cac,
      "xmlns:cbc": NS.cbc,
      "xmlns:ext": NS.ext,
      "xmlns:sts": NS.sts,
    },
    el(
      "ext:UBLExtensions",
      null,
      el(
        "ext:UBLExtension",
        null,
        el("ext:ExtensionContent", null, el("sts:DianExtensions", null, el("sts:QRCode", null, qrText))),
      ),
    ),
    el("cbc:UBLVersionID", null, "UBL 2.1"),
    // 10: a standard invoice; 20: a credit note that references an invoice (Anexo, CustomizationID)
    el("cbc:CustomizationID", null, credit ? "20" : "10"),
    el(
      "cbc:ProfileID",
      null,
      credit
        ? "DIAN 2.1: Nota Crédito de Factura Electrónica de Venta"
        : "DIAN 2.1: Factura Electrónica de Venta",
    ),
    el("cbc:ProfileExecutionID", null, profileExecutionId(doc)),
    el("cbc:ID", null, doc.number),
    el("cbc:UUID", { schemeID: profileExecutionId(doc), schemeName: codeScheme(doc) }, authorityCode),
    el("cbc:IssueDate", null, doc.issue_date),
    el("cbc:IssueTime", null, doc.issue_time),
    credit ? null : leaf("cbc:DueDate", doc.due_date),
    credit ? el("cbc:CreditNoteTypeCode", null, "91") : el("cbc:InvoiceTypeCode", null, "01"),
    leaf("cbc:Note", doc.notes),
    el("cbc:DocumentCurrencyCode", null, doc.currency),
    el("cbc:LineCountNumeric", null, String(doc.lines.length)),
    correction
      ? el(
          "cac:DiscrepancyResponse",
          null,
          leaf("cbc:ReferenceID", reference?.number),
          el("cbc:ResponseCode", null, correction.concept_code),
          el("cbc:Description", null, correction.reason),
        )
      : null,
    reference
      ? el(
          "cac:BillingReference",
          null,
          el(
            "cac:InvoiceDocumentReference",
            null,
            el("cbc:ID", null, reference.number),
            el("cbc:UUID", { schemeName: "CUFE-SHA384" }, reference.authority_code),
            el("cbc:IssueDate", null, reference.issue_date),
          ),
        )
      : null,
    party(
      "cac:AccountingSupplierParty",
      issuerParty(doc),
      { personType: doc.issuer.person_type, tradeName: doc.issuer.trade_name, email: doc.issuer.email },
      address(doc.issuer.city_code, doc.issuer.address),
    ),
    party(
      "cac:AccountingCustomerParty",
      buyerParty(doc),
      { email: doc.buyer.email },
      address(doc.buyer.city_code, doc.buyer.address),
    ),
    doc.payment_form || doc.payment_method
      ? el(
          "cac:PaymentMeans",
          null,
          leaf("cbc:ID", doc.payment_form),
          leaf("cbc:PaymentMeansCode", doc.payment_method),
          leaf("cbc:PaymentDueDate", doc.due_date),
        )
      : null,
    taxTotals(doc, currency),
    el(
      "cac:LegalMonetaryTotal",
      null,
      el("cbc:LineExtensionAmount", currency, doc.totals.subtotal),
      el("cbc:TaxExclusiveAmount", currency, sum(taxable.map((line) => line.line_extension))),
      el("cbc:TaxInclusiveAmount", currency, doc.totals.total),
      el("cbc:PayableAmount", currency, doc.totals.total),
    ),
    all(lines),
  );
}

/** One cac:TaxTotal per tax scheme (IVA, INC), a cac:TaxSubtotal per rate within it. */
function taxTotals(doc: SubmitDocumentRequest, currency: { currencyID: string }): Markup {
  const schemes = new Map<string, Map<string, { base: string[]; tax: string[] }>>();
  for (const line of doc.lines) {
    if (line.tax_code === "ZZ") continue;
    const rates = schemes.get(line.tax_code) ?? new Map();
    schemes.set(line.tax_code, rates);
    const rate = rates.get(line.tax_rate) ?? { base: [], tax: [] };
    rates.set(line.tax_rate, rate);
    rate.base.push(line.line_extension);
    rate.tax.push(line.tax_amount);
  }
  return all(
    [...schemes].map(([code, rates]) =>
      el(
        "cac:TaxTotal",
        null,
        el("cbc:TaxAmount", currency, sum([...rates.values()].flatMap((r) => r.tax))),
        all([...rates].map(([rate, r]) => taxSubtotal(sum(r.base), sum(r.tax), rate, code, currency))),
      ),
    ),
  );
}

function taxSubtotal(
  base: string,
  tax: string,
  rate: string,
  code: string,
  currency: { currencyID: string },
): Markup {
  return el(
    "cac:TaxSubtotal",
    null,
    el("cbc:TaxableAmount", currency, base),
    el("cbc:TaxAmount", currency, tax),
    el(
      "cac:TaxCategory",
      null,
      el("cbc:Percent", null, Number(rate).toFixed(2)),
      el("cac:TaxScheme", null, el("cbc:ID", null, code), el("cbc:Name", null, TAX_NAMES[code] ?? code)),
    ),
  );
}

function sum(amounts: string[]): string {
  return centsToMoney(amounts.reduce((total, amount) => total + moneyToCents(amount), 0n));
}
