/**
 * DIAN's arithmetic on a received document, recomputed from its XML alone with exact decimals
 * (./decimal.ts), never with our builder's or the database's code. Sources (brief-business §3–§6):
 * [V] Vendix's transcription of Anexo 1.9 (`fiscal-document-requirements.ts`, the rule's message as
 * the Anexo prints it; `ubl-common.builder.ts`, `invoice-flow.service.ts` quote FAT01/02/04, FAX01/
 * 02/04, FAV06), [O] Odoo 19 (`account_edi_xml_ubl_dian.py` records FAS01b's message), [MP]
 * Megapractical's copy of the Anexo's FAX07 row (knowledge.megapractical.com/…/knowledge/fax7).
 * Messages marked "ours" are written here in DIAN's shape: no source gave DIAN's words.
 *
 * Tolerances. A sum (FAU02/04/06/08/14, FAS02, FAX02, FAT02) is compared to the cent, amounts
 * truncated to two decimals as DIAN reads them ([D] `TruncateDecimal`): every addend is written, so
 * an exact sum is always possible. A product (FAS07, FAX07, FAT07, FAV06) may differ from the amount
 * written by the `productToleranceCents` knob, 200 (±2.00) by default: DIAN's tolerance was not
 * established (the brief: facho's Anexo summary claims ±2.00, Vendix assumes one cent); rounding each
 * line on its own — Odoo's default, which DIAN accepts, and the database's (ADR 0009) — puts a
 * document subtotal up to half a cent per line away from its base × rate, so one cent would refuse
 * documents DIAN takes.
 */
import { TAX_SCHEMES, WITHHOLDING_SCHEMES } from "./code-lists.ts";
import type { LineContent, Subtotal, TaxGroup } from "./content.ts";
import {
  canonical,
  cents,
  compare,
  type Decimal,
  decimal,
  minus,
  plus,
  shifted,
  times,
  within,
} from "./decimal.ts";
import type { ReceivedDocument } from "./document.ts";
import { finding, type RuleFinding, type RuleSettings } from "./finding.ts";

const MESSAGES = {
  FAU02:
    "El Valor Bruto antes de tributos no es igual a la suma de los valores de las líneas de la factura que contienen el valor comercial",
  FAU04:
    "Base Imponible es distinto a la suma de los valores de las bases imponibles de todas líneas de detalle.",
  FAU06:
    "Valor Bruto más tributos es diferente a Valor Bruto de la factura que contienen el valor comercial más la Suma de los Tributos de todas las líneas de detalle.",
  FAU08: "Total descuentos es diferente de la suma de todos los descuentos aplicados al total de la factura",
  FAU14:
    "Valor a Pagar de Factura es distinto de la Suma de Valor Bruto más tributos - Valor del Descuento Total + Valor del Cargo Total",
  // ours
  FAS02: "Valor total del tributo es diferente a la suma de los valores de sus subtotales",
  FAS04: "Debe ser informado un grupo de estos para cada tarifa.",
  FAS07:
    "El valor del tributo informado no corresponde al producto del porcentaje aplicado sobre la base imponible",
  // [MP], the per-unit form of FAX07, for FAS07's too
  PER_UNIT:
    "El valor del tributo correspondiente al precio unitario del impuesto multiplicado por la cantidad de item vendidos",
  // ours
  FAX01: "Existe más de un grupo TaxTotal con el mismo tributo en la línea",
  FAX02: "Valor total del tributo de la línea es diferente a la suma de los valores de sus subtotales",
  FAX04: "Debe ser informado un grupo de estos para cada tarifa.",
  // [MP]
  FAX07:
    "El valor del tributo correspondiente a una de las tarifas correspondientes es diferente del producto del porcentaje aplicado sobre la base imponible",
  // ours, from [V]'s rule rows
  FAT01: "Existe más de un grupo WithholdingTaxTotal con el mismo tributo",
  FAT02: "Valor total de la retención es diferente a la suma de los valores de sus subtotales",
  FAT04: "Debe ser informado un grupo de estos para cada tarifa.",
  FAT07:
    "El valor de la retención informada no corresponde al producto del porcentaje aplicado sobre la base",
  FAV06:
    "El valor de la línea no corresponde al precio unitario por la cantidad, menos los descuentos más los cargos de la línea",
  VLR01: "Los valores monetarios/porcentajes deben corresponder a valores Positivos",
  // [O]
  FAS01b: "Tributo IVA (01), INC (04) informado no coincide, revisar Porcentaje, Nombre y ID.",
  // ours
  FAT12: "Identificador del tributo retenido no corresponde a un valor de la lista",
  FAT13: "Nombre del tributo retenido no corresponde al identificador informado",
} as const;

type Rule = keyof typeof MESSAGES;
const HUNDRED: Decimal = { n: 100n, scale: 0 };
const rule = (doc: ReceivedDocument, code: Rule, message: string = MESSAGES[code]) =>
  finding(doc, code, message);

/** Σ of amounts in cents, or null when one of them is not a number (an absent one counts 0). */
function sum(values: (string | undefined)[]): bigint | null {
  let total = 0n;
  for (const value of values) {
    if (value === undefined || value === "") continue;
    const c = cents(value);
    if (c === null) return null;
    total += c;
  }
  return total;
}

const amount = (value: string | undefined) => (value === undefined || value === "" ? 0n : cents(value));
const same = (a: bigint | null, b: bigint | null) => a !== null && b !== null && a === b;
const isCharge = (indicator: string) => indicator === "true" || indicator === "1";

/** LegalMonetaryTotal (FAU02, FAU04, FAU06, FAU08, FAU14 [V]). ChargeTotalAmount's rule id was not found. */
function totalsFindings(doc: ReceivedDocument): RuleFinding[] {
  const t = doc.totals;
  const { lines } = doc;
  const out: RuleFinding[] = [];
  if (!same(amount(t.lineExtension), sum(lines.map((l) => l.lineExtension)))) out.push(rule(doc, "FAU02"));
  if (!same(amount(t.taxExclusive), sum(lines.flatMap((l) => l.taxable)))) out.push(rule(doc, "FAU04"));
  const lineTaxes = sum(lines.flatMap((l) => l.tax));
  const extension = amount(t.lineExtension);
  if (
    !same(amount(t.taxInclusive), extension !== null && lineTaxes !== null ? extension + lineTaxes : null)
  ) {
    out.push(rule(doc, "FAU06"));
  }
  const allowances = doc.content.allowanceCharges.filter((ac) => !isCharge(ac.charge));
  if (!same(amount(t.allowance), sum(allowances.map((ac) => ac.amount)))) out.push(rule(doc, "FAU08"));
  const parts = [t.taxInclusive, t.allowance, t.charge].map(amount);
  const [inclusive, allowance, charge] = parts as [bigint | null, bigint | null, bigint | null];
  const payable =
    inclusive !== null && allowance !== null && charge !== null ? inclusive - allowance + charge : null;
  if (!same(amount(t.payable), payable)) out.push(rule(doc, "FAU14"));
  return out;
}

/**
 * What a subtotal's tax should be: its base × Percent / 100, or, per unit (BaseUnitMeasure and
 * PerUnitAmount: bags 22, ICL 32, IBUA 34; brief-business §4), the measure × the amount per unit.
 * DIAN's own arithmetic for per-unit taxes was not established: the Anexo's FAX07 row [MP] reads
 * PerUnitAmount × InvoicedQuantity (bags: one unit of measure a bag), facho's summary PerUnitAmount ×
 * BaseUnitMeasure; the stand-in takes the latter, which is the former whenever a unit sold measures
 * one, and IBUA's rate per 100 mL when it is measured in millilitres (Odoo's invoice_sugar: 10 500 mL
 * at 35 = 3 675; ADR 0009). null when a figure is missing or not a number.
 */
function expectedTax(sub: Subtotal): { exact: Decimal; perUnit: boolean } | null {
  if (sub.perUnitAmount !== undefined) {
    const measure = decimal(sub.baseUnitMeasure);
    const rate = decimal(sub.perUnitAmount);
    if (!measure || !rate) return null;
    const per100 = sub.schemeId === "34" && (sub.unitCode === "MLT" || sub.unitCode === "ML");
    return { exact: shifted(times(measure, rate), per100 ? 2 : 0), perUnit: true };
  }
  const base = decimal(sub.taxable);
  const percent = decimal(sub.percent);
  if (!base || !percent) return null;
  return { exact: shifted(times(base, percent), 2), perUnit: false };
}

/** The subtotal's tax is its expected one, within the tolerance. */
function productHolds(sub: Subtotal, toleranceCents: number): { holds: boolean; perUnit: boolean } {
  const expected = expectedTax(sub);
  const written = decimal(sub.amount);
  if (!expected || !written) return { holds: false, perUnit: sub.perUnitAmount !== undefined };
  return { holds: within(expected.exact, written, toleranceCents), perUnit: expected.perUnit };
}

/** A subtotal's rate: its percent, or its amount per unit of measure (19.00 and 19 are one rate). */
function rateKey(sub: Subtotal): string {
  const perUnit = sub.perUnitAmount !== undefined;
  const value = perUnit ? sub.perUnitAmount : sub.percent;
  const d = decimal(value);
  const number = d ? canonical(d) : `text:${value ?? ""}`;
  return perUnit ? `unit:${number}:${sub.unitCode ?? ""}` : `percent:${number}`;
}

/** Whether two subtotals of a group have the same rate (FAS04, FAX04, FAT04: one subtotal per rate). */
function repeatsRate(group: TaxGroup): boolean {
  const keys = group.subtotals.map(rateKey);
  return new Set(keys).size !== keys.length;
}

/**
 * What is wrong with a subtotal's scheme, by DIAN's lists (./code-lists.ts): for a tax, FAS01b [O]
 * ("revisar Porcentaje, Nombre y ID": the ID listed, the name the ID's, IVA's and INC's percent one
 * of their rates as written, any other percent at most 100 with two or three decimals, a percent or
 * an amount per unit given); for a withholding, FAT12 (the ID) or FAT13 (the name) [V].
 */
function schemeProblem(sub: Subtotal, withholding = false): "FAS01b" | "FAT12" | "FAT13" | null {
  if (withholding) {
    const names = WITHHOLDING_SCHEMES[sub.schemeId];
    if (!names) return "FAT12";
    return names.includes(sub.schemeName) ? null : "FAT13";
  }
  const scheme = TAX_SCHEMES[sub.schemeId];
  if (!scheme) return "FAS01b";
  const named = scheme.names.length === 0 ? sub.schemeName !== "" : scheme.names.includes(sub.schemeName);
  if (!named) return "FAS01b";
  if (sub.perUnitAmount !== undefined) return sub.percent === undefined ? null : "FAS01b";
  if (sub.percent === undefined) return "FAS01b";
  if (scheme.rates) return scheme.rates.includes(sub.percent) ? null : "FAS01b";
  const percent = decimal(sub.percent);
  const inRange = percent !== null && compare(percent, HUNDRED) <= 0 && percent.n >= 0n;
  return /^\d{1,3}\.\d{2,3}$/.test(sub.percent) && inRange ? null : "FAS01b";
}

const groupSumHolds = (group: TaxGroup) =>
  same(amount(group.amount), sum(group.subtotals.map((s) => s.amount)));

/** The document's TaxTotal groups: FAS01b [O], FAS02, FAS04 [V], FAS07 [V] and its per-unit form. */
function documentTaxFindings(doc: ReceivedDocument, settings: RuleSettings): RuleFinding[] {
  const out: RuleFinding[] = [];
  for (const group of doc.content.taxTotals) {
    if (group.subtotals.length === 0) out.push(rule(doc, "FAS01b"));
    if (!groupSumHolds(group)) out.push(rule(doc, "FAS02"));
    if (repeatsRate(group)) out.push(rule(doc, "FAS04"));
    for (const sub of group.subtotals) {
      if (schemeProblem(sub)) out.push(rule(doc, "FAS01b"));
      const product = productHolds(sub, settings.productToleranceCents);
      if (!product.holds) out.push(rule(doc, "FAS07", product.perUnit ? MESSAGES.PER_UNIT : MESSAGES.FAS07));
    }
  }
  return out;
}

/** Each line's TaxTotal groups: FAX01, FAX02, FAX04 [V], FAX07 [MP]; their schemes as FAS01b. */
function lineTaxFindings(doc: ReceivedDocument, line: LineContent, settings: RuleSettings): RuleFinding[] {
  const out: RuleFinding[] = [];
  const schemes = line.taxTotals.map((g) => g.subtotals[0]?.schemeId ?? "");
  if (new Set(schemes).size !== schemes.length) out.push(rule(doc, "FAX01"));
  for (const group of line.taxTotals) {
    if (group.subtotals.length === 0) out.push(rule(doc, "FAS01b"));
    if (!groupSumHolds(group)) out.push(rule(doc, "FAX02"));
    if (repeatsRate(group)) out.push(rule(doc, "FAX04"));
    for (const sub of group.subtotals) {
      if (schemeProblem(sub)) out.push(rule(doc, "FAS01b"));
      const product = productHolds(sub, settings.productToleranceCents);
      if (!product.holds) out.push(rule(doc, "FAX07", product.perUnit ? MESSAGES.PER_UNIT : MESSAGES.FAX07));
    }
  }
  return out;
}

/**
 * FAV06 [V]: LineExtensionAmount = PriceAmount × BaseQuantity − the line's discounts + its charges
 * (Vendix: "PriceAmount × BaseQuantity − descuentos = LineExtensionAmount", BaseQuantity being the
 * quantity invoiced; the line's quantity when there is no BaseQuantity).
 */
function lineAmountFinding(doc: ReceivedDocument, line: LineContent, settings: RuleSettings) {
  const price = decimal(line.price);
  const quantity = decimal(line.baseQuantity ?? line.quantity);
  const written = decimal(line.lineExtension);
  let exact: Decimal | null = price && quantity ? times(price, quantity) : null;
  for (const ac of line.allowanceCharges) {
    const value = decimal(ac.amount);
    exact = exact && value ? (isCharge(ac.charge) ? plus(exact, value) : minus(exact, value)) : null;
  }
  if (exact && written && within(exact, written, settings.productToleranceCents)) return null;
  return rule(doc, "FAV06");
}

/** WithholdingTaxTotal (invoices): FAT01, FAT02, FAT04 [V], FAT07, FAT12/FAT13 (the scheme). */
function withholdingFindings(doc: ReceivedDocument, settings: RuleSettings): RuleFinding[] {
  const out: RuleFinding[] = [];
  const groups = doc.content.withholdings;
  const schemes = groups.map((g) => g.subtotals[0]?.schemeId ?? "");
  if (new Set(schemes).size !== schemes.length) out.push(rule(doc, "FAT01"));
  for (const group of groups) {
    if (!groupSumHolds(group)) out.push(rule(doc, "FAT02"));
    if (repeatsRate(group)) out.push(rule(doc, "FAT04"));
    for (const sub of group.subtotals) {
      const problem = schemeProblem(sub, true);
      if (problem) out.push(rule(doc, problem));
      const base = decimal(sub.taxable);
      const percent = decimal(sub.percent);
      const written = decimal(sub.amount);
      const holds =
        base &&
        percent &&
        written &&
        within(shifted(times(base, percent), 2), written, settings.productToleranceCents);
      if (!holds) out.push(rule(doc, "FAT07"));
    }
  }
  return out;
}

/** VLR01 [V]: no amount or percent below zero. */
function negativeFinding(doc: ReceivedDocument): RuleFinding | null {
  return doc.content.negativeValues.length > 0 ? rule(doc, "VLR01") : null;
}

/** Every arithmetic rule's findings. */
export function amountFindings(doc: ReceivedDocument, settings: RuleSettings): (RuleFinding | null)[] {
  return [
    negativeFinding(doc),
    ...totalsFindings(doc),
    ...documentTaxFindings(doc, settings),
    ...withholdingFindings(doc, settings),
    ...doc.content.lines.flatMap((line) => [
      lineAmountFinding(doc, line, settings),
      ...lineTaxFindings(doc, line, settings),
    ]),
  ];
}
