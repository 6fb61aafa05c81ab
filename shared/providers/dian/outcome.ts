/**
 * What DIAN's answer means for a document (issue 26 item 4), as pure functions the DIAN adapter
 * calls: accepted, rejected with DIAN's rules, pending, or never received — or a typed error when
 * the answer settles nothing (./failures.ts).
 *
 * - `IsValid` true → accepted, DIAN's ApplicationResponse kept; notifications ride along as rules
 *   of kind `notificacion` (a notification never rejects).
 * - Rule 90, "Documento procesado anteriormente": DIAN already holds an accepted document with this
 *   number ([D] DianPAServices `CheckDocumentDuplicity`), and SendBillSync's `XmlDocumentKey` is
 *   that document's CUFE/CUDE. When it is ours, this is our earlier send that succeeded although we
 *   never heard back: accepted, with the earlier ApplicationResponse. That is what makes a resend
 *   after an unknown outcome safe. When it is another document's, the number was used before:
 *   rejected. GetStatus and GetStatusZip answer `XmlDocumentKey` = the key asked about, so there
 *   only a key in DIAN's words can name the earlier document (`earlierKey`); none is a rejection.
 * - Status 99 → rejected, with each `Regla: X, Rechazo: …` as a rule.
 * - 98 ("En Proceso"), a GetStatusZip batch without a status ("Batch en proceso de
 *   validación.") or a document of it with status 0 ("En proceso de validación", [D]
 *   `BatchFileStatus.InProcess`) → pending: reconcile asks again.
 * - 66: on GetStatus, DIAN has no such document (never received); on SendBillSync, DIAN stored the
 *   document but has no validation yet (pending). 89 (and the 90 older versions answer): DIAN did
 *   not take the document in — no XML or more than one in the ZIP, an XML it cannot parse, a
 *   certificate NIT not authorized for the issuer — so it is rejected with DIAN's reason as the rule.
 *
 * - 2 on GetStatusZip, "Set de prueba con identificador … se encuentra Aceptado." (or Rechazado):
 *   the test set is closed and the batch was not validated; the document never will be under that
 *   set → rejected, with a message saying the set's status (../../co/test-set.ts reads DIAN's words;
 *   Odoo, too, reads that answer as a rejection of the document: brief §1, its mapping).
 *
 * Our words are English (`message`); DIAN's stay DIAN's (`authorityMessage`, each rule's message).
 * SendTestSetAsync's and GetNumberingRange's answers: ./test-set.ts, ./numbering.ts.
 */
import { testSetStatusOf } from "../../co/test-set.ts";
import type { RuleViolation } from "../../ports/providers/protocol.ts";
import type { DianResponse } from "./answers.ts";
import { dianError, malformedAnswer as malformed, quote } from "./failures.ts";
import { cut, MAX_RULE_MESSAGE, rulesOf } from "./rules.ts";
import type { DianOperation } from "./soap.ts";

interface OutcomeBase {
  /** Our words, English. */
  message: string;
  /** DIAN's own words: its status description and message, as it sent them ("" when none). */
  authorityMessage: string;
  /** DIAN's status code ("00", "99", "98", "66", "89", … or "" for a batch still running). */
  statusCode: string;
  /** The rules DIAN reported, rejections first, duplicates dropped, at most MAX_RULES. */
  rules: RuleViolation[];
}

export type DianOutcome =
  | (OutcomeBase & {
      status: "accepted";
      /** The CUFE/CUDE DIAN holds the document under (ours). */
      documentKey: string;
      /** DIAN's signed ApplicationResponse (it goes into the buyer's AttachedDocument), when sent. */
      applicationResponse: Uint8Array | null;
      /** True when DIAN answered rule 90: it had accepted this very document before. */
      duplicate: boolean;
    })
  | (OutcomeBase & { status: "rejected" | "pending" })
  /** GetStatus only: DIAN has no document with this CUFE/CUDE (the adapter's query answers null). */
  | (OutcomeBase & { status: "not_found" });

/** What we know of the document asked about: its CUFE/CUDE, as we computed and sent it. */
export interface ExpectedDocument {
  documentKey: string;
}

function authorityMessage(response: DianResponse): string {
  const parts = [response.statusDescription, response.statusMessage].filter(
    (part): part is string => !!part && part.trim() !== "",
  );
  return [...new Set(parts)].join(" ");
}

const sameKey = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** SendBillSync's answer. Throws a ProviderError when DIAN's own service failed (status 500). */
export function sendOutcome(response: DianResponse, expected: ExpectedDocument): DianOutcome {
  return documentOutcome("SendBillSync", response, expected);
}

/**
 * GetStatus's answer about a CUFE/CUDE: `not_found` when DIAN never received it (66). Throws a
 * ProviderError when DIAN refused the query (89: a malformed track id, [D] CheckTrackIdFormat) or
 * its service failed (500).
 */
export function statusOutcome(response: DianResponse, expected: ExpectedDocument): DianOutcome {
  return documentOutcome("GetStatus", response, expected);
}

/**
 * GetStatusZip's answer about a one-document batch (SendTestSetAsync's ZipKey): pending while DIAN
 * validates it, then the document's outcome. With several answers, the one about our document.
 */
export function batchOutcome(responses: readonly DianResponse[], expected: ExpectedDocument): DianOutcome {
  if (responses.length === 0) {
    return pending("", "DIAN has no answer for the batch yet; its status will be asked again.", "");
  }
  const response =
    responses.length === 1
      ? responses[0]
      : responses.find((r) => r.documentKey !== null && sameKey(r.documentKey, expected.documentKey));
  if (!response) {
    throw malformed("GetStatusZip", "answers about several documents, none of them this one");
  }
  return documentOutcome("GetStatusZip", response, expected);
}

function documentOutcome(
  operation: DianOperation,
  response: DianResponse,
  expected: ExpectedDocument,
): DianOutcome {
  const words = authorityMessage(response);
  const code = response.statusCode;
  if (response.isValid) return accepted(operation, response, expected, false);
  const { rules, omitted } = rulesOf(response, "rechazo");
  if (rules.some((r) => r.code === "90" && r.kind === "rechazo"))
    return duplicate(operation, response, expected, words);
  if (code === "500") {
    throw dianError(operation, { type: "status", statusCode: code, description: words, unavailable: true });
  }
  if (code === "98")
    return pending(code, "DIAN is still validating the document; its status will be asked again.", words);
  // "": the batch is not yet split into documents; "0": this document of it is still in validation
  // (its GlobalBatchFileResult is BatchFileStatus.InProcess, [D] DianPAServices.GetStatusZip)
  if ((code === "" || code === "0") && operation === "GetStatusZip") {
    return pending(code, "DIAN is still validating the batch; its status will be asked again.", words);
  }
  if (code === "66") {
    if (operation === "GetStatus") {
      return {
        status: "not_found",
        statusCode: code,
        rules: [],
        authorityMessage: words,
        message: "DIAN has no document with this CUFE/CUDE: it never received it.",
      };
    }
    // SendBillSync: stored but no validation came back; GetStatusZip: DIAN asks to try later
    return pending(
      code,
      "DIAN received the document but has not given its validation yet; its status will be asked again.",
      words,
    );
  }
  if ((code === "89" || code === "90") && operation !== "SendBillSync") {
    // a query DIAN refused (a malformed track id, a certificate without the NIT): nothing about the document
    throw dianError(operation, { type: "status", statusCode: code, description: words, unavailable: false });
  }
  if (code === "89" || code === "90") {
    return {
      status: "rejected",
      statusCode: code,
      authorityMessage: words,
      rules: [{ code, kind: "rechazo", message: cut(words || "(DIAN gave no reason)", MAX_RULE_MESSAGE) }],
      message: notTakenIn(words),
    };
  }
  if (code === "99" || rules.length > 0) {
    const more = omitted > 0 ? ` (${omitted} more not shown)` : "";
    const list = rules.filter((r) => r.kind === "rechazo").map((r) => r.code);
    return {
      status: "rejected",
      statusCode: code,
      authorityMessage: words,
      rules,
      message: `DIAN rejected the document${list.length ? `: rules ${list.join(", ")}` : ""}${more}.`,
    };
  }
  if (code === "" || code === "00") throw malformed(operation, `status "${code}" without IsValid`);
  const set = testSetStatusOf(words);
  if (code === "2" && set) {
    // The set is closed: DIAN validates nothing more under it, and answers its status for every later
    // batch. This document will never be validated under that set: a settled answer, not a pending one.
    return {
      status: "rejected",
      statusCode: code,
      authorityMessage: words,
      rules: [{ code, kind: "rechazo", message: cut(words, MAX_RULE_MESSAGE) }],
      message:
        set.status === "aceptado"
          ? "DIAN did not validate the document: its test set is already accepted (Aceptado), and DIAN validates nothing more under it. Go on to production (SendBillSync)."
          : "DIAN did not validate the document: its test set was rejected (Rechazado), and DIAN validates nothing more under it. Ask DIAN's portal for a new test set.",
    };
  }
  // another status about something else than the document: not validated
  return {
    status: "rejected",
    statusCode: code,
    authorityMessage: words,
    rules: [{ code, kind: "rechazo", message: cut(words || "(DIAN gave no reason)", MAX_RULE_MESSAGE) }],
    message: /set de prueba/i.test(words)
      ? "DIAN did not validate the document and answered about the test set instead (see authority_message). Once the test set is accepted, send documents with SendBillSync."
      : `DIAN did not validate the document (status ${code})${words ? "; see authority_message" : ", giving no reason"}.`,
  };
}

function accepted(
  operation: DianOperation,
  response: DianResponse,
  expected: ExpectedDocument,
  isDuplicate: boolean,
): DianOutcome {
  if (response.documentKey !== null && !sameKey(response.documentKey, expected.documentKey)) {
    throw malformed(operation, "an acceptance of a document with another CUFE/CUDE");
  }
  const { rules, omitted } = rulesOf(response, "notificacion");
  const kept = isDuplicate ? rules.filter((r) => !(r.code === "90" && r.kind === "rechazo")) : rules;
  const notes = kept.length + omitted;
  return {
    status: "accepted",
    statusCode: response.statusCode,
    authorityMessage: authorityMessage(response),
    rules: kept,
    documentKey: expected.documentKey.toLowerCase(),
    applicationResponse: response.applicationResponse,
    duplicate: isDuplicate,
    message: isDuplicate
      ? "DIAN had already accepted this document (rule 90: processed before); its earlier validation stands."
      : `DIAN accepted the document${notes > 0 ? ` with ${notes} notification${notes === 1 ? "" : "s"}` : ""}.`,
  };
}

/** A CUFE/CUDE (SHA-384, hex) written in DIAN's words. */
const KEY_IN_WORDS = /\b[0-9a-f]{96}\b/i;

/**
 * The CUFE/CUDE of the document DIAN already holds under this number. SendBillSync names it in
 * `XmlDocumentKey` ([D] DianPAServices.CheckDocument). GetStatus (and GetStatusZip, which asks it
 * per document) always sets `XmlDocumentKey` to the trackId asked about, so only the earlier
 * document's key written in StatusDescription ("Documento <number> procesado anteriormente. CUFE
 * <key> ") can name it there; a 99 with rule 90 on our own accepted document does not happen there
 * (GetStatus answers 00 once the document's ApplicationResponse exists).
 */
function earlierKey(operation: DianOperation, response: DianResponse): string | null {
  if (operation === "SendBillSync") return response.documentKey;
  const named = KEY_IN_WORDS.exec(`${response.statusDescription ?? ""} ${response.statusMessage ?? ""}`);
  return named ? named[0] : null;
}

function duplicate(
  operation: DianOperation,
  response: DianResponse,
  expected: ExpectedDocument,
  words: string,
): DianOutcome {
  const key = earlierKey(operation, response);
  if (key !== null && sameKey(key, expected.documentKey))
    return accepted(operation, response, expected, true);
  if (key === null && operation === "SendBillSync") {
    return pending(
      response.statusCode,
      "DIAN says a document with this number was processed before without naming it; its status will be asked by CUFE/CUDE.",
      words,
    );
  }
  return {
    status: "rejected",
    statusCode: response.statusCode,
    authorityMessage: words,
    rules: [{ code: "90", kind: "rechazo", message: "Documento procesado anteriormente." }],
    message: `DIAN already holds another document with this number${key ? ` (CUFE/CUDE ${quote(key)})` : ""}: the number was used before; issue the document under a new number.`,
  };
}

function pending(statusCode: string, message: string, authority: string): DianOutcome {
  return { status: "pending", statusCode, rules: [], authorityMessage: authority, message };
}

/** Our words for a document DIAN did not take in (89), by what DIAN said. */
function notTakenIn(words: string): string {
  // DIAN's own words are the outcome's authority_message, not part of ours
  if (/no autorizado/i.test(words)) {
    return "DIAN did not take the document: the certificate's NIT may not send documents for this issuer. Authorize the software (or the certificate's holder) for the issuer in DIAN's portal, then send it again.";
  }
  if (/solo puede recibir un documento|m[aá]s de un xml|ning[uú]n documento xml/i.test(words)) {
    return "DIAN did not take the document: the ZIP must hold exactly one XML.";
  }
  if (/parsear|namespace|xml/i.test(words)) {
    return "DIAN could not read the document's XML. Nothing was processed; fix the document and send it again.";
  }
  return `DIAN did not take the document in${words ? " (see authority_message)" : ", giving no reason"}. Nothing was processed; fix the cause and send it again.`;
}
