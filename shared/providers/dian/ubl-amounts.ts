/**
 * The amounts of a DIAN UBL 2.1 document, as the database computed them and our protocol carries
 * them (../../ports/providers/protocol.ts), in the elements and the order of the OASIS schemas
 * (common/UBL-CommonAggregateComponents-2.1.xsd: TaxSubtotalType, AllowanceChargeType,
 * PaymentType, ExchangeRateType, PaymentMeansType, MonetaryTotalType) and with DIAN's content
 * (brief-business §3–§8, each as Odoo 19's l10n_co_dian writes it: yckhg/sse@d4c746f
 * `tests/attachments/invoice_withholding.xml`, `invoice_plastic_bags.xml`, `invoice_sugar.xml`,
 * `invoice_with_line_discount.xml`, `invoice_prepaid_payment_1.xml`, `invoice_multicurrency.xml`):
 *
 * - TaxTotal: one per scheme (IVA 01, INC 04, ICA 03 first), its amount the sum of one TaxSubtotal
 *   per rate; a percentage subtotal has TaxableAmount and Percent (two decimals, three when the rate
 *   has them: FAS01b), a per-unit one (INC bolsas 22, ICL 32, IBUA 34) has neither, but
 *   BaseUnitMeasure and PerUnitAmount. BaseUnitMeasure is the measure the tax was computed on
 *   (units, litres, mL: Odoo's IBUA writes 10500 mL); Odoo writes the bag's rate there for INC
 *   bolsas instead, and DIAN's own arithmetic for per-unit taxes was not established (brief: "Not
 *   established"): ours keeps TaxAmount = BaseUnitMeasure ÷ per quantity × PerUnitAmount.
 * - WithholdingTaxTotal: the same shape, invoices only (UBL's notes have none).
 * - AllowanceCharge: numbered 1, 2, 3…; a discount's reason code (00, 01); MultiplierFactorNumeric
 *   only for one given as a percentage (an amount has no percent to state), Amount, BaseAmount.
 * - PrepaidPayment, PaymentExchangeRate (Source COP at the rate, Target the deal's currency at
 *   1.00, CalculationRate, Date), PaymentMeans (PaymentDueDate only when sold on credit).
 */

import type {
  AllowanceCharge,
  ExchangeRate,
  LineTax,
  Prepayment,
  SubmitDocumentRequest,
  TaxSubtotal,
  TaxTotal,
  Withholding,
} from "../../ports/providers/protocol.ts";
import { text } from "./parties.ts";
import { type Child, el } from "./xml.ts";

type Doc = SubmitDocumentRequest;

/** An amount with its currency, as every UBL amount is written. */
export const amount = (doc: Pick<Doc, "currency">, name: string, value: string) =>
  text(name, value, { currencyID: doc.currency });

function scheme(code: string, name: string) {
  return el("cac:TaxScheme", {}, text("cbc:ID", code), text("cbc:Name", name));
}

/** One TaxSubtotal: by percentage of a taxable amount, or per unit of a measure. */
function taxSubtotal(doc: Pick<Doc, "currency">, code: string, name: string, s: TaxSubtotal) {
  if ("percent" in s) {
    return el(
      "cac:TaxSubtotal",
      {},
      amount(doc, "cbc:TaxableAmount", s.taxable_amount),
      amount(doc, "cbc:TaxAmount", s.tax_amount),
      el("cac:TaxCategory", {}, text("cbc:Percent", s.percent), scheme(code, name)),
    );
  }
  return el(
    "cac:TaxSubtotal",
    {},
    amount(doc, "cbc:TaxAmount", s.tax_amount),
    text("cbc:BaseUnitMeasure", s.base_unit_measure, { unitCode: s.unit_code }),
    amount(doc, "cbc:PerUnitAmount", s.per_unit_amount),
    el("cac:TaxCategory", {}, scheme(code, name)),
  );
}

/** A document's TaxTotal of one scheme, one subtotal per rate. */
export function taxTotal(doc: Pick<Doc, "currency">, total: TaxTotal) {
  return el(
    "cac:TaxTotal",
    {},
    amount(doc, "cbc:TaxAmount", total.tax_amount),
    ...total.subtotals.map((s) => taxSubtotal(doc, total.code, total.name, s)),
  );
}

/** A line's TaxTotal of one of its taxes (one per scheme: FAX01). */
export function lineTaxTotal(doc: Pick<Doc, "currency">, tax: LineTax) {
  const { code, name, ...subtotal } = tax;
  return el(
    "cac:TaxTotal",
    {},
    amount(doc, "cbc:TaxAmount", tax.tax_amount),
    taxSubtotal(doc, code, name, subtotal as TaxSubtotal),
  );
}

/** A WithholdingTaxTotal of one withholding (an invoice's). */
export function withholdingTaxTotal(doc: Pick<Doc, "currency">, w: Withholding) {
  return el(
    "cac:WithholdingTaxTotal",
    {},
    amount(doc, "cbc:TaxAmount", w.tax_amount),
    taxSubtotal(doc, w.code, w.name, {
      percent: w.percent,
      taxable_amount: w.taxable_amount,
      tax_amount: w.tax_amount,
    }),
  );
}

/** A discount or a charge, of a line or of the document. */
export function allowanceCharge(doc: Pick<Doc, "currency">, a: AllowanceCharge) {
  return el(
    "cac:AllowanceCharge",
    {},
    text("cbc:ID", String(a.id)),
    text("cbc:ChargeIndicator", String(a.charge)),
    !a.charge && text("cbc:AllowanceChargeReasonCode", a.reason_code ?? "00"),
    a.reason && text("cbc:AllowanceChargeReason", a.reason),
    a.percent !== undefined && text("cbc:MultiplierFactorNumeric", a.percent),
    amount(doc, "cbc:Amount", a.amount),
    amount(doc, "cbc:BaseAmount", a.base_amount),
  );
}

/** An advance already received. */
export function prepaidPayment(doc: Pick<Doc, "currency">, p: Prepayment) {
  return el(
    "cac:PrepaidPayment",
    {},
    text("cbc:ID", p.reference ?? String(p.id)),
    amount(doc, "cbc:PaidAmount", p.paid_amount),
    text("cbc:ReceivedDate", p.received_date),
  );
}

/**
 * The deal in another currency, declared: the document stays in its currency (pesos) and says
 * how many of them one unit of the deal's is (brief-business §8: FAR02 source = document currency,
 * FAR04 a foreign target, FAR05 target rate 1.00, FAR06/07 rate and date). SourceCurrencyBaseRate
 * carries the rate as Odoo writes it (the field and rejection tables of FAR03 disagree).
 */
export function paymentExchangeRate(doc: Pick<Doc, "currency">, rate: ExchangeRate | undefined): Child {
  if (!rate) return undefined;
  return el(
    "cac:PaymentExchangeRate",
    {},
    text("cbc:SourceCurrencyCode", doc.currency),
    text("cbc:SourceCurrencyBaseRate", rate.rate),
    text("cbc:TargetCurrencyCode", rate.currency),
    text("cbc:TargetCurrencyBaseRate", "1.00"),
    text("cbc:CalculationRate", rate.rate),
    text("cbc:Date", rate.date),
  );
}

/**
 * How it is paid (mandatory on every document: FAN01/CAN01): cash (1) or credit (2), DIAN's means
 * code (1, "instrumento no definido", when the document does not say), and the due date of a
 * credit sale only — a cash sale has none (soenac writes it only then; DAN04 asks it for 2).
 */
export function paymentMeans(doc: Pick<Doc, "payment_form" | "payment_method" | "due_date">) {
  const form = doc.payment_form ?? "1";
  return el(
    "cac:PaymentMeans",
    {},
    text("cbc:ID", form),
    text("cbc:PaymentMeansCode", doc.payment_method ?? "1"),
    form === "2" && doc.due_date && text("cbc:PaymentDueDate", doc.due_date),
  );
}

/** LegalMonetaryTotal (or, for debit notes, `name` RequestedMonetaryTotal): the database's totals. */
export function monetaryTotal(doc: Doc, name = "cac:LegalMonetaryTotal") {
  const t = doc.totals;
  const has = (charge: boolean) => (doc.allowance_charges ?? []).some((a) => a.charge === charge);
  return el(
    name,
    {},
    amount(doc, "cbc:LineExtensionAmount", t.subtotal),
    amount(doc, "cbc:TaxExclusiveAmount", t.tax_exclusive_amount),
    amount(doc, "cbc:TaxInclusiveAmount", t.tax_inclusive_amount),
    has(false) && amount(doc, "cbc:AllowanceTotalAmount", t.allowance_total_amount ?? "0.00"),
    has(true) && amount(doc, "cbc:ChargeTotalAmount", t.charge_total_amount ?? "0.00"),
    (doc.prepayments ?? []).length > 0 && amount(doc, "cbc:PrepaidAmount", t.prepaid_amount ?? "0.00"),
    amount(doc, "cbc:PayableAmount", t.total),
  );
}
