/**
 * A second reading of a document's amounts just before they leave, in exact integer cents, on the
 * very request a provider gets: each line's base from its quantity, price and discounts or charges;
 * its taxes from their bases and rates; the document's taxes per scheme and rate as the sums of its
 * lines'; the LegalMonetaryTotal; the withholdings and what the buyer still pays. The database
 * computes every amount (supabase/migrations/…_amounts.sql), so for a stored document this cannot
 * fail: it is a guard against a builder that drops or moves a part, named after DIAN's rules
 * (brief-business §4–§6, as Vendix transcribes Anexo 1.9: FAV06, FAX07, FAS02/04, FAU02/04/06/08/14,
 * FAT07).
 */

import { toCents } from "../../kernel/money.ts";
import { centsToMoney, type SubmitDocumentRequest } from "../../ports/providers/protocol.ts";

type Request = SubmitDocumentRequest;
type Subtotal = Request["tax_totals"][number]["subtotals"][number];

/** `numerator / denominator` rounded half away from zero, for non-negative operands. */
function roundDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (denominator * 2n);
}

/** A decimal text as an integer of `scale` decimals: ("1.5", 6) → 1500000n. */
function scaled(value: string, scale: number): bigint {
  const [whole = "0", fraction = ""] = value.split(".");
  return BigInt(whole) * 10n ** BigInt(scale) + BigInt(fraction.padEnd(scale, "0").slice(0, scale) || "0");
}

const cents = (value: string) => toCents(value);
const money = centsToMoney;
/** `percent` % of `base` cents, rounded to the cent (percent with up to 3 decimals). */
const percentOf = (base: bigint, percent: string) => roundDiv(base * scaled(percent, 3), 100_000n);
/** A per-unit tax: `per_unit_amount` for every `per_quantity` units of the measure. */
const perUnitTax = (s: { per_unit_amount: string; base_unit_measure: string; per_quantity?: string }) =>
  roundDiv(scaled(s.base_unit_measure, 6) * cents(s.per_unit_amount), scaled(s.per_quantity ?? "1", 6));

/** The key a subtotal is grouped by in the document's TaxTotal: its rate, or its per-unit terms. */
function rateKey(s: Subtotal): string {
  return "percent" in s ? `% ${s.percent}` : `u ${s.per_unit_amount} ${s.per_quantity ?? "1"} ${s.unit_code}`;
}

/**
 * Every amount of `doc` that does not follow from the others, said with the field. `exactLineTaxes`:
 * each line's percentage tax is its base × rate to the cent — an invoice's; a credit note's part
 * of a tax is what makes the parts of a line add up to its tax, within a cent of that.
 */
export function arithmeticProblems(doc: Request, options: { exactLineTaxes: boolean }): string[] {
  const problems: string[] = [];
  const sums = new Map<string, Map<string, { taxable: bigint; measure: bigint; tax: bigint }>>();
  let subtotal = 0n;
  let taxable = 0n;
  let taxTotal = 0n;
  for (const line of doc.lines) {
    const at = `line ${line.position}`;
    const gross = roundDiv(scaled(line.quantity, 6) * scaled(line.unit_price, 6), 10n ** 10n);
    let extension = gross;
    for (const a of line.allowance_charges ?? []) {
      if (a.percent !== undefined && cents(a.amount) !== percentOf(cents(a.base_amount), a.percent)) {
        problems.push(
          `${at}: allowance_charges[${a.id}] amount ${a.amount} ≠ ${a.percent}% of ${a.base_amount}`,
        );
      }
      extension += a.charge ? cents(a.amount) : -cents(a.amount);
    }
    if (cents(line.line_extension) !== extension) {
      problems.push(
        `${at}: line_extension ${line.line_extension} ≠ quantity × unit_price − discounts + charges = ${money(extension < 0n ? 0n : extension)}`,
      );
    }
    let lineTax = 0n;
    for (const tax of line.taxes) {
      if ("percent" in tax) {
        if (tax.taxable_amount !== line.line_extension) {
          problems.push(`${at}: taxes ${tax.code} taxable_amount ${tax.taxable_amount} ≠ line_extension`);
        }
        const expected = percentOf(cents(tax.taxable_amount), tax.percent);
        const off = cents(tax.tax_amount) - expected;
        if (options.exactLineTaxes ? off !== 0n : off > 1n || off < -1n) {
          problems.push(
            `${at}: taxes ${tax.code} tax_amount ${tax.tax_amount} ≠ ${tax.percent}% of ${tax.taxable_amount} = ${money(expected)}`,
          );
        }
        taxable += cents(tax.taxable_amount);
      } else if (options.exactLineTaxes && cents(tax.tax_amount) !== perUnitTax(tax)) {
        problems.push(
          `${at}: taxes ${tax.code} tax_amount ${tax.tax_amount} ≠ ${tax.base_unit_measure} × ${tax.per_unit_amount} per ${tax.per_quantity ?? "1"}`,
        );
      }
      const byRate = sums.get(tax.code) ?? new Map();
      sums.set(tax.code, byRate);
      const key = rateKey(tax);
      const sum = byRate.get(key) ?? { taxable: 0n, measure: 0n, tax: 0n };
      byRate.set(key, sum);
      sum.taxable += "percent" in tax ? cents(tax.taxable_amount) : 0n;
      sum.measure += "percent" in tax ? 0n : scaled(tax.base_unit_measure, 6);
      sum.tax += cents(tax.tax_amount);
      lineTax += cents(tax.tax_amount);
    }
    if (cents(line.tax_amount) !== lineTax) {
      problems.push(`${at}: tax_amount ${line.tax_amount} ≠ the sum of its taxes ${money(lineTax)}`);
    }
    subtotal += extension;
    taxTotal += lineTax;
  }

  // the document's TaxTotal: one per scheme, its amount the sum of one subtotal per rate (FAS02, FAS04)
  const reported = new Set<string>();
  for (const total of doc.tax_totals) {
    const byRate = sums.get(total.code);
    reported.add(total.code);
    let sum = 0n;
    for (const s of total.subtotals) {
      const lines = byRate?.get(rateKey(s));
      const measure = "percent" in s ? 0n : scaled(s.base_unit_measure, 6);
      const base = "percent" in s ? cents(s.taxable_amount) : 0n;
      if (
        !lines ||
        lines.tax !== cents(s.tax_amount) ||
        lines.taxable !== base ||
        lines.measure !== measure
      ) {
        problems.push(`tax_totals ${total.code} ${rateKey(s)}: not the sum of the lines' (${s.tax_amount})`);
      }
      sum += cents(s.tax_amount);
    }
    if (sum !== cents(total.tax_amount) || total.subtotals.length !== (byRate?.size ?? 0)) {
      problems.push(
        `tax_totals ${total.code}: tax_amount ${total.tax_amount} ≠ the sum of one subtotal per rate`,
      );
    }
  }
  for (const code of sums.keys()) {
    if (!reported.has(code)) problems.push(`tax_totals: the lines' ${code} is missing`);
  }

  const t = doc.totals;
  const check = (field: string, value: string | undefined, expected: bigint) => {
    if (cents(value ?? "0.00") !== expected) {
      problems.push(`totals.${field} ${value ?? "0.00"} ≠ ${money(expected < 0n ? 0n : expected)}`);
    }
  };
  check("subtotal", t.subtotal, subtotal);
  check("tax_exclusive_amount", t.tax_exclusive_amount, taxable);
  check("tax_total", t.tax_total, taxTotal);
  check("tax_inclusive_amount", t.tax_inclusive_amount, subtotal + taxTotal);
  let allowances = 0n;
  let charges = 0n;
  for (const a of doc.allowance_charges ?? []) {
    if (a.percent !== undefined && cents(a.amount) !== percentOf(cents(a.base_amount), a.percent)) {
      problems.push(`allowance_charges[${a.id}] amount ${a.amount} ≠ ${a.percent}% of ${a.base_amount}`);
    }
    if (a.charge) charges += cents(a.amount);
    else allowances += cents(a.amount);
  }
  check("allowance_total_amount", t.allowance_total_amount, allowances);
  check("charge_total_amount", t.charge_total_amount, charges);
  const payable = subtotal + taxTotal - allowances + charges;
  check("total", t.total, payable);
  const prepaid = (doc.prepayments ?? []).reduce((s, p) => s + cents(p.paid_amount), 0n);
  check("prepaid_amount", t.prepaid_amount, prepaid);

  // withholdings: ReteIVA on the IVA, the others on the LineExtensionAmount (…_amounts.sql; FAT07)
  const iva = doc.tax_totals.find((x) => x.code === "01");
  let withheld = 0n;
  for (const w of doc.withholdings ?? []) {
    const base = w.code === "05" ? cents(iva?.tax_amount ?? "0.00") : subtotal;
    if (cents(w.taxable_amount) !== base || cents(w.tax_amount) !== percentOf(base, w.percent)) {
      problems.push(`withholdings ${w.code}: ${w.tax_amount} ≠ ${w.percent}% of ${money(base)}`);
    }
    withheld += cents(w.tax_amount);
  }
  check("withholding_total_amount", t.withholding_total_amount, withheld);
  if (t.net_payable_amount !== undefined)
    check("net_payable_amount", t.net_payable_amount, payable - withheld - prepaid);
  return problems;
}
