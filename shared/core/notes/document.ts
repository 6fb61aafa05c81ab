/**
 * From a stored note of any kind to the provider's submit request, with the checks that must pass
 * before anything is sent. A note's lines and totals were computed by the database (…_credit_notes.sql:
 * the parts of a transmitted invoice's lines, each tax, the share of each discount or charge;
 * …_debit_notes.sql: lines computed as an invoice's), so what can still be missing is the company's
 * software PIN (its CUDE's secret), the CUFE of the invoice it is of, or buyer data. A note carries
 * no withholdings and no advances, and, like its invoice, is in pesos with the deal's currency
 * declared.
 */
import type { DocumentPayloads, Environment, NoteDocumentRow } from "../../kernel/rows.ts";
import { isoTimeWithOffset } from "../../pdf/format.ts";
import type { PreparedDocument } from "../documents/kind.ts";
import {
  amountsRequest,
  buyerProblems,
  buyerRequest,
  checkedRequest,
  issuerRequest,
  linesRequest,
  opt,
} from "../documents/request.ts";
import type { NoteKind } from "./kind.ts";

/** The checks before a note of `kind` is sent, then its submit request. */
export function prepareNote<K extends NoteKind>(
  kind: K,
  noun: string,
  doc: DocumentPayloads[K] & NoteDocumentRow,
  environment: Environment,
): PreparedDocument {
  const problems: string[] = [];
  if (!doc.company.software_pin) {
    problems.push(`the company has no DIAN software PIN, which a ${noun}'s CUDE needs`);
  }
  if (!doc.billing_reference.authority_code) problems.push("the invoice it is a note of has no CUFE");
  problems.push(...buyerProblems(doc));
  if (doc.lines.length === 0) problems.push(`the ${noun} has no lines`);
  if (problems.length > 0) return { ok: false, problems };

  // a credit note's part of a tax is what makes a line's parts add up to its tax: within a cent of
  // base × rate; a debit note's lines are computed as an invoice's
  return checkedRequest(
    () => ({
      kind,
      reference: doc.id,
      environment,
      number: doc.number,
      issue_date: doc.issue_date,
      issue_time: isoTimeWithOffset(doc.issue_time),
      payment_form: doc.payment_form,
      payment_method: doc.payment_method,
      due_date: doc.payment_form === "2" ? opt(doc.due_date) : undefined,
      issuer: issuerRequest(doc.company, { software_pin: doc.company.software_pin }),
      buyer: buyerRequest(doc),
      lines: linesRequest(doc.lines),
      ...amountsRequest(doc),
      billing_reference: doc.billing_reference,
      correction: { concept_code: doc.concept_code, reason: doc.reason },
    }),
    { exactLineTaxes: kind !== "credit_note" },
  );
}
