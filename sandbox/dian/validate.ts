/**
 * One document through DIAN's checks, in DIAN's order (brief §8; [D] `DianPAServices.UploadDocumentSync`):
 * parse (89 "Error al parsear xml." [F] SendBillSync_errors_nsmap.xml), schema (ZB01, 99 [F]
 * SendBillSync_errors.xml), may the certificate's NIT send for the issuer (89), duplicate (90 with
 * the earlier ApplicationResponse and key [F] SendBillSync_duplicated.xml), then the signature and
 * content rules, whose findings go into a signed ApplicationResponse (02 validated / 04 rejected) and
 * the DianResponse: 00 "Procesado Correctamente." when nothing rejects — notifications included —,
 * else 99 ([F] SendBillSync_warnings.xml, GetStatus_invoice.xml).
 */

import { toBase64 } from "../../shared/ports/providers/deliver.ts";
import type { Signer } from "../../shared/providers/dian/certificate.ts";
import { type DianResponse, emptyDianResponse } from "./answers.ts";
import { applicationResponse, approvedMessage } from "./application-response.ts";
import { type ReceivedDocument, readDocument } from "./document.ts";
import { referenceFindings } from "./references.ts";
import { type DianRegistry, mayActFor } from "./registry.ts";
import { contentFindings, type RuleSettings } from "./rules.ts";
import { schemaError } from "./schema.ts";
import type { DianStore, StoredDocument } from "./store.ts";
import { signatureFindings } from "./xades.ts";
import { parseXml, XmlReadError } from "./xml-read.ts";

export interface ValidationContext {
  registry: DianRegistry;
  store: DianStore;
  signer: () => Promise<Signer>;
  /** The NIT read from the client certificate. */
  senderNit: string;
  now: Date;
  /** How the content rules judge (the knobs' `today` and tolerance). */
  rules: RuleSettings;
}

/**
 * A duplicate in a test set batch, as GetStatusZip shows it: DIAN uploads a batch's documents before
 * validating them, and answers each with GetStatus(its own key) ([D] DianPAServices.GetStatusZip,
 * GetStatus): the earlier acceptance (00) when the key is the one accepted before — its
 * ApplicationResponse exists —, else 99 with ValidateDocumentDuplicity's failed rule 90, the
 * document's own key as XmlDocumentKey and the earlier document's in StatusDescription.
 */
function batchDuplicate(
  doc: ReceivedDocument,
  earlier: StoredDocument,
  response: DianResponse,
): DianResponse {
  const key = doc.uuid.toLowerCase();
  if (earlier.key === key) return earlier.response;
  return {
    ...response,
    ErrorMessage: ["Regla: 90, Rechazo: Documento procesado anteriormente."],
    StatusCode: "99",
    StatusDescription: `Documento ${doc.id} procesado anteriormente. CUFE ${earlier.key} `,
    StatusMessage: MANDATORY,
    XmlDocumentKey: key,
  };
}

const MANDATORY = "Documento con errores en campos mandatorios.";
const VALIDATION_ERRORS = "Validación contiene errores en campos mandatorios.";

/** Validates one XML of a ZIP named `entryName`; records the outcome in the store unless refused early. */
export async function validateDocument(
  bytes: Uint8Array,
  entryName: string,
  zipName: string,
  context: ValidationContext,
  batch = false,
  /** Told the document DIAN read, when it could read one (a test set's tally counts it by type). */
  read?: (doc: ReceivedDocument) => void,
): Promise<DianResponse> {
  const xmlFileName =
    entryName
      .split("/")
      .pop()
      ?.replace(/\.xml$/i, "") ?? entryName;
  const response = { ...emptyDianResponse(), ErrorMessage: [], XmlFileName: xmlFileName } as DianResponse;
  const raw = new TextDecoder().decode(bytes);
  let parsed: ReturnType<typeof parseXml>;
  try {
    parsed = parseXml(raw);
  } catch (error) {
    const reason = error instanceof XmlReadError ? error.message : "XML inválido.";
    return {
      ...response,
      StatusCode: "89",
      StatusDescription: `Error al parsear xml. ${reason}`,
      XmlFileName: zipName,
    };
  }
  const doc = readDocument(parsed.documentElement as NonNullable<typeof parsed.documentElement>);
  const invalidSchema = doc
    ? schemaError(raw)
    : "The root element is not an Invoice, a CreditNote or a DebitNote.";
  if (!doc || invalidSchema) {
    return {
      ...response,
      ErrorMessage: ["Regla: ZB01, Rechazo: Fallo en el esquema XML del archivo"],
      StatusCode: "99",
      StatusDescription: MANDATORY,
      StatusMessage: `${VALIDATION_ERRORS} ${invalidSchema}`,
    };
  }
  read?.(doc);
  const { registry, store } = context;
  if (!mayActFor(registry, context.senderNit, doc.supplier.id)) {
    return {
      ...response,
      StatusCode: "89",
      StatusDescription: `NIT ${context.senderNit} no autorizado a enviar documentos para emisor con NIT ${doc.supplier.id}.`,
      XmlFileName: zipName,
    };
  }
  const earlier = store.acceptedDuplicate(doc);
  if (earlier && batch) {
    const answered = batchDuplicate(doc, earlier, response);
    if (answered !== earlier.response) store.record(doc, answered);
    return answered;
  }
  if (earlier) {
    return {
      ...response,
      ErrorMessage: ["Regla: 90, Rechazo: Documento procesado anteriormente."],
      StatusCode: "99",
      StatusDescription: VALIDATION_ERRORS,
      StatusMessage: MANDATORY,
      XmlBase64Bytes: earlier.response.XmlBase64Bytes,
      XmlDocumentKey: earlier.key,
      XmlFileName: earlier.response.XmlFileName,
    };
  }

  const findings = [
    ...signatureFindings(parsed, raw, registry, context.now),
    ...contentFindings(doc, registry, context.rules),
    ...referenceFindings(doc, store),
  ];
  const rejections = findings.filter((f) => !f.notification);
  const notifications = findings.filter((f) => f.notification);
  const ar = await applicationResponse(
    doc,
    findings,
    await context.signer(),
    registry.environment,
    context.now,
  );
  const valid = rejections.length === 0;
  const answered: DianResponse = {
    ...response,
    ErrorMessage: [
      ...rejections.map((f) => `Regla: ${f.code}, Rechazo: ${f.message}`),
      ...notifications.map((f) => `Regla: ${f.code}, Notificación: ${f.message}`),
    ],
    IsValid: valid,
    StatusCode: valid ? "00" : "99",
    StatusDescription: valid ? "Procesado Correctamente." : VALIDATION_ERRORS,
    StatusMessage: valid ? approvedMessage(doc) : MANDATORY,
    XmlBase64Bytes: toBase64(ar),
    XmlDocumentKey: doc.uuid.toLowerCase(),
  };
  // the bytes as received: what GetXmlByDocumentKey hands back (kept only when accepted)
  store.record(doc, answered, bytes);
  return answered;
}
