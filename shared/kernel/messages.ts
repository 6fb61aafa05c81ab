/**
 * A sentence for people, in Spanish and in English, for every result code (./result-codes.ts) and
 * every error code (./errors.ts, `ERROR_STATUS`): what a web app shows a Colombian user instead of
 * the code, so it need not write its own table. The API's own `message` stays English and for
 * developers; these are for the person in front of the screen, written to say what happened and
 * what they can do. The types below make a code without its sentences a compile error; `npm run
 * openapi` writes them into the client (client/messages.ts), and a test fails when that is stale.
 */
import type { ErrorCode } from "./errors.ts";
import type { ResultCode } from "./result-codes.ts";

export interface Sentences {
  es: string;
  en: string;
}

export const RESULT_MESSAGES = {
  accepted: {
    es: "La DIAN aceptó el documento.",
    en: "The tax authority (DIAN) accepted the document.",
  },
  rejected: {
    es: "La DIAN rechazó el documento; revise las reglas que incumple. Una factura se corrige y se envía de nuevo; una nota no se puede editar: emita una nota nueva.",
    en: "DIAN rejected the document; see the rules it breaks. An invoice is corrected and sent again; a note cannot be edited: issue a new note.",
  },
  validation_pending: {
    es: "El documento se envió y la DIAN todavía no lo ha validado. Consulte su estado más tarde.",
    en: "The document was sent and DIAN has not validated it yet. Check its status later.",
  },
  outcome_unknown: {
    es: "No hubo respuesta y no sabemos si el documento llegó. Consulte su estado más tarde; no cree un documento nuevo.",
    en: "No answer came back, so we do not know whether the document arrived. Check its status later; do not create a new document.",
  },
  check_failed: {
    es: "El documento no se envió porque tiene errores. Corríjalos y envíelo de nuevo.",
    en: "The document was not sent because it has errors. Correct them and send it again.",
  },
  credential_required: {
    es: "El documento no se envió: la empresa no tiene credenciales válidas del proveedor de facturación. Un administrador debe configurarlas.",
    en: "The document was not sent: the company has no valid credentials for its invoicing provider. An administrator must set them up.",
  },
  not_sent_retry: {
    es: "El documento no se envió porque el proveedor de facturación no respondió. Inténtelo de nuevo más tarde.",
    en: "The document was not sent because the invoicing provider did not answer. Try again later.",
  },
  provider_refused: {
    es: "El proveedor de facturación rechazó la solicitud sin procesarla. Reintentar no ayudará: contacte a soporte.",
    en: "The invoicing provider refused the request without processing it. Trying again will not help: contact support.",
  },
  already_transmitted: {
    es: "La DIAN ya había aceptado este documento; no se envió de nuevo.",
    en: "DIAN had already accepted this document; it was not sent again.",
  },
  reissue_required: {
    es: "Este documento fue rechazado antes. Para enviarlo otra vez, elija reenviarlo.",
    en: "This document was rejected before. To send it again, choose to resend it.",
  },
  in_progress: {
    es: "El documento se está enviando en este momento. Espere y consulte su estado.",
    en: "The document is being sent right now. Wait and check its status.",
  },
  not_found: {
    es: "No encontramos el documento en esta organización.",
    en: "The document was not found in this organization.",
  },
  never_received: {
    es: "El proveedor de facturación nunca recibió el documento. Puede enviarlo de nuevo.",
    en: "The invoicing provider never received the document. You can send it again.",
  },
  unknown_to_provider: {
    es: "El proveedor de facturación no tiene registro de este documento.",
    en: "The invoicing provider has no record of this document.",
  },
  replaced: {
    es: "Una nota posterior reemplazó a esta nota.",
    en: "A later note replaced this note.",
  },
  sent: {
    es: "El correo se envió.",
    en: "The e-mail was sent.",
  },
  delivery_rejected: {
    es: "El correo fue rechazado (por ejemplo, la dirección no existe). Revise la dirección y envíelo de nuevo.",
    en: "The e-mail was refused (for example, the address does not exist). Check the address and send it again.",
  },
  delivery_failed: {
    es: "El correo no se pudo enviar; se intentará de nuevo automáticamente.",
    en: "The e-mail could not be sent; it will be tried again automatically.",
  },
  already_sent: {
    es: "Este documento ya se envió a esta dirección hace un momento.",
    en: "This document was sent to this address a moment ago.",
  },
  delivery_in_progress: {
    es: "El envío de este documento a esta dirección está en curso.",
    en: "This document is being sent to this address.",
  },
} as const satisfies Record<ResultCode, Sentences>;

export const ERROR_MESSAGES = {
  invalid_json: {
    es: "La solicitud está mal formada.",
    en: "The request is malformed.",
  },
  validation_failed: {
    es: "Algunos datos no son válidos. Revise los campos señalados.",
    en: "Some of the data are not valid. Check the fields marked.",
  },
  unauthenticated: {
    es: "Su sesión expiró o no es válida. Inicie sesión de nuevo.",
    en: "Your session has expired or is not valid. Sign in again.",
  },
  forbidden: {
    es: "No tiene permiso para hacer esto en esta organización.",
    en: "You are not allowed to do this in this organization.",
  },
  not_found: {
    es: "No encontramos lo que busca en esta organización.",
    en: "What you are looking for was not found in this organization.",
  },
  method_not_allowed: {
    es: "Esta operación no se puede pedir de esta forma.",
    en: "This operation cannot be requested this way.",
  },
  invalid_state: {
    es: "El documento no está en un estado que permita esta acción.",
    en: "The document is not in a state that allows this action.",
  },
  idempotency_conflict: {
    es: "Esta acción ya está en curso o se pidió antes con otros datos. Espere un momento y vuelva a intentarlo.",
    en: "This action is already under way, or was requested before with other data. Wait a moment and try again.",
  },
  payload_too_large: {
    es: "La solicitud es demasiado grande.",
    en: "The request is too large.",
  },
  unsupported_media_type: {
    es: "La solicitud no tiene el formato esperado.",
    en: "The request is not in the expected format.",
  },
  credential_rejected: {
    es: "El proveedor de facturación no aceptó las credenciales. Un administrador debe revisarlas.",
    en: "The invoicing provider did not accept the credentials. An administrator must check them.",
  },
  business_rule: {
    es: "Esta acción no es posible con estos datos; el detalle indica por qué.",
    en: "This action is not possible with these data; the details say why.",
  },
  rate_limited: {
    es: "Demasiadas solicitudes seguidas. Espere un momento y vuelva a intentarlo.",
    en: "Too many requests in a row. Wait a moment and try again.",
  },
  internal_error: {
    es: "Ocurrió un error inesperado. Inténtelo de nuevo; si se repite, contacte a soporte.",
    en: "An unexpected error occurred. Try again; if it happens again, contact support.",
  },
  provider_error: {
    es: "El proveedor de facturación falló. Inténtelo de nuevo más tarde.",
    en: "The invoicing provider failed. Try again later.",
  },
  service_unavailable: {
    es: "El servicio no está disponible en este momento. Inténtelo de nuevo en unos minutos.",
    en: "The service is not available right now. Try again in a few minutes.",
  },
  database_unavailable: {
    es: "El servicio está ocupado. Inténtelo de nuevo en unos segundos.",
    en: "The service is busy. Try again in a few seconds.",
  },
  provider_timeout: {
    es: "El proveedor de facturación no respondió a tiempo. Consulte el estado del documento más tarde.",
    en: "The invoicing provider did not answer in time. Check the document's status later.",
  },
} as const satisfies Record<ErrorCode, Sentences>;
