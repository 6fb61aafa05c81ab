/**
 * The six operations the stand-in serves, each answering with DIAN's codes and words ([D]
 * `WcfDianCustomerServices.svc.cs` for the checks before the work, `DianPAServices.cs` for the work;
 * [F] the recorded answers). Each returns the SOAP envelope to send.
 */
import { randomUUID } from "node:crypto";
import type { Signer } from "../../shared/providers/dian/certificate.ts";
import {
  type DianResponse,
  dianResponseEnvelope,
  emptyDianResponse,
  eventResponseEnvelope,
  type NumberRange,
  numberingRangeEnvelope,
  statusZipEnvelope,
  uploadEnvelope,
} from "./answers.ts";
import { fromBase64 } from "./base64.ts";
import type { SoapRequest } from "./envelope.ts";
import type { RuleSettings } from "./finding.ts";
import { type DianRegistry, findSoftware, mayActFor } from "./registry.ts";
import type { DianStore } from "./store.ts";
import { setStatusResponse, type TestSetRequirement, tallyDocument } from "./test-sets.ts";
import { validateDocument } from "./validate.ts";
import { readZip } from "./zip.ts";

export interface OperationContext {
  registry: DianRegistry;
  store: DianStore;
  signer: () => Promise<Signer>;
  /** The NIT DIAN read from the client certificate ("" when it found none). */
  senderNit: string;
  now: Date;
  /** How the content rules judge: the knobs' `today` and product tolerance. */
  rules: RuleSettings;
  /** Status calls (GetStatusZip, or GetStatus of one of its documents) a new batch stays in process; `hold` keeps it until released. */
  pendingPolls: number;
  holdBatches: boolean;
  /** The knob `testSetRequired`: every set's numbers, over its own (null: each set's own). */
  testSetRequired?: TestSetRequirement | null;
}

/** At most this many documents in one ZIP with a testSetId ([D] ProcessBatchDocumentsZipFile: 50, 500 without). */
export const MAX_TEST_SET_BATCH = 50;

const NO_NIT = "NIT de la empresa no informado en el certificado.";
const failed = (fields: Partial<DianResponse>): DianResponse => ({ ...emptyDianResponse(), ...fields });

/** The ZIP's XMLs, or the 89 that refuses it ([D] SendBillSync / UploadDocumentSync). */
function openZip(contentFile: string | undefined, fileName: string, single: boolean) {
  const bytes = contentFile ? fromBase64(contentFile) : null;
  if (!bytes || bytes.length === 0)
    return { refusal: failed({ StatusCode: "89", StatusDescription: "Archivo no enviado." }) };
  const zip = readZip(bytes);
  if (zip.kind === "not_zip") {
    return {
      refusal: failed({
        StatusCode: "89",
        StatusDescription: "MIMEType del archivo inválido (application/octet-stream).",
      }),
    };
  }
  if (zip.kind !== "ok" || zip.xmls.length === 0) {
    const message =
      zip.kind === "too_large"
        ? `Error descomprimiendo el archivo ZIP: ${zip.why}.`
        : "Error descomprimiendo el archivo ZIP: No fue encontrado ningun documento XML válido.";
    return { refusal: failed({ StatusCode: "89", StatusDescription: message, XmlFileName: fileName }) };
  }
  if (single && zip.xmls.length > 1) {
    const message =
      "Encontrados mas de un XML descomprimiendo el archivo ZIP: Se debe enviar solo un fichero XML.";
    return { refusal: failed({ StatusCode: "89", StatusMessage: message, XmlFileName: fileName }) };
  }
  return { xmls: zip.xmls };
}

export async function sendBillSync(request: SoapRequest, context: OperationContext): Promise<string> {
  const fileName = request.params.fileName ?? "";
  const answer = (r: DianResponse) => dianResponseEnvelope("SendBillSync", r, context.now);
  if (context.senderNit === "") return answer(failed({ StatusCode: "89", StatusDescription: NO_NIT }));
  const opened = openZip(request.params.contentFile, fileName, true);
  if (opened.refusal) return answer(opened.refusal);
  const [xml] = opened.xmls;
  return answer(await validateDocument(xml?.bytes ?? new Uint8Array(), xml?.name ?? "", fileName, context));
}

export async function sendTestSetAsync(request: SoapRequest, context: OperationContext): Promise<string> {
  const fileName = request.params.fileName ?? "";
  const testSetId = (request.params.testSetId ?? "").trim();
  const refuse = (message: string) =>
    uploadEnvelope(
      null,
      [
        {
          DocumentKey: null,
          ProcessedMessage: message,
          SenderCode: null,
          Success: false,
          XmlFileName: fileName,
        },
      ],
      context.now,
    );
  if (context.registry.environment === "produccion") return refuse("Acción no disponible en producción.");
  if (testSetId === "") return refuse("Identificador del set de pruebas es obligatorio.");
  if (context.senderNit === "") return refuse(NO_NIT);
  // not DIAN's words: DIAN's batch would fail later; the stand-in says so at once
  const testSet = context.registry.testSets.find((s) => s.id === testSetId);
  if (!testSet) return refuse(`Set de pruebas con identificador ${testSetId} no existe.`);
  const opened = openZip(request.params.contentFile, fileName, false);
  if (opened.refusal) {
    const message = opened.refusal.StatusDescription ?? opened.refusal.StatusMessage ?? "";
    return refuse(message.replace("válido", "valido"));
  }
  if (opened.xmls.length > MAX_TEST_SET_BATCH) {
    // not DIAN's words: DIAN's batch would fail later ([D] ProcessBatchDocumentsZipFile)
    return refuse(`El archivo ZIP de un set de pruebas admite máximo ${MAX_TEST_SET_BATCH} documentos.`);
  }
  // A closed set validates nothing more: a later batch of it answers the set's status (./test-sets.ts).
  const tally = context.store.tally(testSetId);
  const required = context.testSetRequired ?? testSet.required ?? null;
  const responses: DianResponse[] = [];
  if (tally.status !== "en_proceso") {
    responses.push(setStatusResponse(testSetId, tally.status));
  } else {
    for (const xml of opened.xmls) {
      let typeCode: string | undefined;
      const response = await validateDocument(xml.bytes, xml.name, fileName, context, true, (doc) => {
        typeCode = doc.typeCode;
      });
      responses.push(response);
      tallyDocument(tally, required, { typeCode, key: response.XmlDocumentKey, accepted: response.IsValid });
    }
  }
  const zipKey = randomUUID();
  context.store.addBatch({
    zipKey,
    testSetId,
    fileName,
    pollsLeft: context.pendingPolls,
    held: context.holdBatches,
    responses,
  });
  return uploadEnvelope(zipKey, null, context.now);
}

/** [D] CheckTrackIdFormat: a GUID for GetStatusZip, at least 20 characters for both. */
function trackIdProblem(trackId: string, guid: boolean): string | null {
  if (guid && !/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(trackId)) {
    return "Formato trackId inválido.";
  }
  if (trackId === "") return "TrackId es nulo o vacío.";
  if (trackId.length < 20) return "TrackId inválido (Length).";
  return null;
}

const UNKNOWN = "TrackId no existe en los registros de la DIAN.";

export function getStatusZip(request: SoapRequest, context: OperationContext): string {
  const trackId = (request.params.trackId ?? "").trim().toLowerCase();
  const problem = trackIdProblem(trackId, true);
  if (problem)
    return statusZipEnvelope([failed({ StatusCode: "89", StatusDescription: problem })], context.now);
  const batch = context.store.batches.get(trackId);
  if (!batch)
    return statusZipEnvelope([failed({ StatusCode: "66", StatusDescription: UNKNOWN })], context.now);
  if (batch.held || batch.pollsLeft > 0) {
    if (!batch.held) batch.pollsLeft--;
    // [F] GetStatusZip_pending.xml: an empty StatusCode, the rest nil
    return statusZipEnvelope(
      [failed({ StatusCode: "", StatusDescription: "Batch en proceso de validación." })],
      context.now,
    );
  }
  return statusZipEnvelope(batch.responses, context.now);
}

export function getStatus(request: SoapRequest, context: OperationContext): string {
  const trackId = (request.params.trackId ?? "").trim().toLowerCase();
  const answer = (r: DianResponse) => dianResponseEnvelope("GetStatus", r, context.now);
  const problem = trackIdProblem(trackId, false);
  if (problem) return answer(failed({ StatusCode: "89", StatusDescription: problem }));
  if (context.store.pollDocument(trackId)) {
    return answer(failed({ ErrorMessage: [], StatusCode: "98", StatusDescription: "En Proceso" }));
  }
  const stored = context.store.find(trackId);
  if (!stored) return answer(failed({ ErrorMessage: [], StatusCode: "66", StatusDescription: UNKNOWN }));
  return answer(stored.response);
}

/** [D] DianPAServices.GetNumberingRange, its checks in its order. */
export function getNumberingRange(request: SoapRequest, context: OperationContext): string {
  const { accountCode = "", accountCodeT = "", softwareCode = "" } = request.params;
  const answer = (code: string, description: string, ranges: NumberRange[] | null = null) =>
    numberingRangeEnvelope(code, description, ranges, context.now);
  const nit = context.senderNit;
  if (nit === "") return answer("89", NO_NIT);
  if (!mayActFor(context.registry, nit, accountCode)) {
    return answer(
      "401",
      `NIT: ${nit} no autorizado para consultar rangos de numeración del NIT: ${accountCode}`,
    );
  }
  const today = new Date(context.now.getTime() - 5 * 3_600_000).toISOString().slice(0, 10);
  const issuer = context.registry.issuers.find((i) => i.nit === accountCode);
  const current = (issuer?.ranges ?? []).filter((r) => r.validFrom <= today && today <= r.validTo);
  if (current.length === 0)
    return answer("301", `No fue encontrado ningún rango de numeración para el NIT: ${accountCode}.`);
  const ofSoftware = current.filter((r) => r.softwareId === softwareCode);
  if (ofSoftware.length === 0)
    return answer("302", `No registra prefijos asociados al código de software: ${softwareCode}.`);
  const owned = ofSoftware.filter(
    (r) => findSoftware(context.registry, r.softwareId)?.ownerNit === accountCodeT,
  );
  if (owned.length === 0)
    return answer("303", `El código del software no corresponde al NIT: ${accountCodeT}.`);
  return answer(
    "100",
    "Acción completada OK.",
    owned.map((r) => ({
      ResolutionNumber: r.resolutionNumber,
      ResolutionDate: r.resolutionDate,
      Prefix: r.prefix,
      FromNumber: r.from,
      ToNumber: r.to,
      ValidDateFrom: r.validFrom,
      ValidDateTo: r.validTo,
      TechnicalKey: r.technicalKey,
    })),
  );
}

/**
 * [D] `WcfDianCustomerServices.GetXmlByDocumentKey` (CheckTrackIdFormat first: 89) and
 * `DianPAServices.GetXmlByDocumentKey`, its checks in its order: 404 unless DIAN validated the
 * document and holds its XML (a batch still in process has no validated document yet); 401 unless
 * the certificate's NIT is the issuer's or the buyer's, or one either authorized (DIAN: the NIT
 * contains theirs, or GetAuthorization); then 100 with the XML's bytes. DIAN's 206 (its copy has no
 * readable issuer or buyer number) cannot happen here: only parsed documents are kept.
 */
export function getXmlByDocumentKey(request: SoapRequest, context: OperationContext): string {
  const trackId = (request.params.trackId ?? "").trim().toLowerCase();
  const answer = (code: string, message: string, xmlBase64: string | null = null) =>
    eventResponseEnvelope(code, message, xmlBase64, context.now);
  const problem = trackIdProblem(trackId, false);
  if (problem) return answer("89", problem);
  const copy = context.store.batchInProcess(trackId) ? null : context.store.find(trackId)?.copy;
  if (!copy) return answer("404", `Xml con CUFE: '${trackId}' no encontrado.`);
  const nit = context.senderNit;
  const { senderCode, receiverCode } = copy;
  if (!mayActFor(context.registry, nit, senderCode) && !mayActFor(context.registry, nit, receiverCode)) {
    return answer(
      "401",
      `NIT: ${nit} del certificado no autorizado para consultar xmls de emisor con NIT: ${senderCode} y receptor con NIT: ${receiverCode}`,
    );
  }
  return answer("100", "Accion completada OK", copy.xmlBase64);
}
