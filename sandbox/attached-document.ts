/**
 * The AttachedDocument the sandbox serves for a document it accepted (GET
 * /documents/{reference}/attached-document): the UBL 2.1 "contenedor electrónico" a Colombian buyer
 * is owed, holding the document and the authority's ApplicationResponse.
 *
 * Layout followed: DIAN's Anexo técnico de Factura Electrónica de Venta v1.9 (Resolución 000165 de
 * 2023), its AttachedDocument ("Documento contenedor") and ApplicationResponse sections — header
 * (UBLVersionID "UBL 2.1", CustomizationID "Documentos adjuntos", ProfileExecutionID, ID, IssueDate,
 * IssueTime, DocumentType "Contenedor de Factura Electrónica", ParentDocumentID), SenderParty and
 * ReceiverParty as PartyTaxScheme, the signed document as the CDATA text of
 * Attachment/ExternalReference/Description, and ParentDocumentLineReference/DocumentReference
 * carrying the ApplicationResponse the same way plus ResultOfVerification (validator, code 02,
 * validation date and time). Cross-checked, not copied, against the AttachedDocument Odoo 19's
 * l10n_co_dian builds (addons/l10n_co_dian/tests/attachments/attached_document.xml), which also puts
 * the document's CUFE in the container's cbc:UUID. Everything here is a sandbox's: there is no XAdES
 * signature (ext:UBLExtensions is left out) and the ApplicationResponse is not DIAN's.
 */
import { hexDigest } from "../shared/crypto/digest.ts";
import type { DocumentOutcome, SubmitDocumentRequest } from "../shared/providers/protocol.ts";
import {
  buyerParty,
  codeScheme,
  issuerParty,
  NS,
  partyTaxScheme,
  profileExecutionId,
  ublDocument,
} from "./ubl-document.ts";
import { cdata, el, type Markup, xmlDocument } from "./xml.ts";

/** DIAN itself: the sender of every ApplicationResponse (NIT 800197268-4). */
const DIAN = {
  name: "Unidad Especial Dirección de Impuestos y Aduanas Nacionales",
  id: "800197268",
  idType: "31",
  checkDigit: "4",
};

/** ResponseCode / ValidationResultCode of a document the authority validated. */
const VALIDATED = "02";

/** The AttachedDocument of an accepted document, as UTF-8 text (deterministic: same inputs, same bytes). */
export async function buildAttachedDocument(
  doc: SubmitDocumentRequest,
  outcome: DocumentOutcome,
): Promise<string> {
  if (outcome.status !== "accepted" || !outcome.authority_code || !outcome.validated_at || !outcome.qr_text) {
    throw new TypeError("an AttachedDocument exists only for an accepted document");
  }
  const code = outcome.authority_code;
  const scheme = codeScheme(doc);
  const validated = colombianTime(outcome.validated_at);
  const document = xmlDocument(ublDocument(doc, code, outcome.qr_text));
  const response = xmlDocument(await applicationResponse(doc, outcome, validated));
  const embedded = (xml: string) =>
    el(
      "cac:Attachment",
      null,
      el(
        "cac:ExternalReference",
        null,
        el("cbc:MimeCode", null, "text/xml"),
        el("cbc:EncodingCode", null, "UTF-8"),
        el("cbc:Description", null, cdata(xml)),
      ),
    );

  return xmlDocument(
    el(
      "AttachedDocument",
      {
        xmlns: "urn:oasis:names:specification:ubl:schema:xsd:AttachedDocument-2",
        "xmlns:cac": NS.cac,
        "xmlns:cbc": NS.cbc,
        "xmlns:ext": NS.ext,
      },
      el("cbc:UBLVersionID", null, "UBL 2.1"),
      el("cbc:CustomizationID", null, "Documentos adjuntos"),
      el("cbc:ProfileID", null, "Factura Electrónica de Venta"),
      el("cbc:ProfileExecutionID", null, profileExecutionId(doc)),
      el("cbc:ID", null, doc.number),
      el("cbc:UUID", { schemeName: scheme }, code),
      el("cbc:IssueDate", null, validated.date),
      el("cbc:IssueTime", null, validated.time),
      el("cbc:DocumentType", null, "Contenedor de Factura Electrónica"),
      el("cbc:ParentDocumentID", null, doc.number),
      el("cac:SenderParty", null, partyTaxScheme(issuerParty(doc))),
      el("cac:ReceiverParty", null, partyTaxScheme(buyerParty(doc))),
      embedded(document),
      el(
        "cac:ParentDocumentLineReference",
        null,
        el("cbc:LineID", null, "1"),
        el(
          "cac:DocumentReference",
          null,
          el("cbc:ID", null, doc.number),
          el("cbc:UUID", { schemeName: scheme }, code),
          el("cbc:IssueDate", null, validated.date),
          el("cbc:DocumentType", null, "ApplicationResponse"),
          embedded(response),
          el(
            "cac:ResultOfVerification",
            null,
            el("cbc:ValidatorID", null, DIAN.name),
            el("cbc:ValidationResultCode", null, VALIDATED),
            el("cbc:ValidationDate", null, validated.date),
            el("cbc:ValidationTime", null, validated.time),
          ),
        ),
      ),
    ),
  );
}

/** The authority's acceptance: an ApplicationResponse from DIAN to the issuer about the document. */
async function applicationResponse(
  doc: SubmitDocumentRequest,
  outcome: DocumentOutcome,
  validated: { date: string; time: string },
): Promise<Markup> {
  const code = outcome.authority_code ?? "";
  // The response's own CUDE; the sandbox's is a digest of what identifies this acceptance.
  const own = await hexDigest("SHA-384", `${outcome.provider_reference}|${code}|${outcome.validated_at}`);
  return el(
    "ApplicationResponse",
    {
      xmlns: "urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2",
      "xmlns:cac": NS.cac,
      "xmlns:cbc": NS.cbc,
    },
    el("cbc:UBLVersionID", null, "UBL 2.1"),
    el("cbc:CustomizationID", null, "1"),
    el("cbc:ProfileID", null, "DIAN 2.1"),
    el("cbc:ProfileExecutionID", null, profileExecutionId(doc)),
    el("cbc:ID", null, outcome.provider_reference),
    el("cbc:UUID", { schemeName: "CUDE-SHA384" }, own),
    el("cbc:IssueDate", null, validated.date),
    el("cbc:IssueTime", null, validated.time),
    el("cac:SenderParty", null, partyTaxScheme({ ...DIAN })),
    el("cac:ReceiverParty", null, partyTaxScheme(issuerParty(doc))),
    el(
      "cac:DocumentResponse",
      null,
      el(
        "cac:Response",
        null,
        el("cbc:ResponseCode", null, VALIDATED),
        el("cbc:Description", null, outcome.message),
      ),
      el(
        "cac:DocumentReference",
        null,
        el("cbc:ID", null, doc.number),
        el("cbc:UUID", { schemeName: codeScheme(doc) }, code),
      ),
    ),
  );
}

/** An instant as Colombia's date and time (UTC-05:00, no daylight saving): "2026-11-20", "10:30:02-05:00". */
export function colombianTime(iso: string): { date: string; time: string } {
  const local = new Date(Date.parse(iso) - 5 * 3600_000).toISOString();
  return { date: local.slice(0, 10), time: `${local.slice(11, 19)}-05:00` };
}
