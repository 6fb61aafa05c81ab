/**
 * From a stored note of any kind to the provider's submit request, with the checks that must pass
 * before anything is sent. A note's lines and totals were computed by the database (…_credit_notes.sql,
 * …_debit_notes.sql), so what can still be missing is the company's software PIN (its CUDE's
 * secret), the CUFE of the invoice it is of, or buyer data.
 */
import type { DocumentPayloads, Environment, NoteDocumentRow } from "../../kernel/rows.ts";
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
import type { NoteKind } from "./kind.ts";

/** The checks before a note of `kind` is sent, then its submit request. */
export function prepareNote<K extends NoteKind>(
  kind: K,
  noun: string,
  doc: DocumentPayloads[K] & NoteDocumentRow,
  environment: Environment,
): PreparedDocument {
  const problems: string[] = unsendableContent(doc);
  if (!doc.company.software_pin) {
    problems.push(`the company has no DIAN software PIN, which a ${noun}'s CUDE needs`);
  }
  if (!doc.billing_reference.authority_code) problems.push("the invoice it is a note of has no CUFE");
  problems.push(...buyerProblems(doc));
  if (doc.lines.length === 0) problems.push(`the ${noun} has no lines`);
  if (problems.length > 0) return { ok: false, problems };

  const parsed = SubmitDocumentRequest.safeParse({
    kind,
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
