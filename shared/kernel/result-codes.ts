/**
 * The one closed list of result codes: the machine word every per-document answer carries (`code`)
 * beside the status and the sentence, so a program can tell "rejected by the authority" from "not
 * found" from "not sent, retry" without reading text. A fiscal document also keeps the code of its
 * last outcome (`last_code`, next to `last_message`). docs/api.md ("Result codes") lists the same
 * codes; a test holds the two equal. A code is never renamed or reused for another meaning.
 */

/** Which answers can carry a code: the transmissions (`/transmit`, `/credit-notes`, `/credit-notes/reissue`), the status queries, the deliveries. */
export type ResultGroup = "transmission" | "refresh" | "delivery" | "stored";

interface CodeInfo {
  groups: readonly ResultGroup[];
  /** What happened, in one sentence. */
  meaning: string;
  /** What a program should do about it. */
  action: string;
}

const TRANSMISSION = ["transmission", "stored"] as const;
const BOTH = ["transmission", "refresh", "stored"] as const;

export const RESULT_CODES = {
  accepted: {
    groups: BOTH,
    meaning: "The authority accepted the document (`transmitida`, `emitida`); its CUFE/CUDE is recorded.",
    action: "Nothing; render or deliver it.",
  },
  rejected: {
    groups: BOTH,
    meaning: "The authority rejected the document (`error`); `authority_rules` lists the rules it broke.",
    action:
      "An invoice: correct it, then send it again (`reissue: true`). A note cannot be edited: issue a new one (`/credit-notes` for its lines, which replaces it; `/debit-notes`).",
  },
  validation_pending: {
    groups: BOTH,
    meaning: "Sent; the authority has not decided yet (`en_proceso`).",
    action: "Ask again later with `/refresh`; the reconcile job also settles it.",
  },
  outcome_unknown: {
    groups: TRANSMISSION,
    meaning:
      "It may have reached the provider, but no answer came back (a timeout, a provider failure); `en_proceso`.",
    action:
      "Ask with `/refresh` later (or reissue once idle: it asks before it resends). Never create a new document for it.",
  },
  check_failed: {
    groups: TRANSMISSION,
    meaning:
      "Not sent: the document fails the checks made before sending; `message` lists every problem, and `authority_rules` the authority's rules among them (an invoice: DIAN's rule ids, our sentences).",
    action: "Fix the data (an invoice is `pendiente` again, editable), then send it again.",
  },
  credential_required: {
    groups: TRANSMISSION,
    meaning:
      "Not sent: the company has no usable `adapter-tax` credential for the environment, or the provider refused it.",
    action: "Save a working credential with `/integrations/save`, then send it again.",
  },
  not_sent_retry: {
    groups: TRANSMISSION,
    meaning:
      "Not sent: the provider could not be reached, kept rate limiting, or an internal error stopped it first.",
    action: "Send it again later.",
  },
  provider_refused: {
    groups: TRANSMISSION,
    meaning: "Not sent: the provider refused the request without processing it (an HTTP 4xx).",
    action: "Sending it again as it is will not help; report it with the request id.",
  },
  already_transmitted: {
    groups: ["transmission"],
    meaning: "Nothing done: the authority had already accepted this document.",
    action: "Nothing.",
  },
  reissue_required: {
    groups: ["transmission"],
    meaning: "Nothing done: the document ended in `error` before, and is only sent again when asked to.",
    action: "Pass `reissue: true` (an invoice) to send it again.",
  },
  in_progress: {
    groups: TRANSMISSION,
    meaning:
      "Nothing done: another call is transmitting the document, or its earlier outcome is still unknown (`en_proceso`).",
    action: "Ask with `/refresh`, or reissue once no call holds it.",
  },
  not_found: {
    groups: ["transmission"],
    meaning: "Nothing done: no such document in this organization.",
    action: "Check the id.",
  },
  never_received: {
    groups: ["refresh", "stored"],
    meaning: "The provider never received the document, which was left `en_proceso`; it is now `error`.",
    action: "Send it again (`reissue: true`, `/credit-notes/reissue`): nothing of it is at the authority.",
  },
  unknown_to_provider: {
    groups: ["refresh", "stored"],
    meaning: "The provider has no record of the document; its status is unchanged.",
    action: "Nothing to do for a document never sent; otherwise report it.",
  },
  replaced: {
    groups: ["stored"],
    meaning:
      "Never an answer: the `last_code` of a credit note in error that a later note replaced (`descartada`); reissuing it is a 409.",
    action: "Nothing: the later note credits its lines.",
  },
  sent: {
    groups: ["delivery"],
    meaning: "The deliver provider took the e-mail (`enviada`).",
    action: "Nothing.",
  },
  delivery_rejected: {
    groups: ["delivery"],
    meaning:
      "The deliver provider refused the e-mail (a bounce, a blocked address; `error`); `provider_message` says why. It is not retried.",
    action: "Deliver again with a corrected `to`.",
  },
  delivery_failed: {
    groups: ["stored"],
    meaning:
      "Never an answer (the route answers 502/504): the `code` of a delivery in `error` that the deliver provider failed or never received, or whose message could not be built; the reconcile job tries it again unless it gave up (`gave_up_reason`).",
    action: "Nothing; its `delivery.enviada` or `delivery.error` event follows the retry.",
  },
  already_sent: {
    groups: ["delivery"],
    meaning: "Nothing sent: the same document went to the same address moments ago (`enviada`).",
    action: "Nothing.",
  },
  delivery_in_progress: {
    groups: ["delivery"],
    meaning: "Nothing sent: a delivery of this document to this address is under way (`pendiente`).",
    action: "Nothing; its outcome is recorded once known.",
  },
} as const satisfies Record<string, CodeInfo>;

export type ResultCode = keyof typeof RESULT_CODES;

/** The codes of one group, in the list's order. */
export function codesOf<G extends ResultGroup>(group: G): ResultCode[] {
  return (Object.keys(RESULT_CODES) as ResultCode[]).filter((code) =>
    (RESULT_CODES[code].groups as readonly ResultGroup[]).includes(group),
  );
}

/** The codes a transmission answers (`/transmit`, `/credit-notes`, `/credit-notes/reissue`). */
export type TransmissionCode = {
  [C in ResultCode]: "transmission" extends (typeof RESULT_CODES)[C]["groups"][number] ? C : never;
}[ResultCode];
/** The codes a status query answers. */
export type RefreshCode = {
  [C in ResultCode]: "refresh" extends (typeof RESULT_CODES)[C]["groups"][number] ? C : never;
}[ResultCode];
/** The codes a delivery answers. */
export type DeliveryCode = {
  [C in ResultCode]: "delivery" extends (typeof RESULT_CODES)[C]["groups"][number] ? C : never;
}[ResultCode];

/** One rule the authority applied: a rejection (`rechazo`) or a notification that does not reject. */
export interface AuthorityRule {
  rule: string;
  kind: "rechazo" | "notificacion";
  message: string;
}
