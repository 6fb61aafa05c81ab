/**
 * What the printed document says of its amounts, formatted, from the database's computed amounts
 * (docs/adr/0009): each tax by scheme and rate (a per-unit one by its measure), the withholdings,
 * the document's discounts and charges, the advances, the totals with the net the buyer still
 * pays, and, for a deal in another currency, its totals in that currency beside the pesos the
 * authority reads. Every sum is the database's, read in exact cents; none is computed here.
 */

import { toCents } from "../kernel/money.ts";
import type {
  AllowanceChargeRow,
  CurrencyTotalsRow,
  InvoiceLineRow,
  LineTaxRow,
  TaxTotalRow,
} from "../kernel/rows.ts";
import { formatDate, formatMoney, formatQuantity, formatRate } from "./format.ts";
import * as label from "./labels.ts";

/** The currency of the amounts the authority reads and the PDF prints first. */
export const DOCUMENT_CURRENCY = "COP";

/** A row of the tax (or withholding) breakdown. */
export interface TaxRow {
  name: string;
  rate: string;
  base: string;
  amount: string;
}

export interface TotalRow {
  label: string;
  value: string;
  grand?: boolean;
}

const pesos = (cents: bigint) => formatMoney(cents, DOCUMENT_CURRENCY);

/** A tax's rate as printed: "19 %", or per unit "$ 70,00 por NIU", "$ 35,00 por 100 ML". */
export function taxRate(t: Omit<LineTaxRow, "code" | "name">): string {
  if (t.percent != null) return formatRate(t.percent);
  const per = t.per_quantity && t.per_quantity !== 1 ? `${formatQuantity(t.per_quantity)} ` : "";
  return `${pesos(toCents(t.per_unit_amount ?? 0))} por ${per}${label.unitLabel(t.measure_unit_code ?? "NIU")}`;
}

/** A line's taxes in one cell: "IVA 19 % + Bolsas $ 70,00 por Unidad"; none: "No gravado". */
export function lineTaxes(line: InvoiceLineRow): string {
  if (line.taxes.length === 0) return label.taxName("ZZ", 0);
  return line.taxes
    .map((t) => `${label.taxName(t.code, t.percent ?? null, t.name)} ${taxRate(t)}`)
    .join(" + ");
}

/** A line's discounts and charges, said after its description: "Descuento 10 %: -$ 10.000,00". */
export function lineAllowances(line: InvoiceLineRow): string | null {
  if (line.allowance_charges.length === 0) return null;
  return line.allowance_charges.map((a) => allowanceText(a)).join("; ");
}

function allowanceText(a: AllowanceChargeRow): string {
  const what = a.charge ? "Cargo" : "Descuento";
  const why = a.reason ? ` (${a.reason})` : "";
  const rate = a.percent != null ? ` ${formatRate(a.percent)}` : "";
  return `${what}${rate}${why}: ${a.charge ? "+" : "-"}${pesos(toCents(a.amount))}`;
}

/**
 * The tax breakdown: one row per scheme and rate, in the database's order (IVA, INC, ICA first),
 * a per-unit tax with its measure as base; the lines excluded from every tax ("No gravado") last.
 */
export function taxRows(taxTotals: TaxTotalRow[], lines: InvoiceLineRow[]): TaxRow[] {
  const rows: TaxRow[] = taxTotals.flatMap((total) =>
    total.subtotals.map((s) => ({
      name: label.taxName(total.code, s.percent ?? null, total.name),
      rate: taxRate(s),
      base:
        s.percent != null
          ? pesos(toCents(s.taxable_amount ?? 0))
          : `${formatQuantity(s.measure ?? 0)} ${label.unitLabel(s.measure_unit_code ?? "NIU")}`,
      amount: pesos(toCents(s.tax_amount)),
    })),
  );
  const excluded = lines.filter((l) => l.taxes.length === 0);
  if (excluded.length > 0) {
    rows.push({
      name: label.taxName("ZZ", 0),
      rate: "—",
      base: pesos(excluded.reduce((sum, l) => sum + toCents(l.line_extension), 0n)),
      amount: pesos(0n),
    });
  }
  return rows;
}

/** The withholdings: ReteFuente, ReteIVA, ReteICA with their bases and rates. */
export function withholdingRows(withholdings: TaxTotalRow[] | undefined): TaxRow[] {
  return (withholdings ?? []).flatMap((w) =>
    w.subtotals.map((s) => ({
      name: label.taxName(w.code, s.percent ?? null, w.name),
      rate: formatRate(s.percent ?? 0),
      base: pesos(toCents(s.taxable_amount ?? 0)),
      amount: pesos(toCents(s.tax_amount)),
    })),
  );
}

/** What a document's totals block needs of it (an invoice's or a credit note's payload). */
export interface PrintedAmounts {
  currency: string;
  exchange_rate: number | null;
  exchange_rate_date: string | null;
  subtotal: number;
  tax_total: number;
  total: number;
  tax_totals: TaxTotalRow[];
  allowance_charges: AllowanceChargeRow[];
  currency_totals: CurrencyTotalsRow | null;
  prepaid_amount?: number;
  withholding_total_amount?: number;
  net_payable_amount?: number;
}

/**
 * The totals: LineExtensionAmount, each scheme's tax, the taxes' sum, the document's discounts and
 * charges, then the payable amount; with withholdings or advances, those and the net the buyer
 * pays (the grand total then); for another currency, the deal's totals in it.
 */
export function totalRows(doc: PrintedAmounts, grandTotal: string): TotalRow[] {
  const rows: TotalRow[] = [{ label: "Subtotal (valor bruto)", value: pesos(toCents(doc.subtotal)) }];
  const iva = doc.tax_totals.find((t) => t.code === "01");
  // IVA always (a zero says there is none), every other scheme when charged
  rows.push({ label: "IVA", value: pesos(toCents(iva?.tax_amount ?? 0)) });
  for (const t of doc.tax_totals) {
    if (t.code !== "01")
      rows.push({ label: label.taxLongName(t.code, t.name), value: pesos(toCents(t.tax_amount)) });
  }
  rows.push({ label: "Total impuestos", value: pesos(toCents(doc.tax_total)) });
  for (const a of doc.allowance_charges) {
    const what = a.charge ? "Cargo" : "Descuento";
    rows.push({
      label: a.reason
        ? `${what}: ${a.reason}`
        : a.percent != null
          ? `${what} ${formatRate(a.percent)}`
          : what,
      value: `${a.charge ? "" : "-"}${pesos(toCents(a.amount))}`,
    });
  }
  const withheld = toCents(doc.withholding_total_amount ?? 0);
  const prepaid = toCents(doc.prepaid_amount ?? 0);
  const net = withheld > 0n || prepaid > 0n;
  rows.push({ label: net ? "Total factura" : grandTotal, value: pesos(toCents(doc.total)), grand: !net });
  if (net) {
    if (withheld > 0n) rows.push({ label: "Retenciones", value: `-${pesos(withheld)}` });
    if (prepaid > 0n) rows.push({ label: "Anticipos recibidos", value: `-${pesos(prepaid)}` });
    rows.push({ label: "NETO A PAGAR", value: pesos(toCents(doc.net_payable_amount ?? 0)), grand: true });
  }
  const deal = doc.currency_totals;
  if (doc.currency !== DOCUMENT_CURRENCY && deal) {
    const foreign = (value: number) => formatMoney(toCents(value), doc.currency);
    rows.push(
      { label: `Subtotal en ${doc.currency}`, value: foreign(deal.line_extension_amount) },
      { label: `Impuestos en ${doc.currency}`, value: foreign(deal.tax_total) },
      { label: `Total en ${doc.currency}`, value: foreign(deal.payable_amount) },
    );
    if (net) rows.push({ label: `Neto en ${doc.currency}`, value: foreign(deal.net_payable_amount) });
  }
  return rows;
}

/** The deal's currency and rate, printed with the document's data: "3.919,109578 COP por USD (20/11/2026)". */
export function exchangeRateText(doc: PrintedAmounts): string | null {
  if (doc.currency === DOCUMENT_CURRENCY || doc.exchange_rate == null) return null;
  const date = doc.exchange_rate_date ? ` (${formatDate(doc.exchange_rate_date)})` : "";
  return `${formatQuantity(doc.exchange_rate)} ${DOCUMENT_CURRENCY} por ${doc.currency}${date}`;
}
