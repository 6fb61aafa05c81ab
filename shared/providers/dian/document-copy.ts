/**
 * What GetXmlByDocumentKey's answer means: DIAN's own copy of a signed document, the one the buyer's
 * AttachedDocument must carry (./transmission.ts). DIAN keeps the XML it validated and answers it
 * for a CUFE/CUDE; a document rebuilt from our records would carry today's certificate, technical
 * key or PIN instead of those DIAN validated.
 *
 * Codes and texts, [D] `WcfDianCustomerServices.svc.cs` GetXmlByDocumentKey and
 * `DianPAServices.GetXmlByDocumentKey` (wscuellar/DIAN@b428fe4):
 * - `100` "Accion completada OK", with `XmlBytesBase64` = the stored XML's bytes;
 * - `404` "Xml con CUFE: '<key>' no encontrado." — no document meta, no validated document (DIAN
 *   records one only for a document it accepted, `DianPAServices.UploadDocumentSync`), another key,
 *   or no XML in its storage;
 * - `401` the certificate's NIT is neither the issuer's nor the buyer's, nor authorized by either;
 * - `206` DIAN could not read the issuer's or buyer's number from its copy;
 * - `89` a track id empty or under 20 characters (`CheckTrackIdFormat`);
 * - `500` "Ha ocurrido un error. Por favor inténtentelo de nuevo." (any exception).
 *
 * Our words are English; DIAN's stay DIAN's (`authorityMessage`, or an error's `providerMessage`).
 */
import { ProviderRejectedError, ProviderUnauthorizedError } from "../../ports/providers/errors.ts";
import type { EventResponse } from "./answers.ts";
import { dianError, malformedAnswer, quote } from "./failures.ts";
import type { ExpectedDocument } from "./outcome.ts";

export type DocumentCopy =
  /** DIAN's copy: the XML exactly as DIAN holds it. */
  | { found: true; xml: Uint8Array }
  /** DIAN holds no validated document with this CUFE/CUDE (404). */
  | { found: false; message: string; authorityMessage: string };

const OPERATION = "GetXmlByDocumentKey";
const base = { service: "adapter-tax" as const, operation: "attached_document" as const };

/**
 * The copy `answer` gives of the document `expected` names, or that DIAN has none. Throws a
 * ProviderError for any other answer: the certificate may not read it (401, unauthorized), DIAN's
 * service failed (500, unavailable), DIAN refused the query (89, 206) or a code we do not know.
 */
export function documentCopy(answer: EventResponse, expected: ExpectedDocument): DocumentCopy {
  const words = quote(answer.message ?? "");
  switch (answer.code) {
    case "100":
      if (!answer.xml || answer.xml.byteLength === 0) {
        throw malformedAnswer(OPERATION, "code 100 without the document's XML");
      }
      return { found: true, xml: answer.xml };
    case "404":
      return {
        found: false,
        message: `DIAN holds no validated document with the CUFE/CUDE ${expected.documentKey} (404).`,
        authorityMessage: words,
      };
    case "401":
      throw new ProviderUnauthorizedError(
        "DIAN says the company's certificate may not read this document (401): the certificate must be the issuer's, or of a provider the issuer authorized in DIAN's portal.",
        { ...base, maybeProcessed: false, providerCode: "401", providerMessage: words },
      );
    case "500":
      throw dianError(OPERATION, {
        type: "status",
        statusCode: "500",
        description: answer.message ?? "",
        unavailable: true,
      });
    case "89":
    case "206":
      throw new ProviderRejectedError(
        `DIAN refused to hand over its copy of the document (code ${answer.code}).`,
        { ...base, maybeProcessed: false, providerCode: answer.code, providerMessage: words },
      );
    default:
      throw malformedAnswer(
        OPERATION,
        `code ${answer.code.replace(/[^0-9A-Za-z]/g, "").slice(0, 10)}, which this service does not know`,
      );
  }
}
