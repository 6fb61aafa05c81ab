/**
 * The AttachedDocument ("Documento contenedor", Anexo Técnico 1.9): the UBL 2.1 container a
 * Colombian buyer is owed once DIAN has validated a document, holding the signed document and
 * DIAN's ApplicationResponse, signed XAdES-EPES by the issuer (./signature.ts, the same signature
 * the document has, in the container's one `ext:UBLExtension`).
 *
 * Layout, checked against Odoo 19's l10n_co_dian (its `attached_document` template in
 * views/templates.xml, the values `_get_attached_document_values` fills in, and
 * tests/attachments/attached_document.xml) and against AttachedDocuments providers sent to real
 * buyers (a Siigo and a SIESA one, both signed in one `ext:UBLExtension`, both with ProfileID
 * "Factura Electrónica de Venta"): UBLVersionID, CustomizationID "Documentos adjuntos", ProfileID,
 * ProfileExecutionID, the number as ID, the CUFE/CUDE as UUID, the validation's date and time as
 * IssueDate/IssueTime, DocumentType "Contenedor de Factura Electrónica", the number as
 * ParentDocumentID; the issuer's and buyer's PartyTaxScheme (as the document has them) in
 * SenderParty and ReceiverParty; the signed document as the CDATA text of
 * Attachment/ExternalReference/Description; in ParentDocumentLineReference/DocumentReference the
 * ApplicationResponse the same way, and ResultOfVerification with DIAN as validator and the
 * response's code, date and time. Odoo leaves the container unsigned and writes `scheme_name` for
 * `schemeName` (a bug: the schema has no such attribute); neither is copied.
 *
 * The two embedded documents are signed by others' signatures over their own bytes, so they are
 * carried as they are, never parsed and written again: the document as DIAN holds it (the bytes
 * sent, as GetXmlByDocumentKey hands them back), the ApplicationResponse as DIAN returned it.
 * CDATA cannot hold `]]>` and the container's signature is over its canonical form, where a CDATA
 * section is escaped text: ./xml.ts writes CDATA sections in the bytes and digests their text, so
 * the two agree (xmlsec1 verifies it: tests/dian/attached-document.test.ts).
 */
import type { SubmitDocumentRequest } from "../../ports/providers/protocol.ts";
import { readApplicationResponse, utf8Text, VALIDATED } from "./application-response.ts";
import type { Signer } from "./certificate.ts";
import { customerTaxScheme, supplierTaxScheme, text } from "./parties.ts";
import { signDocument } from "./signature.ts";
import { canonical, cdata, el, type Namespaces, xmlSafe } from "./xml.ts";

const NAMESPACES: Namespaces = {
  "": "urn:oasis:names:specification:ubl:schema:xsd:AttachedDocument-2",
  cac: "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
  cbc: "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
  ds: "http://www.w3.org/2000/09/xmldsig#",
  ext: "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2",
  xades: "http://uri.etsi.org/01903/v1.3.2#",
};

/** DIAN as the validator of every document (the name its ApplicationResponses give it). */
export const DIAN_VALIDATOR = "Unidad Especial Dirección de Impuestos y Aduanas Nacionales";

const ROOTS = { invoice: "Invoice", credit_note: "CreditNote", debit_note: "DebitNote" } as const;
const SCHEMES = { invoice: "CUFE-SHA384", credit_note: "CUDE-SHA384", debit_note: "CUDE-SHA384" } as const;

/** What the container says about the document: the request it was built from, and its CUFE/CUDE. */
export type AttachedDocumentFacts = Pick<
  SubmitDocumentRequest,
  "kind" | "reference" | "number" | "issue_date" | "issue_time" | "environment" | "issuer" | "buyer"
> & { authority_code: string };

export interface AttachedDocumentInput {
  /**
   * The signed Invoice or CreditNote exactly as DIAN validated it: DIAN's copy (GetXmlByDocumentKey),
   * i.e. the bytes `buildSignedDocument` wrote and we sent — never a rebuild, which would carry
   * today's certificate, technical key or PIN.
   */
  document: Uint8Array;
  /**
   * DIAN's ApplicationResponse validating it: `XmlBase64Bytes` decoded from base64, nothing else
   * done. It is carried as it is, less a leading byte-order mark (not content; inside the CDATA
   * section it would come before the XML declaration, where no parser takes it).
   */
  applicationResponse: Uint8Array;
  facts: AttachedDocumentFacts;
}

export interface AttachedDocumentOptions {
  /** The container's SigningTime. Default: the validation instant, so a rebuild gives the same bytes. */
  signingTime?: string;
}

/** `text` as it may go into a CDATA section whole, or a RangeError: UTF-8 with only XML characters. */
function embeddable(bytes: Uint8Array, what: string): string {
  const decoded = utf8Text(bytes, what);
  if (xmlSafe(decoded) !== decoded) throw new RangeError(`${what} holds characters XML cannot carry`);
  return decoded;
}

/** The document's header as our builder writes it (canonical), which the facts must match. */
function documentHeader(facts: AttachedDocumentFacts): string {
  const header = [
    text("cbc:ID", facts.number),
    text("cbc:UUID", facts.authority_code, {
      schemeID: facts.environment === "prd" ? "1" : "2",
      schemeName: SCHEMES[facts.kind],
    }),
    text("cbc:IssueDate", facts.issue_date),
    text("cbc:IssueTime", facts.issue_time),
  ];
  return header.map((element) => canonical(element, {})).join("");
}

/** `xs:time` with an offset: DIAN's `03:50:22-05:00` as it is; a SigningTime needs the date too. */
function signingInstant(date: string, time: string): string {
  const [, clock = time, fraction = "", zone = ""] = /^(\d{2}:\d{2}:\d{2})(\.\d+)?(.*)$/.exec(time) ?? [];
  return `${date}T${clock}${(fraction || ".000").padEnd(4, "0").slice(0, 4)}${zone || "-05:00"}`;
}

/**
 * Builds and signs the AttachedDocument of a document DIAN validated. Deterministic: the same
 * inputs give the same bytes. Throws a RangeError when the inputs do not belong together: an
 * ApplicationResponse that is not DIAN's validation (code 02) of this CUFE/CUDE, or a document
 * that is not the signed document these facts describe (our builder's Invoice or CreditNote with
 * this number, CUFE/CUDE, environment, dates and signature Id): the one check that DIAN's copy is
 * the document asked about.
 */
export async function buildAttachedDocument(
  input: AttachedDocumentInput,
  signer: Signer,
  options: AttachedDocumentOptions = {},
): Promise<Uint8Array<ArrayBuffer>> {
  const { facts } = input;
  const code = facts.authority_code.toLowerCase();
  const response = readApplicationResponse(input.applicationResponse);
  if (response.responseCode !== VALIDATED) {
    throw new RangeError(
      `the ApplicationResponse does not validate the document (code ${response.responseCode})`,
    );
  }
  if (response.documentKey !== code) {
    throw new RangeError("the ApplicationResponse answers another document (its CUFE/CUDE differs)");
  }
  const document = embeddable(input.document, "the signed document");
  const root = ROOTS[facts.kind];
  const signature = `<ds:Signature Id="xmldsig-${facts.reference.toLowerCase()}"><ds:SignedInfo>`;
  if (!new RegExp(`^<\\?xml[^>]*\\?><${root}[ >]`).test(document) || !document.includes(signature)) {
    throw new RangeError(`the signed document is not a signed ${root} as the DIAN builder writes it`);
  }
  if (!document.includes(documentHeader({ ...facts, authority_code: code }))) {
    throw new RangeError("the signed document is not the one these facts describe");
  }
  const applicationResponse = embeddable(input.applicationResponse, "the ApplicationResponse");

  const scheme = SCHEMES[facts.kind];
  const embedded = (xml: string) =>
    el(
      "cac:Attachment",
      {},
      el(
        "cac:ExternalReference",
        {},
        text("cbc:MimeCode", "text/xml"),
        text("cbc:EncodingCode", "UTF-8"),
        el("cbc:Description", {}, cdata(xml)),
      ),
    );
  const signatureSlot = el("ext:ExtensionContent");
  const rootElement = el(
    "AttachedDocument",
    {},
    el("ext:UBLExtensions", {}, el("ext:UBLExtension", {}, signatureSlot)),
    text("cbc:UBLVersionID", "UBL 2.1"),
    text("cbc:CustomizationID", "Documentos adjuntos"),
    text("cbc:ProfileID", "Factura Electrónica de Venta"),
    text("cbc:ProfileExecutionID", facts.environment === "prd" ? "1" : "2"),
    text("cbc:ID", facts.number),
    text("cbc:UUID", code, { schemeName: scheme }),
    text("cbc:IssueDate", response.issueDate),
    text("cbc:IssueTime", response.issueTime),
    text("cbc:DocumentType", "Contenedor de Factura Electrónica"),
    text("cbc:ParentDocumentID", facts.number),
    el("cac:SenderParty", {}, supplierTaxScheme(facts.issuer)),
    el("cac:ReceiverParty", {}, customerTaxScheme(facts.buyer)),
    embedded(document),
    el(
      "cac:ParentDocumentLineReference",
      {},
      text("cbc:LineID", "1"),
      el(
        "cac:DocumentReference",
        {},
        text("cbc:ID", facts.number),
        text("cbc:UUID", code, { schemeName: scheme }),
        text("cbc:IssueDate", response.issueDate),
        text("cbc:DocumentType", "ApplicationResponse"),
        embedded(applicationResponse),
        el(
          "cac:ResultOfVerification",
          {},
          text("cbc:ValidatorID", DIAN_VALIDATOR),
          text("cbc:ValidationResultCode", response.responseCode),
          text("cbc:ValidationDate", response.issueDate),
          text("cbc:ValidationTime", response.issueTime),
        ),
      ),
    ),
  );
  return signDocument({ root: rootElement, namespaces: NAMESPACES, signatureSlot }, signer, {
    // distinct from the embedded document's signature Ids (`xmldsig-<reference>`)
    id: `${facts.reference.toLowerCase()}-ad`,
    signingTime: options.signingTime ?? signingInstant(response.issueDate, response.issueTime),
  });
}
