/**
 * The new content of a real invoice (several taxes a line, per-unit taxes, discounts and charges,
 * withholdings, a foreign currency), written into a devkit invoice's unsigned tree by hand — until
 * the builder says it (issue 36, phase 2) — with the arithmetic done here in integer cents: each
 * line's amounts rounded half up on its own line (as Odoo and the database round), the document's
 * groups per scheme and rate summed from the lines, the totals as brief-business §6 gives them.
 * Signed with ./ubl-edit.ts `signEdited`.
 */
import type { UnsignedDocument } from "../../shared/providers/dian/ubl.ts";
import { el, insertAfter, remove, setText, text } from "./ubl-edit.ts";

export interface TaxSpec {
  code: string;
  name: string;
  /** A percentage, as written (`19.00`). */
  percent?: string;
  /** Per unit: the amount per unit of measure and the measure (BaseUnitMeasure) the line sold. */
  perUnit?: { amount: string; measure: string; unitCode: string };
}

export interface LineSpec {
  quantity: string;
  price: string;
  discounts?: string[];
  charges?: string[];
  taxes: TaxSpec[];
}

export interface ContentSpec {
  lines: LineSpec[];
  discounts?: { amount: string; reasonCode: string }[];
  charges?: string[];
  /** Each on its base (the IVA for ReteIVA, the lines' amount for the others: ADR 0009). */
  withholdings?: { code: string; name: string; percent: string; base: "iva" | "lines" }[];
  exchange?: { target: string; rate: string; date: string };
}

/** `text` as an integer and its number of decimals. */
function units(value: string): { n: bigint; scale: number } {
  const [whole = "0", fraction = ""] = value.split(".");
  return { n: BigInt(whole + fraction), scale: fraction.length };
}

/** The product of `values`, divided by 10^`shift`, in cents rounded half up (positive values). */
function product(values: string[], shift = 0): bigint {
  let n = 1n;
  let scale = 0;
  for (const v of values) {
    const u = units(v);
    n *= u.n;
    scale += u.scale;
  }
  const divisor = 10n ** BigInt(scale + shift - 2);
  return scale + shift >= 2 ? (n * 2n + divisor) / (divisor * 2n) : n * 10n ** BigInt(2 - scale - shift);
}

export const money = (cents: bigint) =>
  `${cents < 0n ? "-" : ""}${(cents < 0n ? -cents : cents) / 100n}.${String((cents < 0n ? -cents : cents) % 100n).padStart(2, "0")}`;
const sumOf = (values: bigint[]) => values.reduce((a, b) => a + b, 0n);

interface Computed {
  code: string;
  name: string;
  percent?: string;
  perUnit?: TaxSpec["perUnit"];
  taxable?: bigint;
  measure?: string;
  amount: bigint;
}

/** A tax on a line of `extension` cents. */
function taxOf(tax: TaxSpec, extension: bigint): Computed {
  if (tax.perUnit) {
    const per100 = tax.code === "34" && tax.perUnit.unitCode === "MLT";
    const amount = product([tax.perUnit.measure, tax.perUnit.amount], per100 ? 2 : 0);
    return { ...tax, measure: tax.perUnit.measure, amount };
  }
  return { ...tax, taxable: extension, amount: product([money(extension), tax.percent ?? "0"], 2) };
}

function subtotal(currency: string, t: Computed) {
  const amount = (name: string, cents: bigint) => text(name, money(cents), { currencyID: currency });
  return el(
    "cac:TaxSubtotal",
    {},
    t.taxable !== undefined && amount("cbc:TaxableAmount", t.taxable),
    amount("cbc:TaxAmount", t.amount),
    t.perUnit && text("cbc:BaseUnitMeasure", t.measure ?? "0", { unitCode: t.perUnit.unitCode }),
    t.perUnit && text("cbc:PerUnitAmount", t.perUnit.amount, { currencyID: currency }),
    el(
      "cac:TaxCategory",
      {},
      t.percent !== undefined && text("cbc:Percent", t.percent),
      el("cac:TaxScheme", {}, text("cbc:ID", t.code), text("cbc:Name", t.name)),
    ),
  );
}

function taxTotal(name: string, currency: string, subtotals: Computed[]) {
  return el(
    name,
    {},
    text("cbc:TaxAmount", money(sumOf(subtotals.map((s) => s.amount))), { currencyID: currency }),
    ...subtotals.map((s) => subtotal(currency, s)),
  );
}

function allowanceCharge(currency: string, id: number, charge: boolean, amount: string, reason?: string) {
  return el(
    "cac:AllowanceCharge",
    {},
    text("cbc:ID", String(id)),
    text("cbc:ChargeIndicator", String(charge)),
    reason !== undefined && text("cbc:AllowanceChargeReasonCode", reason),
    text("cbc:Amount", amount, { currencyID: currency }),
  );
}

/** The document's groups: per scheme (IVA, INC, ICA first), one subtotal per rate, summed over the lines. */
function groups(taxes: Computed[]): Computed[][] {
  const order = (code: string) => {
    const first = ["01", "04", "03"].indexOf(code);
    return first === -1 ? 3 : first;
  };
  const bySchemeAndRate = new Map<string, Map<string, Computed>>();
  for (const t of taxes) {
    const scheme = bySchemeAndRate.get(t.code) ?? new Map<string, Computed>();
    bySchemeAndRate.set(t.code, scheme);
    const rate = t.perUnit ? `${t.perUnit.amount}/${t.perUnit.unitCode}` : (t.percent ?? "");
    const seen = scheme.get(rate);
    scheme.set(
      rate,
      seen
        ? {
            ...seen,
            amount: seen.amount + t.amount,
            taxable: t.taxable === undefined ? undefined : (seen.taxable ?? 0n) + t.taxable,
            measure:
              t.measure === undefined ? undefined : String(Number(seen.measure ?? 0) + Number(t.measure)),
          }
        : t,
    );
  }
  return [...bySchemeAndRate.entries()]
    .sort(([a], [b]) => order(a) - order(b) || a.localeCompare(b))
    .map(([, rates]) => [...rates.values()]);
}

/**
 * Replaces an unsigned invoice's lines, taxes and totals with `spec`'s, computed here. Returns the
 * totals it wrote, in cents.
 */
export function replaceContent(doc: UnsignedDocument, spec: ContentSpec) {
  const { root } = doc;
  const currency = "COP";
  const amount = (name: string, cents: bigint) => text(name, money(cents), { currencyID: currency });
  const lines = spec.lines.map((line, i) => {
    const gross = product([line.quantity, line.price]);
    const discounts = (line.discounts ?? []).map((d) => product([d]));
    const charges = (line.charges ?? []).map((c) => product([c]));
    const extension = gross - sumOf(discounts) + sumOf(charges);
    const taxes = line.taxes.map((t) => taxOf(t, extension));
    const element = el(
      "cac:InvoiceLine",
      {},
      text("cbc:ID", String(i + 1)),
      text("cbc:InvoicedQuantity", line.quantity, { unitCode: "94" }),
      amount("cbc:LineExtensionAmount", extension),
      ...(line.discounts ?? []).map((d, j) => allowanceCharge(currency, j + 1, false, d)),
      ...(line.charges ?? []).map((c, j) => allowanceCharge(currency, discounts.length + j + 1, true, c)),
      ...taxes.map((t) => taxTotal("cac:TaxTotal", currency, [t])),
      el("cac:Item", {}, text("cbc:Description", `Artículo ${i + 1}`)),
      el(
        "cac:Price",
        {},
        text("cbc:PriceAmount", line.price, { currencyID: currency }),
        text("cbc:BaseQuantity", line.quantity, { unitCode: "94" }),
      ),
    );
    return { element, extension, taxes };
  });
  const taxes = lines.flatMap((l) => l.taxes);
  const extension = sumOf(lines.map((l) => l.extension));
  const taxSum = sumOf(taxes.map((t) => t.amount));
  const exclusive = sumOf(taxes.map((t) => t.taxable ?? 0n));
  const allowance = sumOf((spec.discounts ?? []).map((d) => product([d.amount])));
  const charge = sumOf((spec.charges ?? []).map((c) => product([c])));
  const iva = sumOf(taxes.filter((t) => t.code === "01").map((t) => t.amount));
  const withholdings = (spec.withholdings ?? []).map((w) => {
    const base = w.base === "iva" ? iva : extension;
    return {
      code: w.code,
      name: w.name,
      percent: w.percent,
      taxable: base,
      amount: product([money(base), w.percent], 2),
    };
  });
  const payable = extension + taxSum - allowance + charge;

  for (const name of ["cac:TaxTotal", "cac:LegalMonetaryTotal", "cac:InvoiceLine"]) remove(root, name);
  setText(root, "cbc:LineCountNumeric", String(lines.length));
  const ex = spec.exchange;
  insertAfter(
    root,
    "cac:PaymentMeans",
    ...(spec.discounts ?? []).map((d, j) => allowanceCharge(currency, j + 1, false, d.amount, d.reasonCode)),
    ...(spec.charges ?? []).map((c, j) =>
      allowanceCharge(currency, (spec.discounts?.length ?? 0) + j + 1, true, c),
    ),
    ex &&
      el(
        "cac:PaymentExchangeRate",
        {},
        text("cbc:SourceCurrencyCode", currency),
        text("cbc:TargetCurrencyCode", ex.target),
        text("cbc:TargetCurrencyBaseRate", "1.00"),
        text("cbc:CalculationRate", ex.rate),
        text("cbc:Date", ex.date),
      ),
    ...groups(taxes).map((g) => taxTotal("cac:TaxTotal", currency, g)),
    ...withholdings.map((w) => taxTotal("cac:WithholdingTaxTotal", currency, [w])),
    el(
      "cac:LegalMonetaryTotal",
      {},
      amount("cbc:LineExtensionAmount", extension),
      amount("cbc:TaxExclusiveAmount", exclusive),
      amount("cbc:TaxInclusiveAmount", extension + taxSum),
      allowance > 0n && amount("cbc:AllowanceTotalAmount", allowance),
      charge > 0n && amount("cbc:ChargeTotalAmount", charge),
      amount("cbc:PayableAmount", payable),
    ),
    ...lines.map((l) => l.element),
  );
  return { extension, taxes: taxSum, exclusive, allowance, charge, payable };
}
