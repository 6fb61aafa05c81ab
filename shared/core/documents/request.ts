/**
 * The parts of a provider submit request every kind builds the same way, from the rows the database
 * API returns: the issuer and the buyer with their fiscal profiles, the lines with their taxes and
 * discounts or charges, the document's taxes per scheme and rate, its own discounts and charges,
 * withholdings and advances, the deal's currency, and the totals. The database computed every
 * amount (supabase/migrations/…_amounts.sql, docs/adr/0009); this only writes them as the protocol's
 * exact decimal text (two decimals; prices up to six; percents two or three), never floats.
 */

import { buyerCheckDigitProblem } from "../../co/authority-rules.ts";
import { finalConsumerProblems } from "../../co/final-consumer.ts";
import { personTypeOf } from "../../co/fiscal-profile.ts";
import { toCents } from "../../kernel/money.ts";
import type {
  AllowanceChargeRow,
  DocumentAmountsRow,
  InvoiceDocumentRow,
  InvoiceLineRow,
  IssuerRow,
  LineTaxRow,
  PrepaymentRow,
  TaxTotalRow,
} from "../../kernel/rows.ts";
import { centsToMoney, SubmitDocumentRequest } from "../../ports/providers/protocol.ts";
import { arithmeticProblems } from "./arithmetic.ts";
import type { PreparedDocument } from "./kind.ts";

/** null → absent: the protocol's optional fields are left out, never sent as null. */
export const opt = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

export const money = (value: number) => centsToMoney(toCents(value));

/** A quantity (numeric(18,6)) as plain decimal text without trailing zeros. */
export function decimal(value: number): string {
  return value.toFixed(6).replace(/\.?0+$/, "");
}

/** A unit price (PriceAmount) with its decimals, at least two and at most six: "100.00", "889559.492014". */
export function price(value: number): string {
  return value.toFixed(6).replace(/(\.\d\d\d*?)0+$/, "$1");
}

/** A percent with two decimals, or three when it has them: "19.00", "0.966" (FAS01b refuses "19.000"). */
export function percent(value: number): string {
  return value.toFixed(3).replace(/(\.\d\d)0$/, "$1");
}

/** The currency every amount of a document to DIAN is written in: the deal's goes in its exchange rate. */
export const DOCUMENT_CURRENCY = "COP";

/** The issuer, with the one secret its kind's authority code needs. */
export function issuerRequest(
  c: IssuerRow,
  secret: { technical_key: string | null } | { software_pin: string | null },
) {
  return {
    nit: c.nit,
    check_digit: c.check_digit,
    legal_name: c.legal_name,
    trade_name: opt(c.trade_name),
    person_type: c.person_type,
    tax_regime: opt(c.tax_regime),
    tax_scheme: c.tax_scheme,
    fiscal_responsibilities: c.fiscal_responsibilities,
    email: opt(c.email),
    phone: opt(c.phone),
    address: opt(c.address),
    city_code: opt(c.city_code),
    city_name: opt(c.city_name),
    department_code: opt(c.department_code),
    department_name: opt(c.department_name),
    postal_zone: opt(c.postal_zone),
    country_code: opt(c.country_code),
    ...secret,
  };
}

type BuyerFields = Pick<
  InvoiceDocumentRow,
  | "buyer_id_type"
  | "buyer_id_number"
  | "buyer_check_digit"
  | "buyer_name"
  | "buyer_email"
  | "buyer_address"
  | "buyer_city_code"
  | "buyer_phone"
  | "buyer_person_type"
  | "buyer_fiscal_responsibilities"
  | "buyer_tax_scheme"
  | "buyer_city_name"
  | "buyer_department_code"
  | "buyer_department_name"
  | "buyer_postal_zone"
  | "buyer_country_code"
>;

/**
 * What the authority would refuse about the buyer, before anything is sent: the identification and
 * name it requires, for a buyer identified by NIT (type 31) DIAN's check digit (rule FAK24), and for
 * DIAN's final consumer (`222222222222`, a retail sale) the type and name DIAN gives it.
 */
export function buyerProblems(doc: BuyerFields): string[] {
  const problems: string[] = [];
  if (!doc.buyer_id_number) problems.push("buyer_id_number is missing");
  if (!doc.buyer_name) problems.push("buyer_name is missing");
  const digit = buyerCheckDigitProblem(doc);
  if (digit) problems.push(digit);
  problems.push(
    ...finalConsumerProblems({
      id_type: doc.buyer_id_type,
      id_number: doc.buyer_id_number,
      name: doc.buyer_name,
    }),
  );
  return problems;
}

/** The buyer with its fiscal profile, as the draft says it (the database reads the person type). */
export function buyerRequest(doc: BuyerFields) {
  return {
    id_type: doc.buyer_id_type,
    id_number: doc.buyer_id_number,
    check_digit: opt(doc.buyer_check_digit),
    name: doc.buyer_name,
    person_type: personTypeOf(doc.buyer_person_type, doc.buyer_id_type),
    fiscal_responsibilities: doc.buyer_fiscal_responsibilities,
    tax_scheme: doc.buyer_tax_scheme,
    email: opt(doc.buyer_email),
    phone: opt(doc.buyer_phone),
    address: opt(doc.buyer_address),
    city_code: opt(doc.buyer_city_code),
    city_name: opt(doc.buyer_city_name),
    department_code: opt(doc.buyer_department_code),
    department_name: opt(doc.buyer_department_name),
    postal_zone: opt(doc.buyer_postal_zone),
    country_code: doc.buyer_country_code,
  };
}

/** A subtotal as the database computed it: by percentage, or per unit (BaseUnitMeasure, PerUnitAmount). */
function subtotalRequest(t: Omit<LineTaxRow, "code" | "name">) {
  if (t.percent != null) {
    return {
      percent: percent(t.percent),
      taxable_amount: money(t.taxable_amount ?? 0),
      tax_amount: money(t.tax_amount),
    };
  }
  return {
    per_unit_amount: money(t.per_unit_amount ?? 0),
    base_unit_measure: decimal(t.measure ?? 0),
    unit_code: t.measure_unit_code ?? "NIU",
    per_quantity: decimal(t.per_quantity ?? 1),
    tax_amount: money(t.tax_amount),
  };
}

export function allowanceChargeRequest(a: AllowanceChargeRow) {
  return {
    id: a.id,
    charge: a.charge,
    reason_code: a.charge ? undefined : opt(a.reason_code),
    reason: opt(a.reason),
    percent: a.percent == null ? undefined : percent(a.percent),
    base_amount: money(a.base_amount),
    amount: money(a.amount),
  };
}

export function linesRequest(lines: InvoiceLineRow[]) {
  return lines.map((l) => ({
    position: l.position,
    code: opt(l.code),
    description: l.description,
    unit_code: l.unit_code,
    quantity: decimal(l.quantity),
    unit_price: price(l.price_amount),
    allowance_charges: l.allowance_charges.length
      ? l.allowance_charges.map(allowanceChargeRequest)
      : undefined,
    line_extension: money(l.line_extension),
    taxes: l.taxes.map((t) => ({ code: t.code, name: t.name, ...subtotalRequest(t) })),
    tax_amount: money(l.tax_amount),
  }));
}

/** The document's taxes per scheme, one subtotal per rate, in the database's order (01, 04, 03 first). */
export function taxTotalsRequest(totals: TaxTotalRow[]) {
  return totals.map((t) => ({
    code: t.code,
    name: t.name,
    tax_amount: money(t.tax_amount),
    subtotals: t.subtotals.map(subtotalRequest),
  }));
}

/** Withholdings: one of each code, one rate each (…_amounts.sql). */
export function withholdingsRequest(totals: TaxTotalRow[]) {
  return totals.flatMap((t) =>
    t.subtotals.map((s) => ({
      code: t.code,
      name: t.name,
      percent: percent(s.percent ?? 0),
      taxable_amount: money(s.taxable_amount ?? 0),
      tax_amount: money(s.tax_amount),
    })),
  );
}

export function prepaymentsRequest(prepayments: PrepaymentRow[]) {
  return prepayments.map((p) => ({
    id: p.id,
    reference: opt(p.reference),
    paid_amount: money(p.paid_amount),
    received_date: p.received_date,
  }));
}

/** The deal's currency, its rate to pesos and the rate's date, with its totals; none for COP. */
export function exchangeRateRequest(doc: DocumentAmountsRow & { currency: string }) {
  if (doc.currency === DOCUMENT_CURRENCY) return undefined;
  const deal = doc.currency_totals;
  return {
    currency: doc.currency,
    rate: doc.exchange_rate == null ? "" : decimal(doc.exchange_rate),
    date: doc.exchange_rate_date ?? "",
    totals: {
      subtotal: money(deal?.line_extension_amount ?? 0),
      tax_total: money(deal?.tax_total ?? 0),
      total: money(deal?.payable_amount ?? 0),
    },
  };
}

/** LegalMonetaryTotal, the taxes' sum, the withholdings and what the buyer still pays. */
export function totalsRequest(
  doc: DocumentAmountsRow & { subtotal: number; tax_total: number; total: number },
) {
  const prepaid = doc.prepaid_amount ?? 0;
  const withheld = doc.withholding_total_amount ?? 0;
  return {
    subtotal: money(doc.subtotal),
    tax_exclusive_amount: money(doc.tax_exclusive_amount),
    tax_total: money(doc.tax_total),
    tax_inclusive_amount: money(doc.tax_inclusive_amount),
    allowance_total_amount: money(doc.allowance_total_amount),
    charge_total_amount: money(doc.charge_total_amount),
    prepaid_amount: money(prepaid),
    total: money(doc.total),
    withholding_total_amount: money(withheld),
    net_payable_amount: money(doc.net_payable_amount ?? doc.total - withheld - prepaid),
  };
}

/** What every kind's request carries of its amounts, from the payload's rows. */
export function amountsRequest(
  doc: DocumentAmountsRow & { currency: string; subtotal: number; tax_total: number; total: number },
) {
  return {
    currency: DOCUMENT_CURRENCY,
    tax_totals: taxTotalsRequest(doc.tax_totals),
    allowance_charges: doc.allowance_charges.length
      ? doc.allowance_charges.map(allowanceChargeRequest)
      : undefined,
    exchange_rate: exchangeRateRequest(doc),
    totals: totalsRequest(doc),
  };
}

/**
 * The request `build` makes, checked against the protocol's schema and read again for its
 * arithmetic (./arithmetic.ts); or every problem found. A negative amount (which the database's
 * `problems` name first) is a problem, not a crash.
 */
export function checkedRequest(build: () => unknown, options: { exactLineTaxes: boolean }): PreparedDocument {
  let built: unknown;
  try {
    built = build();
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return { ok: false, problems: [`an amount cannot be sent: ${error.message}`] };
  }
  const parsed = SubmitDocumentRequest.safeParse(built);
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) };
  }
  const arithmetic = arithmeticProblems(parsed.data, options);
  if (arithmetic.length > 0) return { ok: false, problems: arithmetic };
  return { ok: true, request: parsed.data };
}
