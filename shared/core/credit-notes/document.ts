/**
 * From the stored credit note to the provider's submit request, with the checks that must pass
 * before anything is sent.
 */
import type { CreditNoteDocumentRow, Environment } from "../../kernel/rows.ts";
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

/**
 * The checks before a note is sent, then its submit request. Its lines and totals are the parts
 * of a transmitted invoice's lines the database computed (each tax, the share of each discount or
 * charge; an annulment's document discounts and charges), so what can still be missing is the
 * company's software PIN (its CUDE's secret), the invoice's CUFE, or buyer data. A note carries no
 * withholdings and no advances (UBL's CreditNote has neither), and, like its invoice, is in pesos
 * with the deal's currency declared.
 */
export function prepareCreditNote(doc: CreditNoteDocumentRow, environment: Environment): PreparedDocument {
  const problems: string[] = [];
  if (!doc.company.software_pin) {
    problems.push("the company has no DIAN software PIN, which a credit note's CUDE needs");
  }
  if (!doc.billing_reference.authority_code) problems.push("the credited invoice has no CUFE");
  problems.push(...buyerProblems(doc));
  if (doc.lines.length === 0) problems.push("the credit note has no lines");
  if (problems.length > 0) return { ok: false, problems };

  // a part of a tax is what makes a line's parts add up to its tax: within a cent of base × rate
  return checkedRequest(
    () => ({
      kind: "credit_note",
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
    { exactLineTaxes: false },
  );
}
