/**
 * The parts of a provider submit request every kind builds the same way: the issuer, the buyer,
 * the lines and the totals, from the rows the database API returns. Amounts become exact decimal
 * text (two decimals), never floats.
 */

import { buyerCheckDigitProblem } from "../../co/authority-rules.ts";
import { finalConsumerProblems } from "../../co/final-consumer.ts";
import { toCents } from "../../kernel/money.ts";
import type { DocumentAmountsRow, InvoiceDocumentRow, InvoiceLineRow, IssuerRow } from "../../kernel/rows.ts";
import { centsToMoney } from "../../ports/providers/protocol.ts";

/** null → absent: the protocol's optional fields are left out, never sent as null. */
export const opt = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

export const money = (value: number) => centsToMoney(toCents(value));

/** A quantity (numeric(18,6)) as plain decimal text without trailing zeros. */
export function decimal(value: number): string {
  return value.toFixed(6).replace(/\.?0+$/, "");
}

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
    person_type: opt(c.person_type),
    tax_regime: opt(c.tax_regime),
    fiscal_responsibilities: opt(c.fiscal_responsibilities),
    email: opt(c.email),
    address: opt(c.address),
    city_code: opt(c.city_code),
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

export function buyerRequest(doc: BuyerFields) {
  return {
    id_type: doc.buyer_id_type,
    id_number: doc.buyer_id_number,
    check_digit: opt(doc.buyer_check_digit),
    name: doc.buyer_name,
    email: opt(doc.buyer_email),
    address: opt(doc.buyer_address),
    city_code: opt(doc.buyer_city_code),
    phone: opt(doc.buyer_phone),
  };
}

export function linesRequest(lines: InvoiceLineRow[]) {
  return lines.map((l) => ({
    position: l.position,
    code: opt(l.code),
    description: l.description,
    unit_code: l.unit_code,
    quantity: decimal(l.quantity),
    unit_price: money(l.unit_price),
    line_extension: money(l.line_extension),
    tax_code: l.tax_code,
    tax_rate: l.tax_rate.toFixed(2),
    tax_amount: money(l.tax_amount),
  }));
}

export function totalsRequest(doc: { subtotal: number; tax_total: number; total: number }) {
  return { subtotal: money(doc.subtotal), tax_total: money(doc.tax_total), total: money(doc.total) };
}

/** What the one-tax builders (the protocol's `Line`, the UBL, the PDF) can say of a line's taxes. */
const ONE_TAX_CODES = new Set(["01", "04"]);

/**
 * What this version cannot send yet of what the database computes (issue 36: the provider protocol,
 * the UBL and the PDF say one tax per line, in pesos, with no discounts, withholdings or advances):
 * a document that uses it is not sent, rather than sent without it. And the problems the database
 * found in its amounts (`problems`: a discount or an advance larger than the total, …).
 */
export function unsendableContent(
  doc: DocumentAmountsRow & { currency: string; lines: InvoiceLineRow[] },
): string[] {
  const problems = [...(doc.problems ?? [])];
  const notYet = (what: string) => problems.push(`${what} cannot be sent by this version yet`);
  if (doc.currency !== "COP") notYet(`currency ${doc.currency}: an invoice in another currency than COP`);
  if (doc.allowance_charges?.length) notYet("allowance_charges: a document's discounts and charges");
  if (doc.withholding_totals?.length) notYet("withholdings");
  if (doc.prepayments?.length) notYet("prepayments: advances");
  for (const line of doc.lines) {
    const taxes = line.taxes ?? [];
    const [tax] = taxes;
    if (taxes.length > 1 || (tax && (!ONE_TAX_CODES.has(tax.code) || tax.percent === undefined))) {
      notYet(`line ${line.position}: taxes other than one IVA (01) or INC (04) percentage`);
    }
    if (line.allowance_charges?.length)
      notYet(`line ${line.position}: allowance_charges (discounts and charges)`);
    if (Number(line.unit_price.toFixed(2)) !== line.unit_price) {
      notYet(`line ${line.position}: a unit_price with more than 2 decimals`);
    }
  }
  return problems;
}
