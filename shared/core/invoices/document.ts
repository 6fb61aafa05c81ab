/**
 * From the stored invoice to the provider's submit request, with the checks that must pass before
 * anything is sent: required fields present, what this version can send, each line's arithmetic
 * right, the totals equal to the sum of the lines, and DIAN's rules the database does not refuse
 * (../../co/authority-rules.ts: currency, DIVIPOLA, dates, buyer), those with DIAN's rule id. Every
 * problem is reported with the field it concerns; amounts are compared in exact integer cents. The database computes those amounts from
 * the inputs (supabase/migrations/…_amounts.sql), so the arithmetic checks cannot fail for a stored
 * invoice: they are kept as a second reading of what is about to leave.
 */

import { asAuthorityRules, invoiceRuleProblems } from "../../co/authority-rules.ts";
import { toCents } from "../../kernel/money.ts";
import type { Environment, InvoiceDocumentRow } from "../../kernel/rows.ts";
import { isoTimeWithOffset } from "../../pdf/format.ts";
import { centsToMoney, SubmitDocumentRequest } from "../../ports/providers/protocol.ts";
import type { PreparedDocument } from "../documents/kind.ts";
import {
  buyerProblems,
  buyerRequest,
  decimal,
  issuerRequest,
  linesRequest,
  opt,
  totalsRequest,
  unsendableContent,
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
    ...doc.lines.flatMap((l) => [l.unit_price, l.line_extension, l.tax_amount, l.quantity]),
  ];
  if (amounts.some((a) => !Number.isFinite(a) || Math.abs(a) >= MAX_AMOUNT)) {
    return {
      ok: false,
      problems: ["amounts of 1,000,000,000,000 or more cannot be processed"],
    };
  }
  const unsendable = unsendableContent(doc);
  const problems: string[] = [...unsendable];
  const company = doc.company;
  problems.push(...buyerProblems(doc));
  if (!company.technical_key)
    problems.push("the company has no technical key (ClTec) for its numbering range");
  if (doc.lines.length === 0) problems.push("the invoice has no lines");
  checkNumbering(doc, problems);
  // the one-tax arithmetic below describes only what this version sends
  if (unsendable.length === 0) checkArithmetic(doc, problems);
  // DIAN's rules the database lets through (../../co/authority-rules.ts); a problem found above in the
  // same words (the buyer's check digit, a due date the payload reports) is said once
  const broken = invoiceRuleProblems(doc);
  for (const { message } of broken) if (!problems.includes(message)) problems.push(message);
  if (problems.length > 0) {
    return broken.length > 0
      ? { ok: false, problems, rules: asAuthorityRules(broken) }
      : { ok: false, problems };
  }

  const parsed = SubmitDocumentRequest.safeParse(toRequest(doc, environment));
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) };
  }
  return { ok: true, request: parsed.data };
}

/** Each line's base and tax, and the totals, as the one-tax builders send them, to the cent. */
function checkArithmetic(doc: InvoiceDocumentRow, problems: string[]): void {
  let subtotal = 0n;
  let taxTotal = 0n;
  for (const line of doc.lines) {
    const at = `line ${line.position}`;
    const extension = cents(line.line_extension);
    const expected = roundDiv(micros(line.quantity) * cents(line.unit_price), 1_000_000n);
    if (extension !== expected) {
      problems.push(`${at}: line_extension ${money(extension)} ≠ quantity × unit_price = ${money(expected)}`);
    }
    const tax = cents(line.tax_amount);
    const expectedTax = roundDiv(extension * BigInt(Math.round(line.tax_rate * 100)), 10_000n);
    if (tax !== expectedTax) {
      problems.push(
        `${at}: tax_amount ${money(tax)} ≠ ${line.tax_rate}% of ${money(extension)} = ${money(expectedTax)}`,
      );
    }
    if (line.tax_code === "ZZ" && line.tax_rate !== 0)
      problems.push(`${at}: tax_code ZZ (no tax) needs tax_rate 0`);
    subtotal += extension;
    taxTotal += tax;
  }
  if (cents(doc.subtotal) !== subtotal) {
    problems.push(`subtotal ${money(cents(doc.subtotal))} ≠ sum of line_extension ${money(subtotal)}`);
  }
  if (cents(doc.tax_total) !== taxTotal) {
    problems.push(`tax_total ${money(cents(doc.tax_total))} ≠ sum of tax_amount ${money(taxTotal)}`);
  }
  if (cents(doc.total) !== cents(doc.subtotal) + cents(doc.tax_total)) {
    problems.push(
      `total ${money(cents(doc.total))} ≠ subtotal + tax_total ${money(cents(doc.subtotal) + cents(doc.tax_total))}`,
    );
  }
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
    currency: doc.currency,
    payment_form: doc.payment_form,
    payment_method: doc.payment_method,
    notes: opt(doc.notes),
    issuer: issuerRequest(doc.company, { technical_key: doc.company.technical_key }),
    buyer: buyerRequest(doc),
    lines: linesRequest(doc.lines),
    totals: totalsRequest(doc),
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

const cents = toCents;

/** A quantity (numeric(18,6)) in millionths. */
function micros(value: number): bigint {
  const [whole = "0", fraction = ""] = decimal(value).split(".");
  return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, "0").slice(0, 6));
}

/** Division rounding half away from zero, for non-negative operands. */
function roundDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (denominator * 2n);
}

const money = centsToMoney;
