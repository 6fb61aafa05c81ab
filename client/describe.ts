/**
 * Sentences for people: `describe(code, "es")` is what a web app shows a Colombian user for an
 * answer's `code` or an EinvoicingError's, in Spanish (the default) or English. The API's codes'
 * sentences are generated from the service's one list (./messages.ts); the client's own codes'
 * are here. A code this version does not know (a newer server's) gets a general sentence.
 */
import type { ClientErrorCode, EinvoicingErrorCode } from "./error.ts";
import { ERROR_MESSAGES, RESULT_MESSAGES, type ResultCode, type Sentences } from "./messages.ts";

export type Language = "es" | "en";
/** Every code `describe` has a sentence for. */
export type DescribedCode = ResultCode | EinvoicingErrorCode;

export const CLIENT_MESSAGES = {
  network_error: {
    es: "No hay conexión con el servicio. Revise su conexión a internet e inténtelo de nuevo.",
    en: "The service could not be reached. Check your internet connection and try again.",
  },
  unexpected_response: {
    es: "El servicio respondió de forma inesperada. Inténtelo de nuevo; si se repite, contacte a soporte.",
    en: "The service answered unexpectedly. Try again; if it happens again, contact support.",
  },
  download_failed: {
    es: "No se pudo descargar el archivo. Inténtelo de nuevo.",
    en: "The file could not be downloaded. Try again.",
  },
  not_accepted: {
    es: "El XML está disponible solo cuando la DIAN ha aceptado el documento.",
    en: "The XML is available only once DIAN has accepted the document.",
  },
} as const satisfies Record<ClientErrorCode, Sentences>;

const UNKNOWN: Sentences = {
  es: "Ocurrió algo que esta versión de la aplicación no conoce. Inténtelo de nuevo o contacte a soporte.",
  en: "Something happened that this version of the app does not know. Try again or contact support.",
};

/**
 * The sentence for a result code (`accepted`, `rejected`…), an error code (`forbidden`…) or a
 * client code (`network_error`…). `not_found` is both a result and an error code: one sentence
 * serves both.
 */
export function describe(code: DescribedCode | (string & {}), language: Language = "es"): string {
  // own keys only: `toString` or `__proto__` is a code this version does not know, not a property
  const tables: Record<string, Sentences>[] = [RESULT_MESSAGES, ERROR_MESSAGES, CLIENT_MESSAGES];
  const found = tables.find((table) => Object.hasOwn(table, code))?.[code] ?? UNKNOWN;
  // plain JavaScript may pass any language: Spanish, the default, unless it is English
  return language === "en" ? found.en : found.es;
}
