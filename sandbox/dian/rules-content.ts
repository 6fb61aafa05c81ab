/**
 * DIAN's rules on what a received document declares, from its XML alone: the code lists
 * (./code-lists.ts, ./divipola.ts), the dates, the exchange rate and the parties. Sources
 * (brief-business §7–§10): [D] DIAN's validator (`Common/Validator.cs`: FAJ26, FAK26 and their
 * messages), [V] Vendix's transcription of Anexo 1.9 (FAD15a, FAR02–FAR07, FAK61, FAJ16, FAJ09,
 * FAJ29/FAJ32, FAK29/FAK32, FAN01, DAN04), [HK] a recorded DIAN answer (FAD09c).
 *
 * Some ids are inferred, none seen in a DIAN answer: the Anexo numbers a group's rules 01 for the
 * group, then its elements in schema order — FAR01–FAR07 (PaymentExchangeRate), FAJ21/FAJ24/FAJ26
 * ([D]: CompanyID, its DV, TaxLevelCode), DAN04 (PaymentDueDate, [V]) — so FAN02 is PaymentMeans/ID,
 * FAN03 its code, FAN04 its due date; FAJ25/FAK25 CompanyID@schemeName; FAJ02/FAK02
 * AdditionalAccountID; FAJ12/FAK12 an address's CountrySubentityCode (FAJ09–FAJ12, FAJ29–FAJ32 [V]);
 * FAD11 the header's DueDate (after FAD09 IssueDate, FAD10 IssueTime); FAQ04 a document discount's
 * reason code (FAQ: the support document's analogue is DSAQ, brief-business §6). docs/sandbox.md
 * lists each with its source.
 */
import {
  CURRENCIES,
  DISCOUNT_REASONS,
  FINAL_CONSUMER_ID,
  ID_TYPES,
  PAYMENT_FORMS,
  PAYMENT_MEANS,
  PERSON_TYPES,
  TAX_LEVEL_CODES,
} from "./code-lists.ts";
import type { Address, PartyContent } from "./content.ts";
import { decimal, equal } from "./decimal.ts";
import { isDepartment, isMunicipality } from "./divipola.ts";
import type { ReceivedDocument } from "./document.ts";
import { finding, type RuleFinding, type RuleSettings } from "./finding.ts";

const IN_LIST = "Este código no corresponde a un valor válido de la lista";

const MESSAGES = {
  FAJ26: "Responsabilidad informada por emisor no valida según lista.",
  FAK26: "Responsabilidad informada para receptor no valida según lista.",
  FAD15a: "Código de divisa inválido",
  FAD09c: "La fecha de emision es anterior en mas de 10 dias de la fecha actual",
  // the ones below are ours, in DIAN's shape, from the rule rows [V] quotes
  FAJ02: "Tipo de organización jurídica del emisor no corresponde a un valor de la lista",
  FAK02: "Tipo de organización jurídica del adquiriente no corresponde a un valor de la lista",
  FAJ25: "Tipo de documento de identificación del emisor no corresponde a un valor de la lista",
  FAK25: "Tipo de documento de identificación del adquiriente no corresponde a un valor de la lista",
  FAK61: 'AdditionalAccountID es igual a "2" y el grupo PartyIdentification no es informado',
  FAJ16: 'El país de la dirección del emisor debe contener el literal "CO"',
  FAJ09: IN_LIST,
  FAJ12: IN_LIST,
  FAJ29: IN_LIST,
  FAJ32: IN_LIST,
  FAK09: IN_LIST,
  FAK12: IN_LIST,
  FAK29: IN_LIST,
  FAK32: IN_LIST,
  FAN01: "Grupo PaymentMeans no informado",
  FAN02: "Forma de pago no corresponde a un valor de la lista",
  FAN03: "Medio de pago no corresponde a un valor de la lista",
  FAN04: "Fecha de vencimiento no informada en pago a crédito, o anterior a la fecha de emisión",
  FAQ04: "Código de descuento no corresponde a un valor de la lista",
  FAD11: "La fecha de vencimiento es anterior a la fecha de emisión",
  FAR02: "SourceCurrencyCode no es igual a DocumentCurrencyCode",
  FAR04: "TargetCurrencyCode no corresponde a un valor de la lista de tipos de moneda extranjera",
  FAR05: "TargetCurrencyBaseRate trae valor diferente a 1.00",
  FAR06: "No es informado el elemento CalculationRate con la tasa de cambio",
  FAR07: "No es informado el elemento Date con la fecha de la tasa de cambio",
} as const;

type Rule = keyof typeof MESSAGES;
const rule = (doc: ReceivedDocument, code: Rule) => finding(doc, code, MESSAGES[code]);
const when = (doc: ReceivedDocument, broken: boolean, code: Rule) => (broken ? rule(doc, code) : null);

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const isDate = (value: string | undefined): value is string =>
  value !== undefined && DATE.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));

/** `date` moved by `days`, YYYY-MM-DD. */
function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * A DIVIPOLA address (brief-business §9): its municipality listed ([V] FAJ09 for the issuer's
 * physical address, FAJ29 its RegistrationAddress, FAK09/FAK29 the buyer's) and its department
 * listed and the municipality's (FAJ12/FAJ32, FAK12/FAK32: "incoherencia geográfica" [V]).
 */
function addressFindings(
  doc: ReceivedDocument,
  address: Address | undefined,
  codes: [Rule, Rule],
): (RuleFinding | null)[] {
  if (!address) return [];
  const municipality = address.municipality ?? "";
  const department = address.department ?? "";
  return [
    when(doc, !isMunicipality(municipality), codes[0]),
    when(doc, !isDepartment(department) || !municipality.startsWith(department), codes[1]),
  ];
}

/** The issuer: FAJ02, FAJ25, FAJ26 [D], FAJ16 [V] (in Colombia), its DIVIPOLA addresses. */
function supplierFindings(doc: ReceivedDocument, party: PartyContent): (RuleFinding | null)[] {
  const levels = (party.taxLevelCode ?? "").split(";");
  return [
    when(doc, !PERSON_TYPES.has(party.additionalAccountId ?? ""), "FAJ02"),
    when(doc, !ID_TYPES.has(party.idType ?? ""), "FAJ25"),
    // [D] ValidateTaxLevelCodes: every code the issuer gives, an empty one too
    when(
      doc,
      levels.some((code) => !TAX_LEVEL_CODES.has(code)),
      "FAJ26",
    ),
    when(doc, party.physical?.country !== "CO", "FAJ16"),
    ...addressFindings(doc, party.physical, ["FAJ09", "FAJ12"]),
    ...addressFindings(doc, party.registration, ["FAJ29", "FAJ32"]),
  ];
}

/**
 * The buyer: FAK02, FAK25, FAK26 [D] (empty codes skipped, as DIAN's loop does; the final consumer
 * is R-99-PN alone, the Anexo's note to FAK26 [V]), FAK61 [V] (a natural person is identified), its
 * DIVIPOLA addresses when they are in Colombia (the buyer's are 0..1, list-checked only then [V]).
 */
function customerFindings(doc: ReceivedDocument, party: PartyContent): (RuleFinding | null)[] {
  const levels = (party.taxLevelCode ?? "").split(";").filter((code) => code !== "");
  const finalConsumer = party.id === FINAL_CONSUMER_ID;
  const inColombia = (address: Address | undefined) => (address?.country === "CO" ? address : undefined);
  return [
    when(doc, !PERSON_TYPES.has(party.additionalAccountId ?? ""), "FAK02"),
    when(doc, !ID_TYPES.has(party.idType ?? ""), "FAK25"),
    when(
      doc,
      levels.some((code) => !TAX_LEVEL_CODES.has(code)) || (finalConsumer && levels.join(";") !== "R-99-PN"),
      "FAK26",
    ),
    when(doc, party.additionalAccountId === "2" && !party.hasPartyIdentification, "FAK61"),
    ...addressFindings(doc, inColombia(party.physical), ["FAK09", "FAK12"]),
    ...addressFindings(doc, inColombia(party.registration), ["FAK29", "FAK32"]),
  ];
}

/** PaymentMeans: FAN01 [V], FAN02 (forma de pago), FAN03 (medio de pago), FAN04 (due date, [V] DAN04). */
function paymentFindings(doc: ReceivedDocument): (RuleFinding | null)[] {
  const means = doc.content.paymentMeans;
  return [
    when(doc, means.length === 0, "FAN01"),
    ...means.flatMap((m) => [
      when(doc, !PAYMENT_FORMS.has(m.id ?? ""), "FAN02"),
      when(doc, !PAYMENT_MEANS.has(m.code ?? ""), "FAN03"),
      when(
        doc,
        (m.id === "2" && !isDate(m.dueDate)) || (isDate(m.dueDate) && m.dueDate < doc.issueDate),
        "FAN04",
      ),
    ]),
  ];
}

/** A document discount's reason code (FAQ04); a charge has none. */
function discountFindings(doc: ReceivedDocument): (RuleFinding | null)[] {
  return doc.content.allowanceCharges.map((ac) =>
    when(
      doc,
      ac.charge !== "true" && ac.charge !== "1" && !DISCOUNT_REASONS.has(ac.reasonCode ?? ""),
      "FAQ04",
    ),
  );
}

/** The dates of an invoice: FAD09c [HK] (issued more than 10 days before today), FAD11 (due before issued). */
function dateFindings(doc: ReceivedDocument, settings: RuleSettings): (RuleFinding | null)[] {
  if (doc.kind !== "invoice") return [];
  const due = doc.content.dueDate;
  return [
    when(doc, isDate(doc.issueDate) && doc.issueDate < addDays(settings.today, -10), "FAD09c"),
    when(doc, due !== undefined && (!isDate(due) || due < doc.issueDate), "FAD11"),
  ];
}

/**
 * The currency (FAD15a [V]: ISO 4217, DIAN's list) and the exchange rate, when declared (FAR02–FAR07
 * [V]; FAR03, SourceCurrencyBaseRate, is not checked: the Anexo contradicts itself on it).
 */
function currencyFindings(doc: ReceivedDocument): (RuleFinding | null)[] {
  const currency = doc.content.currency ?? "";
  const exchange = doc.content.exchangeRate;
  const out = [when(doc, !CURRENCIES.has(currency), "FAD15a")];
  if (!exchange) return out;
  const base = decimal(exchange.targetBaseRate);
  const rate = decimal(exchange.rate);
  const target = exchange.target ?? "";
  return [
    ...out,
    when(doc, exchange.source !== currency, "FAR02"),
    when(doc, !CURRENCIES.has(target) || (currency === "COP" && target === "COP"), "FAR04"),
    when(doc, !base || !equal(base, { n: 1n, scale: 0 }), "FAR05"),
    when(doc, !rate || rate.n <= 0n, "FAR06"),
    when(doc, !isDate(exchange.date), "FAR07"),
  ];
}

/** Every rule of this file's findings. */
export function declaredFindings(doc: ReceivedDocument, settings: RuleSettings): (RuleFinding | null)[] {
  return [
    ...dateFindings(doc, settings),
    ...currencyFindings(doc),
    ...supplierFindings(doc, doc.content.supplier),
    ...customerFindings(doc, doc.content.customer),
    ...paymentFindings(doc),
    ...discountFindings(doc),
  ];
}
