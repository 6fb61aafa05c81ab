/**
 * DIAN's rule strings, `Regla: <code>, Rechazo|Notificación: <message>` ([D] DianPAServices writes
 * them so), as the protocol's rules (`RuleViolation`, ../../ports/providers/protocol.ts): DIAN's code
 * and words kept, within the protocol's bounds.
 */
import type { RuleViolation } from "../../ports/providers/protocol.ts";
import type { DianResponse } from "./answers.ts";

/** The rules an outcome carries at most (the protocol's `errors` holds 100). */
export const MAX_RULES = 100;
export const MAX_RULE_MESSAGE = 1000;
const MAX_RULE_CODE = 50;

/** One `Regla: <code>, Rechazo|Notificación: <message>` string as a rule; other text under `fallbackKind`. */
export function parseRule(text: string, fallbackKind: "rechazo" | "notificacion"): RuleViolation {
  const match = /^\s*Regla:\s*([^,]+?)\s*,\s*(Rechazo|Notificaci[oó]n)\s*:\s*([\s\S]*)$/i.exec(text);
  if (!match) return { code: "DIAN", kind: fallbackKind, message: cut(text.trim(), MAX_RULE_MESSAGE) };
  const [, code = "", kind = "", message = ""] = match;
  return {
    code: cut(code, MAX_RULE_CODE),
    kind: /^rechazo$/i.test(kind) ? "rechazo" : "notificacion",
    message: cut(message.trim(), MAX_RULE_MESSAGE),
  };
}

/** `text` cut at `max` characters, marked with an ellipsis. */
export function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** DIAN's error strings as rules: rejections first, exact repeats dropped, at most MAX_RULES. */
export function rulesOf(response: DianResponse, fallbackKind: "rechazo" | "notificacion") {
  const seen = new Set<string>();
  const all: RuleViolation[] = [];
  for (const text of response.errorMessages) {
    const rule = parseRule(text, fallbackKind);
    const key = `${rule.code}\u0000${rule.kind}\u0000${rule.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      all.push(rule);
    }
  }
  const ordered = [...all.filter((r) => r.kind === "rechazo"), ...all.filter((r) => r.kind !== "rechazo")];
  return {
    rules: ordered.slice(0, MAX_RULES),
    omitted: Math.max(0, ordered.length - MAX_RULES) + response.errorMessagesOmitted,
  };
}
