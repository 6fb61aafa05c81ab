/**
 * The ApplicationResponse the sandbox answers as a stand-in "DIAN" for a document it accepted:
 * DIAN's validation of it, signed XAdES-EPES with the sandbox's "DIAN" certificate (./signers.ts).
 *
 * Shaped as DIAN's own ([F] the ApplicationResponse DIAN returned in Odoo 19's l10n_co_dian
 * tests/attachments/attached_document.xml, and the one in a Siigo AttachedDocument a buyer
 * received; [D] Utils/XmlUtils.cs): `sts:DianExtensions` with DIAN as software provider and
 * authorising party, the signature in the second `ext:UBLExtension`; CustomizationID 1, ProfileID
 * "DIAN 2.1", the response's own number and CUDE, the validation's date and time (Colombia,
 * -05:00); DIAN as SenderParty and the issuer as ReceiverParty (name, NIT with its check digit,
 * IVA); DocumentResponse with ResponseCode 02 "Documento validado por la DIAN", the document's
 * number and CUFE/CUDE, and one LineResponse per rule: DIAN writes a first line `0000` / `0`, then
 * each notification. What is the sandbox's own: its number, CUDE, software id and security code
 * are digests of the acceptance, and the signature is ours (./signature.ts), not DIAN's.
 */
import { hexDigest } from "../shared/crypto/digest.ts";
import type { Signer } from "../shared/fiscal/co/dian/certificate.ts";
import { DIAN_NIT, invoiceSource } from "../shared/fiscal/co/dian/extensions.ts";
import { DIAN_AGENCY, text } from "../shared/fiscal/co/dian/parties.ts";
import { colombianTime, signDocument } from "../shared/fiscal/co/dian/signature.ts";
import { STS_NAMESPACE } from "../shared/fiscal/co/dian/ubl.ts";
import { el, type Namespaces } from "../shared/fiscal/co/dian/xml.ts";
import type { DocumentOutcome, SubmitDocumentRequest } from "../shared/providers/protocol.ts";

const NAMESPACES: Namespaces = {
  "": "urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2",
  cac: "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
  cbc: "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
  ds: "http://www.w3.org/2000/09/xmldsig#",
  ext: "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2",
  sts: STS_NAMESPACE.invoice,
  xades: "http://uri.etsi.org/01903/v1.3.2#",
};

const DIAN_NAME = "Unidad Especial Dirección de Impuestos y Aduanas Nacionales";
/** The stand-in's software id (DIAN's own is not published; Odoo's recorded answer elides it). */
const DIAN_SOFTWARE_ID = "5a4d1a2b-0000-4000-8000-00000000d1a7";

/** A party as an ApplicationResponse names it: name, NIT with its check digit, IVA. */
function partyTaxScheme(name: string, nit: string, checkDigit: string | undefined) {
  return el(
    "cac:PartyTaxScheme",
    {},
    text("cbc:RegistrationName", name),
    text("cbc:CompanyID", nit, { schemeID: checkDigit, schemeName: "31" }),
    el("cac:TaxScheme", {}, text("cbc:ID", "01"), text("cbc:Name", "IVA")),
  );
}

function lineResponse(line: number, code: string, description: string) {
  return el(
    "cac:LineResponse",
    {},
    el("cac:LineReference", {}, text("cbc:LineID", String(line))),
    el("cac:Response", {}, text("cbc:ResponseCode", code), text("cbc:Description", description)),
  );
}

/** DIAN's extension block of its own answers: DIAN is the software provider and the authority. */
async function dianExtensions(responseId: string) {
  const softwareId = DIAN_SOFTWARE_ID;
  const dian = { ...DIAN_AGENCY, schemeID: DIAN_NIT.checkDigit, schemeName: "31" };
  return el(
    "sts:DianExtensions",
    {},
    invoiceSource(),
    el(
      "sts:SoftwareProvider",
      {},
      text("sts:ProviderID", DIAN_NIT.nit, dian),
      text("sts:SoftwareID", softwareId, { ...DIAN_AGENCY }),
    ),
    text("sts:SoftwareSecurityCode", await hexDigest("SHA-384", `${softwareId}${responseId}`), {
      ...DIAN_AGENCY,
    }),
    el("sts:AuthorizationProvider", {}, text("sts:AuthorizationProviderID", DIAN_NIT.nit, dian)),
  );
}

/**
 * The signed ApplicationResponse validating `doc`, accepted with `outcome`: the bytes a real DIAN
 * returns in `XmlBase64Bytes`. Deterministic for the same acceptance and signer.
 */
export async function sandboxApplicationResponse(
  doc: SubmitDocumentRequest,
  outcome: DocumentOutcome,
  signer: Signer,
): Promise<Uint8Array> {
  const code = outcome.authority_code;
  if (outcome.status !== "accepted" || !code || !outcome.validated_at) {
    throw new TypeError("an ApplicationResponse validates only an accepted document");
  }
  const own = await hexDigest("SHA-384", `${outcome.provider_reference}|${code}|${outcome.validated_at}`);
  const id = String(Number.parseInt(own.slice(0, 8), 16));
  const instant = colombianTime(new Date(outcome.validated_at));
  const notices = (outcome.errors ?? []).filter((e) => e.kind === "notificacion");
  const signatureSlot = el("ext:ExtensionContent");
  const root = el(
    "ApplicationResponse",
    {},
    el(
      "ext:UBLExtensions",
      {},
      el("ext:UBLExtension", {}, el("ext:ExtensionContent", {}, await dianExtensions(id))),
      el("ext:UBLExtension", {}, signatureSlot),
    ),
    text("cbc:UBLVersionID", "UBL 2.1"),
    text("cbc:CustomizationID", "1"),
    text("cbc:ProfileID", "DIAN 2.1"),
    text("cbc:ProfileExecutionID", doc.environment === "prd" ? "1" : "2"),
    text("cbc:ID", id),
    text("cbc:UUID", own, { schemeName: "CUDE-SHA384" }),
    text("cbc:IssueDate", instant.slice(0, 10)),
    text("cbc:IssueTime", `${instant.slice(11, 19)}-05:00`),
    el("cac:SenderParty", {}, partyTaxScheme(DIAN_NAME, DIAN_NIT.nit, DIAN_NIT.checkDigit)),
    el(
      "cac:ReceiverParty",
      {},
      partyTaxScheme(doc.issuer.legal_name, doc.issuer.nit, doc.issuer.check_digit),
    ),
    el(
      "cac:DocumentResponse",
      {},
      el(
        "cac:Response",
        {},
        text("cbc:ResponseCode", "02"),
        text("cbc:Description", "Documento validado por la DIAN"),
      ),
      el(
        "cac:DocumentReference",
        {},
        text("cbc:ID", doc.number),
        text("cbc:UUID", code, { schemeName: doc.kind === "invoice" ? "CUFE-SHA384" : "CUDE-SHA384" }),
      ),
      lineResponse(1, "0000", "0"),
      ...notices.map((notice, i) => lineResponse(i + 2, notice.code, notice.message)),
    ),
  );
  return signDocument({ root, namespaces: NAMESPACES, signatureSlot }, signer, {
    id: `dian-${own.slice(0, 32)}`,
    signingTime: instant,
  });
}
