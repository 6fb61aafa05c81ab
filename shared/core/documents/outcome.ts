/**
 * What a provider's answer about a document means for it, and how it is stored: the status, the
 * result code (../../kernel/result-codes.ts), the API's own sentence, and the authority's words as it wrote them.
 */

import type { AuthorityRule } from "../../kernel/result-codes.ts";
import type { RecordedOutcome } from "../../kernel/rows.ts";
import type { DocumentOutcome, RuleViolation } from "../../ports/providers/protocol.ts";
import type { DocumentKindSpec } from "./kind.ts";

/** The provider's decision as the document's new status (the kind's word for "accepted"). */
export function outcomeFromProvider(
  kind: Pick<DocumentKindSpec, "accepted" | "words">,
  outcome: DocumentOutcome,
): RecordedOutcome {
  const rules = authorityRules(outcome);
  const base = {
    provider_reference: outcome.provider_reference,
    authority_message: outcome.message,
    ...(rules.length > 0 ? { authority_rules: rules } : {}),
  };
  const { noun, howToResend, whileInProgress } = kind.words;
  const whenRejected = kind.words.whenRejected ?? `correct it, then ${howToResend}`;
  switch (outcome.status) {
    case "accepted":
      return {
        ...base,
        status: kind.accepted,
        code: "accepted",
        message: `the authority accepted this ${noun}${noticed(rules)}`,
        authority_code: outcome.authority_code,
        qr_text: outcome.qr_text,
        validated_at: outcome.validated_at,
      };
    case "rejected": {
      const broken = rules.filter((r) => r.kind === "rechazo").map((r) => r.rule);
      const which = broken.length > 0 ? ` (${broken.join(", ")}; see authority_rules)` : "";
      // refused only for being signed on another day than its issue date: nothing to correct, and a
      // send on a later day issues it anew (the claim re-stamps what the authority refused)
      const fix =
        broken.length > 0 && broken.every((rule) => SIGNED_ANOTHER_DAY.has(rule))
          ? `it was signed on another day than its issue date and needs no correction: ${howToResend}; it will be issued anew on the day it is sent`
          : whenRejected;
      return {
        ...base,
        status: "error",
        code: "rejected",
        message: `the authority rejected this ${noun}${which}; ${fix}`,
        detail: { rules: outcome.errors ?? [] },
      };
    }
    case "pending":
      return {
        ...base,
        status: "en_proceso",
        code: "validation_pending",
        message: `sent; the authority has not decided on this ${noun} yet: ${whileInProgress}`,
      };
  }
}

/** DIAN's rules that the issue date be the signing date: invoices, credit and debit notes (brief-business §10). */
const SIGNED_ANOTHER_DAY = new Set(["FAD09e", "CAD09e", "DAD09e"]);

/** Asked about, the provider had never received the document it was left `en_proceso` with. */
export function neverReceived(kind: Pick<DocumentKindSpec, "words">): RecordedOutcome {
  const { noun, howToResend } = kind.words;
  return {
    status: "error",
    code: "never_received",
    message: `the provider never received this ${noun}; ${howToResend}`,
  };
}

/**
 * The rules as the API answers them. DIAN says of each whether it rejects; a provider that does not
 * say leaves it to the outcome: a rule of a rejection rejects, any other only notifies.
 */
export function authorityRules(outcome: Pick<DocumentOutcome, "status" | "errors">): AuthorityRule[] {
  const fallback = outcome.status === "rejected" ? "rechazo" : "notificacion";
  return (outcome.errors ?? []).map((e: RuleViolation) => ({
    rule: e.code,
    kind: e.kind ?? fallback,
    message: e.message,
  }));
}

function noticed(rules: AuthorityRule[]): string {
  const notes = rules.filter((r) => r.kind === "notificacion").map((r) => r.rule);
  return notes.length > 0 ? `, with notifications (${notes.join(", ")}; see authority_rules)` : "";
}

/**
 * Provider text is stored as it came, but PostgreSQL text and jsonb cannot hold NUL: a message with
 * one would make the outcome impossible to record.
 */
export function storable<T>(value: T): T {
  if (typeof value === "string") return value.replaceAll("\0", "") as T;
  if (Array.isArray(value)) return value.map(storable) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [storable(k), storable(v)])) as T;
  }
  return value;
}
