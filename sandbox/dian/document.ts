/**
 * The fields of a received UBL 2.1 Invoice or CreditNote that DIAN's validator reads (its
 * `DocumentParsed`/`CufeModel`/`NitModel`/`SoftwareModel`/`NumberRangeModel`, [D] Plugin
 * `Common/Validator.cs`), taken from the DOM by namespace and local name — never through our
 * builder's code, so a field our builder misplaces is missed here as DIAN would miss it.
 */
import { type DocumentContent, readContent } from "./content.ts";
import { at, child, childrenNamed, descendants, type Element, textOf } from "./xml-read.ts";

export const UBL = {
  invoice: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
  creditNote: "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2",
  cac: "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
  cbc: "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
  ext: "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2",
  xades: "http://uri.etsi.org/01903/v1.3.2#",
} as const;

/** DianExtensions' namespace: 2.1 for invoices, version 1's for notes (brief §3). */
const STS = [
  "dian:gov:co:facturaelectronica:Structures-2-1",
  "http://www.dian.gov.co/contratos/facturaelectronica/v1/Structures",
];

export interface PartyId {
  id: string;
  /** schemeID: the DV of a NIT. */
  dv: string;
  /** schemeName: the identification type, 31 for a NIT. */
  type: string;
  name: string;
}

export interface ReceivedDocument {
  kind: "invoice" | "credit_note";
  /** DIAN's document type: 01 invoice, 91 credit note. */
  typeCode: "01" | "91";
  id: string;
  uuid: string;
  issueDate: string;
  issueTime: string;
  profileExecutionId: string;
  supplier: PartyId;
  customer: PartyId;
  control: {
    invoiceAuthorization?: string;
    startDate?: string;
    endDate?: string;
    prefix?: string;
    from?: string;
    to?: string;
  };
  softwareId: string;
  securityCode: string;
  totals: Record<
    "lineExtension" | "taxExclusive" | "taxInclusive" | "allowance" | "charge" | "payable",
    string
  >;
  /** Document-level TaxTotal amount per tax scheme (01 IVA, 04 INC, 03 ICA). */
  taxBySchema: Map<string, string>;
  lines: { lineExtension: string; taxable: string[]; tax: string[] }[];
  signingTime: string;
  /** The rest of what the content rules read (./content.ts). */
  content: DocumentContent;
}

const cbc = (parent: Element | undefined, local: string) => textOf(child(parent, UBL.cbc, local)) ?? "";

function party(root: Element, group: string): PartyId {
  const scheme = at(root, [UBL.cac, group], [UBL.cac, "Party"], [UBL.cac, "PartyTaxScheme"]);
  const id = child(scheme, UBL.cbc, "CompanyID");
  return {
    id: textOf(id) ?? "",
    dv: id?.getAttribute("schemeID") ?? "",
    type: id?.getAttribute("schemeName") ?? "",
    name: cbc(scheme, "RegistrationName"),
  };
}

/** The document's fields, or null when the root is neither an Invoice nor a CreditNote. */
export function readDocument(root: Element): ReceivedDocument | null {
  const kind =
    root.namespaceURI === UBL.invoice && root.localName === "Invoice"
      ? "invoice"
      : root.namespaceURI === UBL.creditNote && root.localName === "CreditNote"
        ? "credit_note"
        : null;
  if (!kind) return null;
  const extensions =
    descendants(root, STS[0] as string, "DianExtensions")[0] ??
    descendants(root, STS[1] as string, "DianExtensions")[0];
  const sts = extensions?.namespaceURI ?? "";
  const control = child(extensions, sts, "InvoiceControl");
  const authorized = child(control, sts, "AuthorizedInvoices");
  const period = child(control, sts, "AuthorizationPeriod");
  const totals = child(root, UBL.cac, "LegalMonetaryTotal");
  const taxBySchema = new Map<string, string>();
  for (const total of childrenNamed(root, UBL.cac, "TaxTotal")) {
    const schemeId = cbc(
      at(total, [UBL.cac, "TaxSubtotal"], [UBL.cac, "TaxCategory"], [UBL.cac, "TaxScheme"]),
      "ID",
    );
    if (!taxBySchema.has(schemeId)) taxBySchema.set(schemeId, cbc(total, "TaxAmount"));
  }
  const lineName = kind === "invoice" ? "InvoiceLine" : "CreditNoteLine";
  return {
    kind,
    typeCode: kind === "invoice" ? "01" : "91",
    id: cbc(root, "ID"),
    uuid: cbc(root, "UUID"),
    issueDate: cbc(root, "IssueDate"),
    issueTime: cbc(root, "IssueTime"),
    profileExecutionId: cbc(root, "ProfileExecutionID"),
    supplier: party(root, "AccountingSupplierParty"),
    customer: party(root, "AccountingCustomerParty"),
    control: {
      invoiceAuthorization: textOf(child(control, sts, "InvoiceAuthorization")),
      startDate: textOf(child(period, UBL.cbc, "StartDate")),
      endDate: textOf(child(period, UBL.cbc, "EndDate")),
      prefix: textOf(child(authorized, sts, "Prefix")),
      from: textOf(child(authorized, sts, "From")),
      to: textOf(child(authorized, sts, "To")),
    },
    softwareId: textOf(at(extensions, [sts, "SoftwareProvider"], [sts, "SoftwareID"])) ?? "",
    securityCode: textOf(child(extensions, sts, "SoftwareSecurityCode")) ?? "",
    totals: {
      lineExtension: cbc(totals, "LineExtensionAmount"),
      taxExclusive: cbc(totals, "TaxExclusiveAmount"),
      taxInclusive: cbc(totals, "TaxInclusiveAmount"),
      allowance: cbc(totals, "AllowanceTotalAmount"),
      charge: cbc(totals, "ChargeTotalAmount"),
      payable: cbc(totals, "PayableAmount"),
    },
    taxBySchema,
    lines: childrenNamed(root, UBL.cac, lineName).map((line) => {
      const subtotals = childrenNamed(line, UBL.cac, "TaxTotal").flatMap((t) =>
        childrenNamed(t, UBL.cac, "TaxSubtotal"),
      );
      return {
        lineExtension: cbc(line, "LineExtensionAmount"),
        taxable: subtotals.map((s) => cbc(s, "TaxableAmount")),
        tax: childrenNamed(line, UBL.cac, "TaxTotal").map((t) => cbc(t, "TaxAmount")),
      };
    }),
    signingTime: textOf(descendants(root, UBL.xades, "SigningTime")[0]) ?? "",
    content: readContent(root, lineName, kind === "invoice" ? "InvoicedQuantity" : "CreditedQuantity"),
  };
}
