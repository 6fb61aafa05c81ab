/**
 * From the stored invoice to the provider's submit request, with the checks that must pass before
 * anything is sent: required fields present, the database's problems with its amounts (a discount
 * above the total, …), the numbering, DIAN's rules the database does not refuse
 * (../../co/authority-rules.ts: currency, DIVIPOLA, dates, buyer), those with DIAN's rule id, and a
 * second reading of every amount on the request itself (../documents/arithmetic.ts). The database
 * computes those amounts from the inputs (supabase/migrations/…_amounts.sql), so the arithmetic
 * cannot fail for a stored invoice.
 */

import { asAuthorityRules, invoiceRuleProblems } from "../../co/authority-rules.ts";
import type { Environment, InvoiceDocumentRow } from "../../kernel/rows.ts";
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
  prepaymentsRequest,
  withholdingsRequest,
} from "../documents/request.ts";

/**
 * Amounts arrive as JSON numbers: exact to the cent only well below 2^53 cents. No real invoice
 * comes near this bound; refusing above it keeps every sum below exact.
 */
const MAX_AMOUNT = 1e12;

export function prepareInvoice(doc: InvoiceDocumentRow, environment: Environment): PreparedDocument {
  const amounts = [
    doc.subtotal,
    doc.tax_total,
    doc.total,
    ...doc.lines.flatMap((l) => [l.price_amount, l.line_extension, l.tax_amount, l.quantity]),
  ];
  if (amounts.some((a) => !Number.isFinite(a) || Math.abs(a) >= MAX_AMOUNT)) {
    return {
      ok: false,
      problems: ["amounts of 1,000,000,000,000 or more cannot be processed"],
    };
  }
  const problems: string[] = [...(doc.problems ?? [])];
  const company = doc.company;
  problems.push(...buyerProblems(doc));
  if (!company.technical_key)
    problems.push("the company has no technical key (ClTec) for its numbering range");
  if (doc.lines.length === 0) problems.push("the invoice has no lines");
  checkNumbering(doc, problems);
  // DIAN's rules the database lets through (../../co/authority-rules.ts); a problem found above in the
  // same words (the buyer's check digit, a due date the payload reports) is said once
  const broken = invoiceRuleProblems(doc);
  for (const { message } of broken) if (!problems.includes(message)) problems.push(message);
  if (problems.length > 0) {
    return broken.length > 0
      ? { ok: false, problems, rules: asAuthorityRules(broken) }
      : { ok: false, problems };
  }

  return checkedRequest(() => toRequest(doc, environment), { exactLineTaxes: true });
}

function toRequest(doc: InvoiceDocumentRow, environment: Environment): unknown {
  return {
    kind: "invoice",
    reference: doc.id,
    environment,
    number: doc.number,
    issue_date: doc.issue_date,
    issue_time: isoTimeWithOffset(doc.issue_time),
    due_date: opt(doc.due_date),
    payment_form: doc.payment_form,
    payment_method: doc.payment_method,
    notes: opt(doc.notes),
    issuer: issuerRequest(doc.company, { technical_key: doc.company.technical_key }),
    buyer: buyerRequest(doc),
    lines: linesRequest(doc.lines),
    ...amountsRequest(doc),
    withholdings: doc.withholding_totals?.length ? withholdingsRequest(doc.withholding_totals) : undefined,
    prepayments: doc.prepayments?.length ? prepaymentsRequest(doc.prepayments) : undefined,
    numbering: numberingRequest(doc.company),
  };
}

/** The company's numbering resolution, when all of it is on record (DIAN direct needs it). */
function numberingRequest(c: InvoiceDocumentRow["company"]) {
  const { resolution_number, resolution_date, resolution_valid_until, resolution_from, resolution_to } = c;
  if (!resolution_number || !resolution_date || !resolution_valid_until) return undefined;
  if (resolution_from == null || resolution_to == null) return undefined;
  return {
    resolution_number,
    start_date: resolution_date,
    end_date: resolution_valid_until,
    prefix: c.invoice_prefix ?? "",
    from: String(resolution_from),
    to: String(resolution_to),
  };
}

/** The number is the company's prefix and a consecutive inside its DIAN resolution's range. */
function checkNumbering(doc: InvoiceDocumentRow, problems: string[]): void {
  const c = doc.company;
  const prefix = c.invoice_prefix ?? "";
  const consecutive = doc.number.startsWith(prefix) ? doc.number.slice(prefix.length) : "";
  if (!/^[0-9]+$/.test(consecutive)) {
    problems.push(`number ${doc.number} must be the prefix "${prefix}" followed by digits`);
    return;
  }
  const n = Number(consecutive);
  if (
    c.resolution_from != null &&
    c.resolution_to != null &&
    !(n >= c.resolution_from && n <= c.resolution_to)
  ) {
    problems.push(
      `number ${doc.number} is outside the authorised range ${c.resolution_from}–${c.resolution_to}`,
    );
  }
  // its period (FAD09a) is one of DIAN's rules: ../../co/authority-rules.ts
}
