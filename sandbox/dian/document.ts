/**
 * The fields of a received UBL 2.1 Invoice, CreditNote or DebitNote that DIAN's validator reads (its
 * `DocumentParsed`/`CufeModel`/`NitModel`/`SoftwareModel`/`NumberRangeModel`, [D] Plugin
 * `Common/Validator.cs`), taken from the DOM by namespace and local name — never through our
 * builder's code, so a field our builder misplaces is missed here as DIAN would miss it.
 */
import { type DocumentContent, readContent } from "./content.ts";
import { at, child, childrenNamed, descendants, type Element, textOf } from "./xml-read.ts";

export const UBL = {
  invoice: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
  creditNote: "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2",
  debitNote: "urn:oasis:names:specification:ubl:schema:xsd:DebitNote-2",
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
  kind: "invoice" | "credit_note" | "debit_note";
  /** DIAN's document type: 01 invoice, 91 credit note, 92 debit note (by its root: a DebitNote has no type code). */
  typeCode: "01" | "91" | "92";
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
  /**
   * A note's `BillingReference/InvoiceDocumentReference` (its invoice's number, CUFE and date, as DIAN's
   * DocumentReferencedKey reads it: [D] `ValidateNoteReference`); null when it has none.
   */
  billingReference: { id: string; uuid: string; issueDate: string } | null;
}

/** The root's kind, by its namespace and local name ([D] files a DebitNote as type 92 by its root). */
const ROOTS = [
  [UBL.invoice, "Invoice", "invoice", "01", "InvoiceLine", "LegalMonetaryTotal"],
  [UBL.creditNote, "CreditNote", "credit_note", "91", "CreditNoteLine", "LegalMonetaryTotal"],
  [UBL.debitNote, "DebitNote", "debit_note", "92", "DebitNoteLine", "RequestedMonetaryTotal"],
] as const;

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

/** The document's fields, or null when the root is not an Invoice, a CreditNote or a DebitNote. */
export function readDocument(root: Element): ReceivedDocument | null {
  const known = ROOTS.find(([ns, local]) => root.namespaceURI === ns && root.localName === local);
  if (!known) return null;
  const [, , kind, typeCode, lineName, totalsName] = known;
  const extensions =
    descendants(root, STS[0] as string, "DianExtensions")[0] ??
    descendants(root, STS[1] as string, "DianExtensions")[0];
  const sts = extensions?.namespaceURI ?? "";
  const control = child(extensions, sts, "InvoiceControl");
  const authorized = child(control, sts, "AuthorizedInvoices");
  const period = child(control, sts, "AuthorizationPeriod");
  const totals = child(root, UBL.cac, totalsName);
  const taxBySchema = new Map<string, string>();
  for (const total of childrenNamed(root, UBL.cac, "TaxTotal")) {
    const schemeId = cbc(
      at(total, [UBL.cac, "TaxSubtotal"], [UBL.cac, "TaxCategory"], [UBL.cac, "TaxScheme"]),
      "ID",
    );
    if (!taxBySchema.has(schemeId)) taxBySchema.set(schemeId, cbc(total, "TaxAmount"));
  }
  const reference = at(root, [UBL.cac, "BillingReference"], [UBL.cac, "InvoiceDocumentReference"]);
  return {
    kind,
    typeCode,
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
    content: readContent(
      root,
      lineName,
      (
        {
          invoice: "InvoicedQuantity",
          credit_note: "CreditedQuantity",
          debit_note: "DebitedQuantity",
        } as const
      )[kind],
    ),
    billingReference: reference
      ? { id: cbc(reference, "ID"), uuid: cbc(reference, "UUID"), issueDate: cbc(reference, "IssueDate") }
      : null,
  };
}
