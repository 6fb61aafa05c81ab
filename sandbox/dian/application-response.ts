/**
 * The ApplicationResponse "DIAN" signs for every document it validates or rejects, laid out as DIAN
 * builds it ([D] `Gosocket.Dian.Services/Utils/XmlUtils.cs`; [F] the ApplicationResponses inside
 * Odoo's GetStatus_invoice.xml and SendBillSync_duplicated.xml): DianExtensions with DIAN as software
 * provider, CustomizationID 1, ProfileID "DIAN 2.1", a random ID, a CUDE-SHA384 UUID, DIAN as
 * SenderParty and the issuer as ReceiverParty, and a DocumentResponse whose Response is 02
 * "Documento validado por la DIAN" or 04 "Documento rechazado por la DIAN", the DocumentReference
 * (number and CUFE/CUDE), a first LineResponse 0000, then one LineResponse per rule.
 *
 * Building an answer may reuse our own code (only checking what arrives must not): the tree is
 * written with shared/fiscal/co/dian/xml.ts and signed XAdES-EPES by signature.ts with the stand-in's
 * "DIAN" certificate, so xmlsec1 verifies it against the stand-in's DIAN CA.
 */
import { createHash, randomInt, randomUUID } from "node:crypto";
import type { Signer } from "../../shared/fiscal/co/dian/certificate.ts";
import { colombianTime, signDocument } from "../../shared/fiscal/co/dian/signature.ts";
import { el, type Namespaces, xmlSafe } from "../../shared/fiscal/co/dian/xml.ts";
import type { ReceivedDocument } from "./document.ts";
import { checkDigit, type RuleFinding } from "./rules.ts";

const NAMESPACES: Namespaces = {
  "": "urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2",
  cac: "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
  cbc: "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
  ext: "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2",
  sts: "dian:gov:co:facturaelectronica:Structures-2-1",
  ds: "http://www.w3.org/2000/09/xmldsig#",
  xades: "http://uri.etsi.org/01903/v1.3.2#",
};

const AGENCY = {
  schemeAgencyID: "195",
  schemeAgencyName: "CO, DIAN (Dirección de Impuestos y Aduanas Nacionales)",
};
const DIAN_NAME = "Unidad Especial Dirección de Impuestos y Aduanas Nacionales";
const t = (name: string, value: string, attributes: Record<string, string | undefined> = {}) =>
  el(name, attributes, xmlSafe(value));

const taxScheme = el("cac:TaxScheme", {}, t("cbc:ID", "01"), t("cbc:Name", "IVA"));

function party(name: string, nit: string) {
  return el(
    "cac:PartyTaxScheme",
    {},
    t("cbc:RegistrationName", name),
    t("cbc:CompanyID", nit, { schemeID: checkDigit(nit), schemeName: "31" }),
    taxScheme,
  );
}

function lineResponse(line: number, code: string, description: string) {
  return el(
    "cac:LineResponse",
    {},
    el("cac:LineReference", {}, t("cbc:LineID", String(line))),
    el("cac:Response", {}, t("cbc:ResponseCode", code), t("cbc:Description", description)),
  );
}

/** "La Factura electrónica SETP990000002, ha sido autorizada." ([F] StatusMessage). */
export function approvedMessage(doc: ReceivedDocument): string {
  return `La ${doc.kind === "invoice" ? "Factura electrónica" : "Nota Crédito electrónica"} ${doc.id}, ha sido autorizada.`;
}

/** Builds and signs the ApplicationResponse for `doc` with its `findings`; the bytes to base64. */
export async function applicationResponse(
  doc: ReceivedDocument,
  findings: RuleFinding[],
  signer: Signer,
  environment: "habilitacion" | "produccion",
  now: Date,
): Promise<Uint8Array> {
  const rejected = findings.some((f) => !f.notification);
  const [date = "", time = ""] = colombianTime(now).split("T");
  const lines =
    findings.length === 0
      ? [lineResponse(1, "0000", "0"), lineResponse(2, "0", approvedMessage(doc))]
      : [lineResponse(1, "0000", "0"), ...findings.map((f, i) => lineResponse(i + 2, f.code, f.message))];
  const signatureSlot = el("ext:ExtensionContent");
  const root = el(
    "ApplicationResponse",
    {},
    el(
      "ext:UBLExtensions",
      {},
      el(
        "ext:UBLExtension",
        {},
        el(
          "ext:ExtensionContent",
          {},
          el(
            "sts:DianExtensions",
            {},
            el(
              "sts:InvoiceSource",
              {},
              t("cbc:IdentificationCode", "CO", {
                listAgencyID: "6",
                listAgencyName: "United Nations Economic Commission for Europe",
                listSchemeURI: "urn:oasis:names:specification:ubl:codelist:gc:CountryIdentificationCode-2.1",
              }),
            ),
            el(
              "sts:SoftwareProvider",
              {},
              t("sts:ProviderID", "800197268", { schemeID: "4", schemeName: "31", ...AGENCY }),
              t("sts:SoftwareID", "...", AGENCY),
            ),
            t("sts:SoftwareSecurityCode", "...", AGENCY),
            el(
              "sts:AuthorizationProvider",
              {},
              t("sts:AuthorizationProviderID", "800197268", { schemeID: "4", schemeName: "31", ...AGENCY }),
            ),
          ),
        ),
      ),
      el("ext:UBLExtension", {}, signatureSlot),
    ),
    t("cbc:UBLVersionID", "UBL 2.1"),
    t("cbc:CustomizationID", "1"),
    t("cbc:ProfileID", "DIAN 2.1"),
    t("cbc:ProfileExecutionID", environment === "produccion" ? "1" : "2"),
    t("cbc:ID", String(randomInt(1, 99_999_999))),
    t("cbc:UUID", createHash("sha384").update(randomUUID()).digest("hex"), { schemeName: "CUDE-SHA384" }),
    t("cbc:IssueDate", date),
    t("cbc:IssueTime", `${time.slice(0, 8)}-05:00`),
    el("cac:SenderParty", {}, party(DIAN_NAME, "800197268")),
    el("cac:ReceiverParty", {}, party(doc.supplier.name, doc.supplier.id)),
    el(
      "cac:DocumentResponse",
      {},
      el(
        "cac:Response",
        {},
        t("cbc:ResponseCode", rejected ? "04" : "02"),
        t("cbc:Description", rejected ? "Documento rechazado por la DIAN" : "Documento validado por la DIAN"),
      ),
      el(
        "cac:DocumentReference",
        {},
        t("cbc:ID", doc.id),
        t("cbc:UUID", doc.uuid.toLowerCase(), { schemeName: "CUFE-SHA384" }),
      ),
      ...lines,
    ),
  );
  return signDocument({ root, namespaces: NAMESPACES, signatureSlot }, signer, {
    id: randomUUID(),
    signingTime: colombianTime(now),
  });
}
