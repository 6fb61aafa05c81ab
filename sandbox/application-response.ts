/**
 * The ApplicationResponse a stand-in "DIAN" signs for a document it validated (code 02) or rejected
 * (04): the protocol sandbox's for what it accepts (`sandboxApplicationResponse`, signed with its
 * "DIAN" certificate, ./signers.ts) and the DIAN stand-in's for every document it judges
 * (./dian/validate.ts). One builder, so both answer DIAN's one shape.
 *
 * Shaped as DIAN's own ([F] the ApplicationResponse DIAN returned in Odoo 19's l10n_co_dian
 * tests/attachments/attached_document.xml, and the one in a Siigo AttachedDocument a buyer
 * received; [D] Utils/XmlUtils.cs): `sts:DianExtensions` with DIAN as software provider and
 * authorising party, the signature in the second `ext:UBLExtension`; CustomizationID 1, ProfileID
 * "DIAN 2.1", the response's own number and CUDE, the validation's date and time (Colombia,
 * -05:00); DIAN as SenderParty and the issuer as ReceiverParty (name, NIT with its check digit,
 * IVA); DocumentResponse with ResponseCode 02 "Documento validado por la DIAN" (or 04 "Documento
 * rechazado por la DIAN"), the document's number and CUFE/CUDE, and one LineResponse per rule: DIAN
 * writes a first line `0000` / `0`, then each rule or notification. What is the stand-in's own: its
 * number, CUDE, software id and security code are digests of what it answers, and the signature is
 * ours (shared/providers/dian/signature.ts), not DIAN's.
 */

import { colombianTime } from "../shared/co/time.ts";
import { hexDigest } from "../shared/crypto/digest.ts";
import type { DocumentOutcome, SubmitDocumentRequest } from "../shared/ports/providers/protocol.ts";
import type { Signer } from "../shared/providers/dian/certificate.ts";
import { DIAN_NIT, invoiceSource } from "../shared/providers/dian/extensions.ts";
import { DIAN_AGENCY, text } from "../shared/providers/dian/parties.ts";
import { signDocument } from "../shared/providers/dian/signature.ts";
import { STS_NAMESPACE } from "../shared/providers/dian/ubl.ts";
import { el, type Namespaces } from "../shared/providers/dian/xml.ts";

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

export interface ApplicationResponseInput {
  environment: "uat" | "prd";
  /** The document answered: its kind, number and CUFE/CUDE. */
  document: { kind: "invoice" | "credit_note" | "debit_note"; number: string; key: string };
  /** The issuer, as the ReceiverParty. */
  issuer: { name: string; nit: string; checkDigit: string | undefined };
  /** ResponseCode 04 instead of 02. */
  rejected: boolean;
  /** The LineResponses after DIAN's first `0000` / `0`: each rule or notification. */
  lines: { code: string; message: string }[];
  /** The validation's instant. */
  at: Date;
  /** What the response's own number, CUDE and signature Ids are digested from: the same seed, the same bytes. */
  seed: string;
}

/** The signed ApplicationResponse: the bytes a real DIAN returns in `XmlBase64Bytes`. */
export async function signedApplicationResponse(
  input: ApplicationResponseInput,
  signer: Signer,
): Promise<Uint8Array> {
  const { document, issuer } = input;
  const own = await hexDigest("SHA-384", input.seed);
  const id = String(Number.parseInt(own.slice(0, 8), 16));
  const instant = colombianTime(input.at);
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
    text("cbc:ProfileExecutionID", input.environment === "prd" ? "1" : "2"),
    text("cbc:ID", id),
    text("cbc:UUID", own, { schemeName: "CUDE-SHA384" }),
    text("cbc:IssueDate", instant.slice(0, 10)),
    text("cbc:IssueTime", `${instant.slice(11, 19)}-05:00`),
    el("cac:SenderParty", {}, partyTaxScheme(DIAN_NAME, DIAN_NIT.nit, DIAN_NIT.checkDigit)),
    el("cac:ReceiverParty", {}, partyTaxScheme(issuer.name, issuer.nit, issuer.checkDigit)),
    el(
      "cac:DocumentResponse",
      {},
      el(
        "cac:Response",
        {},
        text("cbc:ResponseCode", input.rejected ? "04" : "02"),
        text(
          "cbc:Description",
          input.rejected ? "Documento rechazado por la DIAN" : "Documento validado por la DIAN",
        ),
      ),
      el(
        "cac:DocumentReference",
        {},
        text("cbc:ID", document.number),
        text("cbc:UUID", document.key.toLowerCase(), {
          schemeName: document.kind === "invoice" ? "CUFE-SHA384" : "CUDE-SHA384",
        }),
      ),
      lineResponse(1, "0000", "0"),
      ...input.lines.map((line, i) => lineResponse(i + 2, line.code, line.message)),
    ),
  );
  return signDocument({ root, namespaces: NAMESPACES, signatureSlot }, signer, {
    id: `dian-${own.slice(0, 32)}`,
    signingTime: instant,
  });
}

/**
 * The protocol sandbox's ApplicationResponse validating `doc`, accepted with `outcome`.
 * Deterministic for the same acceptance and signer.
 */
export function sandboxApplicationResponse(
  doc: SubmitDocumentRequest,
  outcome: DocumentOutcome,
  signer: Signer,
): Promise<Uint8Array> {
  const code = outcome.authority_code;
  if (outcome.status !== "accepted" || !code || !outcome.validated_at) {
    throw new TypeError("an ApplicationResponse validates only an accepted document");
  }
  const notices = (outcome.errors ?? []).filter((e) => e.kind === "notificacion");
  return signedApplicationResponse(
    {
      environment: doc.environment,
      document: { kind: doc.kind, number: doc.number, key: code },
      issuer: { name: doc.issuer.legal_name, nit: doc.issuer.nit, checkDigit: doc.issuer.check_digit },
      rejected: false,
      lines: notices.map((n) => ({ code: n.code, message: n.message })),
      at: new Date(outcome.validated_at),
      seed: `${outcome.provider_reference}|${code}|${outcome.validated_at}`,
    },
    signer,
  );
}
