/** What a provider's answer about a document means for it, and how its text is stored. */
import type { RecordedOutcome } from "../../db/rows.ts";
import type { DocumentOutcome } from "../../providers/protocol.ts";
import type { DocumentKindSpec } from "./kind.ts";

/** The provider's decision as the document's new status (the kind's word for "accepted"). */
export function outcomeFromProvider(
  kind: Pick<DocumentKindSpec, "accepted">,
  outcome: DocumentOutcome,
): RecordedOutcome {
  const base = { provider_reference: outcome.provider_reference };
  switch (outcome.status) {
    case "accepted":
      return {
        ...base,
        status: kind.accepted,
        message: outcome.message,
        authority_code: outcome.authority_code,
        qr_text: outcome.qr_text,
        validated_at: outcome.validated_at,
      };
    case "rejected": {
      const rules = (outcome.errors ?? []).map((e) => `${e.code}: ${e.message}`);
      const message = rules.length > 0 ? `${outcome.message} (${rules.join("; ")})` : outcome.message;
      return { ...base, status: "error", message, detail: { rules: outcome.errors ?? [] } };
    }
    case "pending":
      return { ...base, status: "en_proceso", message: outcome.message };
  }
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
