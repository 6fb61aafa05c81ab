/**
 * From the stored credit note to the provider's submit request, with the checks that must pass
 * before anything is sent.
 */
import type { CreditNoteDocumentRow, Environment } from "../../kernel/rows.ts";
import { isoTimeWithOffset } from "../../pdf/format.ts";
import { SubmitDocumentRequest } from "../../ports/providers/protocol.ts";
import type { PreparedDocument } from "../documents/kind.ts";
import {
  buyerProblems,
  buyerRequest,
  issuerRequest,
  linesRequest,
  totalsRequest,
  unsendableContent,
} from "../documents/request.ts";

/**
 * The checks before a note is sent, then its submit request. Its lines and totals were copied from
 * a transmitted invoice by the database, so what can still be missing is the company's software
 * PIN (its CUDE's secret), the invoice's CUFE, or buyer data.
 */
export function prepareCreditNote(doc: CreditNoteDocumentRow, environment: Environment): PreparedDocument {
  const problems: string[] = unsendableContent(doc);
  if (!doc.company.software_pin) {
    problems.push("the company has no DIAN software PIN, which a credit note's CUDE needs");
  }
  if (!doc.billing_reference.authority_code) problems.push("the credited invoice has no CUFE");
  problems.push(...buyerProblems(doc));
  if (doc.lines.length === 0) problems.push("the credit note has no lines");
  if (problems.length > 0) return { ok: false, problems };

  const parsed = SubmitDocumentRequest.safeParse({
    kind: "credit_note",
    reference: doc.id,
    environment,
    number: doc.number,
    issue_date: doc.issue_date,
    issue_time: isoTimeWithOffset(doc.issue_time),
    currency: doc.currency,
    issuer: issuerRequest(doc.company, { software_pin: doc.company.software_pin }),
    buyer: buyerRequest(doc),
    lines: linesRequest(doc.lines),
    totals: totalsRequest(doc),
    billing_reference: doc.billing_reference,
    correction: { concept_code: doc.concept_code, reason: doc.reason },
  });
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) };
  }
  return { ok: true, request: parsed.data };
}
