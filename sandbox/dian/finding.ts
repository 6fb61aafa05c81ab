/** A rule DIAN applied to a document, and the rule ids of each kind of document. */
import type { ReceivedDocument } from "./document.ts";

export interface RuleFinding {
  code: string;
  message: string;
  /** A notification (Notificación) never rejects on its own. */
  notification?: boolean;
}

/** How the content rules are judged, from the stand-in's knobs (./knobs.ts). */
export interface RuleSettings {
  /** The date DIAN counts from (FAD09c), YYYY-MM-DD in Colombia. */
  today: string;
  /** How far, in cents, a product (base × rate, price × quantity) may be from the amount written. */
  productToleranceCents: number;
}

/**
 * A rule's id for the document's kind: an invoice's `FA…` is a credit note's `CA…` and a debit note's
 * `DA…` ([D] `Validator.cs` picks CAJ24/DAJ24, CAD06/DAD06, CAB27b/DAB27b… by document type 91/92;
 * Vendix's transcription of Anexo 1.9 lists CAU02/DAU02, CAS07/DAS07… the same way). VLR01 is every
 * kind's.
 */
export function ruleId(doc: Pick<ReceivedDocument, "kind">, invoiceCode: string): string {
  const prefix = ({ invoice: "FA", credit_note: "CA", debit_note: "DA" } as Record<string, string>)[doc.kind];
  return invoiceCode.startsWith("FA") && prefix ? prefix + invoiceCode.slice(2) : invoiceCode;
}

/** A finding of `invoiceCode` for `doc`'s kind. */
export const finding = (
  doc: Pick<ReceivedDocument, "kind">,
  invoiceCode: string,
  message: string,
): RuleFinding => ({ code: ruleId(doc, invoiceCode), message });

/** The first finding of each rule: the stand-in answers a rule once, however many places break it. */
export function onePerRule(findings: (RuleFinding | null)[]): RuleFinding[] {
  const seen = new Set<string>();
  return findings.filter((f): f is RuleFinding => {
    if (!f || seen.has(f.code)) return false;
    seen.add(f.code);
    return true;
  });
}
