/**
 * The adapter-tax provider protocol (docs/provider-protocol.md): the bodies we send, the answers we
 * accept, and the port the core uses (docsgen and deliver: ./docsgen.ts, ./deliver.ts). Both our client and the sandbox provider validate with these
 * schemas, so the two cannot drift apart. Money travels as decimal strings with two decimals
 * ("119000.00"), never as floats.
 */
import { z } from "zod";
import { centsToDecimal, toCents } from "../../kernel/money.ts";

/** The header that carries the idempotency key of a submit. */
export const IDEMPOTENCY_HEADER = "Idempotency-Key";
/** What an idempotency key may be (submit and deliver alike): 8 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_SHAPE = /^[\x21-\x7e]{8,255}$/;
/** Set by a provider when it answers a submit from its idempotency store instead of processing it. */
export const REPLAYED_HEADER = "Idempotent-Replayed";

const MONEY = /^(0|[1-9]\d{0,15})\.\d{2}$/;

/** An amount with exactly two decimals and no sign: "0.00", "119000.00". */
export const Money = z.string().regex(MONEY, 'expected an amount with two decimals, e.g. "119000.00"');
export type Money = z.infer<typeof Money>;

export const Environment = z.enum(["uat", "prd"]);
export type Environment = z.infer<typeof Environment>;

/**
 * Document kinds the protocol carries: sales invoices, and the notes of an invoice — credit notes
 * that correct it, debit notes that raise what it charges.
 */
export const DocumentKind = z.enum(["invoice", "credit_note", "debit_note"]);
export type DocumentKind = z.infer<typeof DocumentKind>;

/**
 * A tax DIAN lists (TipoImpuesto-2.1, codes 30–36 as Odoo's l10n_co_edi names them): 01 IVA, 02 IC,
 * 03 ICA, 04 INC, 20–26, 30, 32–36 (22 INC bolsas, 32 ICL, 34 IBUA per unit). Withholdings have
 * their own codes (`WithholdingCode`); 08 is left out (the lists disagree on it).
 */
export const TaxCode = z.enum([
  "01",
  "02",
  "03",
  "04",
  "20",
  "21",
  "22",
  "23",
  "24",
  "25",
  "26",
  "30",
  "32",
  "33",
  "34",
  "35",
  "36",
]);
export type TaxCode = z.infer<typeof TaxCode>;

/** A withholding (WithholdingTaxTotal): 05 ReteIVA, 06 ReteFuente, 07 ReteICA. */
export const WithholdingCode = z.enum(["05", "06", "07"]);
export type WithholdingCode = z.infer<typeof WithholdingCode>;

const digits = (min: number, max: number) =>
  z.string().regex(new RegExp(`^[0-9]{${min},${max}}$`), `expected ${min} to ${max} digits`);
const text = (max: number) => z.string().trim().min(1).max(max);

/** A percentage, 0 to 100, with 2 decimals or 3 when the rate has them: "19.00", "0.966" (FAS01b). */
export const Percent = z
  .string()
  .regex(/^(100\.000?|[0-9]{1,2}\.[0-9]{2,3})$/, 'expected a percentage with 2 or 3 decimals, e.g. "19.00"');
/** A decimal quantity, e.g. "2" or "1.500". */
export const Quantity = z
  .string()
  .regex(/^\d{1,12}(\.\d{1,6})?$/, 'expected a decimal quantity, e.g. "2" or "1.500"');
/** A unit price (PriceAmount): two to six decimals, "50000.00", "889559.492014". */
export const Price = z
  .string()
  .regex(/^(0|[1-9]\d{0,15})\.\d{2,6}$/, 'expected a price with 2 to 6 decimals, e.g. "50000.00"');
/** UN/ECE recommendation 20 unit code: 94 unit, NIU, KGM, MLT, LTR … */
const UnitCode = z.string().regex(/^[A-Z0-9]{1,3}$/, "expected a UN/ECE recommendation 20 unit code");
/** ISO 3166 alpha-2 country code. */
const Country = z.string().regex(/^[A-Z]{2}$/, "expected an ISO 3166 alpha-2 country code");
/** TaxLevelCode: only these five (FAJ26/FAK26 refuse the rest of the RUT's list). */
export const Responsibility = z.enum(["O-13", "O-15", "O-23", "O-47", "R-99-PN"]);
/** A party's TaxScheme: 01 IVA, 04 INC, ZA IVA e INC, ZZ no aplica. */
export const PartyTaxScheme = z.enum(["01", "04", "ZA", "ZZ"]);

/** A DIVIPOLA address's parts beside its municipality code, and the country. */
const addressFields = {
  address: text(300).optional(),
  /** DIVIPOLA municipality code (5 digits; the department's 2 first). */
  city_code: digits(5, 5).optional(),
  city_name: text(100).optional(),
  department_code: digits(2, 2).optional(),
  department_name: text(100).optional(),
  postal_zone: z
    .string()
    .regex(/^[0-9A-Za-z][0-9A-Za-z -]{1,9}$/, "expected a postal code")
    .optional(),
};

export const Issuer = z.object({
  nit: digits(5, 15),
  check_digit: digits(1, 1),
  legal_name: text(450),
  trade_name: text(450).optional(),
  /** AdditionalAccountID: 1 legal person, 2 natural person. */
  person_type: z.enum(["1", "2"]),
  /** 48 responsible for IVA, 49 not responsible. */
  tax_regime: z.enum(["48", "49"]).optional(),
  /** The party's TaxScheme: 01/ZA when responsible for IVA (48), else 04/ZZ. */
  tax_scheme: PartyTaxScheme,
  /** TaxLevelCode, joined with ";" in the document. */
  fiscal_responsibilities: z.array(Responsibility).min(1).max(5),
  email: z.email().optional(),
  phone: text(50).optional(),
  ...addressFields,
  /** The issuer is in Colombia (FAJ16). */
  country_code: z.literal("CO").optional(),
  /** The numbering range's technical key (ClTec): the CUFE's secret; invoices only. Never log it. */
  technical_key: text(200).optional(),
  /** The issuer's DIAN software PIN: the CUDE's secret; notes only. Never log it. */
  software_pin: text(200).optional(),
});
export type Issuer = z.infer<typeof Issuer>;

export const Buyer = z.object({
  /** DIAN identity document type: 13 cédula, 31 NIT, 22 cédula de extranjería, 41 pasaporte, ... */
  id_type: z.string().regex(/^[0-9]{2}$/, "expected a two-digit DIAN document type"),
  id_number: z.string().regex(/^[A-Za-z0-9-]{1,20}$/, "expected 1 to 20 letters, digits or dashes"),
  check_digit: digits(1, 1).optional(),
  name: text(450),
  /** AdditionalAccountID: 1 legal person, 2 natural person (a person may hold a NIT). */
  person_type: z.enum(["1", "2"]),
  /** TaxLevelCode; DIAN's final consumer is R-99-PN. */
  fiscal_responsibilities: z.array(Responsibility).min(1).max(5),
  /** The party's TaxScheme; DIAN's final consumer is ZZ. */
  tax_scheme: PartyTaxScheme,
  email: z.email().optional(),
  phone: text(50).optional(),
  ...addressFields,
  country_code: Country,
});
export type Buyer = z.infer<typeof Buyer>;

/**
 * A tax of one scheme and rate, computed (the database's TaxSubtotal): by percentage of a taxable
 * amount, or per unit — `per_unit_amount` for every `per_quantity` (default 1) units of
 * `unit_code` in `base_unit_measure` (BaseUnitMeasure), with no taxable amount and no percent
 * (brief-business §4: INC bolsas 22, ICL 32, IBUA 34).
 */
const PercentSubtotal = z.object({ percent: Percent, taxable_amount: Money, tax_amount: Money });
const PerUnitSubtotal = z.object({
  per_unit_amount: Money,
  base_unit_measure: Quantity,
  unit_code: UnitCode,
  per_quantity: Quantity.optional(),
  tax_amount: Money,
});
export const TaxSubtotal = z.union([PercentSubtotal.strict(), PerUnitSubtotal.strict()]);
export type TaxSubtotal = z.infer<typeof TaxSubtotal>;

const scheme = { code: TaxCode, name: text(100) };

/** One tax of a line: its scheme and what it comes to (a line has at most one per scheme, FAX01). */
export const LineTax = z.union([
  PercentSubtotal.extend(scheme).strict(),
  PerUnitSubtotal.extend(scheme).strict(),
]);
export type LineTax = z.infer<typeof LineTax>;

/** A document's taxes of one scheme: their sum, and one subtotal per rate (FAS02, FAS04). */
export const TaxTotal = z.object({
  ...scheme,
  tax_amount: Money,
  subtotals: z.array(TaxSubtotal).min(1).max(100),
});
export type TaxTotal = z.infer<typeof TaxTotal>;

/** A withholding on the document (an invoice's only): its base, rate and amount. */
export const Withholding = z.object({
  code: WithholdingCode,
  name: text(100),
  percent: Percent,
  taxable_amount: Money,
  tax_amount: Money,
});
export type Withholding = z.infer<typeof Withholding>;

/**
 * A discount (`charge` false, DIAN's reason 00 no condicionado or 01 condicionado) or a charge,
 * numbered 1, 2, 3… in its list: `amount` of `base_amount`, `percent` of it when given so.
 */
export const AllowanceCharge = z.object({
  id: z.number().int().min(1).max(100),
  charge: z.boolean(),
  reason_code: z.enum(["00", "01"]).optional(),
  reason: text(200).optional(),
  percent: Percent.optional(),
  base_amount: Money,
  amount: Money,
});
export type AllowanceCharge = z.infer<typeof AllowanceCharge>;

/** An advance already received (PrepaidPayment). */
export const Prepayment = z.object({
  id: z.number().int().min(1).max(100),
  reference: text(60).optional(),
  paid_amount: Money,
  received_date: z.iso.date(),
});
export type Prepayment = z.infer<typeof Prepayment>;

export const Line = z.object({
  position: z.number().int().min(1).max(10_000),
  code: text(100).optional(),
  description: text(1000),
  /** UN/ECE rec. 20 unit code; 94 = unit. */
  unit_code: text(10).optional(),
  quantity: Quantity,
  /** The unit price (PriceAmount), in the document's currency. */
  unit_price: Price,
  /** The line's discounts and charges, ids 1, 2, 3… */
  allowance_charges: z.array(AllowanceCharge).max(10).optional(),
  /** quantity × unit_price − discounts + charges, before taxes (LineExtensionAmount). */
  line_extension: Money,
  /** Its taxes, one per scheme; none: excluded from them ("excluido"). */
  taxes: z.array(LineTax).max(10),
  /** The sum of its taxes. */
  tax_amount: Money,
});
export type Line = z.infer<typeof Line>;

/** The document's LegalMonetaryTotal, its taxes' sum, and what the buyer still pays. */
export const Totals = z.object({
  /** Sum of line_extension (LineExtensionAmount). */
  subtotal: Money,
  /** Sum of the lines' taxable amounts (TaxExclusiveAmount). */
  tax_exclusive_amount: Money,
  /** Sum of every tax (the document's TaxTotal amounts). */
  tax_total: Money,
  /** subtotal + tax_total (TaxInclusiveAmount). */
  tax_inclusive_amount: Money,
  /** The document's discounts and charges (AllowanceTotalAmount, ChargeTotalAmount); absent: 0. */
  allowance_total_amount: Money.optional(),
  charge_total_amount: Money.optional(),
  /** Advances received (PrepaidAmount); absent: 0. */
  prepaid_amount: Money.optional(),
  /** tax_inclusive − allowances + charges (PayableAmount): advances and withholdings are not subtracted. */
  total: Money,
  /** The withholdings' sum; absent: 0. */
  withholding_total_amount: Money.optional(),
  /** total − withholdings − advances: what the buyer still pays; absent: total. */
  net_payable_amount: Money.optional(),
});
export type Totals = z.infer<typeof Totals>;

/**
 * The deal's currency when it is not the document's: the document stays in pesos and declares the
 * deal (PaymentExchangeRate, brief-business §8: target currency, pesos per unit, the rate's date),
 * with its totals in that currency for the representation.
 */
export const ExchangeRate = z.object({
  currency: z.string().regex(/^[A-Z]{3}$/, "expected an ISO 4217 code"),
  /** Pesos per unit of `currency` (CalculationRate), up to 6 decimals. */
  rate: z.string().regex(/^[1-9]\d{0,8}(\.\d{1,6})?$|^0\.\d{1,6}$/, 'expected a rate, e.g. "3919.109578"'),
  date: z.iso.date(),
  totals: z.object({ subtotal: Money, tax_total: Money, total: Money }),
});
export type ExchangeRate = z.infer<typeof ExchangeRate>;

/**
 * The one rule of "these fields come with, and only with, that case" (an accepted outcome's CUFE, a
 * credit note's billing reference): an issue for each field missing while `when` holds, or present
 * while it does not.
 */
export function presentOnlyWhen(
  ctx: z.RefinementCtx,
  value: Record<string, unknown>,
  fields: readonly string[],
  when: boolean,
  words: { required: string; forbidden: string; path?: (string | number)[] },
): void {
  for (const field of fields) {
    const present = value[field] !== undefined;
    if (when !== present) {
      ctx.addIssue({
        code: "custom",
        path: [...(words.path ?? []), field],
        message: when ? words.required : words.forbidden,
      });
    }
  }
}

/** A CUFE or CUDE: a SHA-384 digest in lowercase hex. */
export const AuthorityCode = z.string().regex(/^[0-9a-f]{96}$/, "expected a SHA-384 hex digest");
const DOCUMENT_NUMBER = z
  .string()
  .regex(/^[A-Z0-9]{0,4}[0-9]{1,15}$/, "expected an optional prefix and a number");

/** For a note: the invoice it is of (DIAN BillingReference). */
export const BillingReference = z.object({
  number: DOCUMENT_NUMBER,
  issue_date: z.iso.date(),
  /** The corrected invoice's CUFE. */
  authority_code: AuthorityCode.optional(),
});
export type BillingReference = z.infer<typeof BillingReference>;

/**
 * For an invoice: the DIAN numbering resolution its number falls under (InvoiceControl: the
 * resolution's number, its period, and the range's prefix and bounds), as the issuer holds it.
 */
export const Numbering = z.object({
  resolution_number: digits(1, 20),
  start_date: z.iso.date(),
  end_date: z.iso.date(),
  /** Up to four capital letters or digits; "" when the range has none. */
  prefix: z.string().regex(/^[A-Z0-9]{0,4}$/, "expected up to four capital letters or digits"),
  from: digits(1, 15),
  to: digits(1, 15),
});
export type Numbering = z.infer<typeof Numbering>;

/**
 * For a note: why — its DIAN concept (a credit note's correction concept 1–6, Anexo 1.9; a debit
 * note's concept 1–4: intereses, gastos por cobrar, cambio del valor, otros) — and the stated reason.
 */
export const Correction = z.object({
  concept_code: z.enum(["1", "2", "3", "4", "5", "6"]),
  reason: z.string().trim().min(1).max(500),
});
export type Correction = z.infer<typeof Correction>;

/** DIAN's debit-note concepts (ConceptoNotaDebito-2.1): 1 intereses, 2 gastos por cobrar, 3 cambio del valor, 4 otros. */
export const DEBIT_CONCEPTS: readonly string[] = ["1", "2", "3", "4"];

/** The fields of a submit, before the rules that tie them together (docsgen renders from them too). */
export const SubmitDocumentFields = z.object({
  kind: DocumentKind,
  /** Our document id (UUID): the provider's key for "query by our reference". */
  reference: z.guid(),
  environment: Environment,
  /** Prefix + consecutive number, e.g. "SETP990000001". */
  number: DOCUMENT_NUMBER,
  issue_date: z.iso.date(),
  /** HH:MM:SS with the UTC offset; Colombia is -05:00. */
  issue_time: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d:[0-5]\d[+-]\d{2}:\d{2}$/, "expected HH:MM:SS-05:00"),
  /** When a credit sale (payment_form 2) is due: PaymentDueDate. */
  due_date: z.iso.date().optional(),
  /** The document's currency (DocumentCurrencyCode): every amount is in it; COP for DIAN. */
  currency: z.string().regex(/^[A-Z]{3}$/, "expected an ISO 4217 code"),
  /** 1 contado, 2 crédito (then with its due_date). */
  payment_form: z.enum(["1", "2"]).optional(),
  payment_method: z
    .string()
    .regex(/^[A-Z0-9]{1,3}$/)
    .optional(),
  notes: z.string().max(5000).optional(),
  issuer: Issuer,
  buyer: Buyer,
  lines: z.array(Line).min(1).max(1000),
  /** The document's taxes per scheme (IVA 01, INC 04, ICA 03 first), one subtotal per rate. */
  tax_totals: z.array(TaxTotal).max(20),
  /** The document's own discounts and charges (they change no tax base), ids 1, 2, 3… */
  allowance_charges: z.array(AllowanceCharge).max(20).optional(),
  /** An invoice's withholdings (WithholdingTaxTotal), one per code; never on a note. */
  withholdings: z.array(Withholding).max(3).optional(),
  /** An invoice's advances (PrepaidPayment); never on a note. */
  prepayments: z.array(Prepayment).max(20).optional(),
  /** The deal's currency, rate and date when it is not `currency` (the document's, COP). */
  exchange_rate: ExchangeRate.optional(),
  totals: Totals,
  /** An invoice's numbering resolution, when the issuer has one on record; never for notes. */
  numbering: Numbering.optional(),
  /** A note's invoice (its CUFE is the note's billing reference); only for notes. */
  billing_reference: BillingReference.required({ authority_code: true }).optional(),
  /** A note's concept and reason; only for notes. */
  correction: Correction.optional(),
});

/**
 * POST /documents body: one document, as we hold it. A note (credit or debit) names the invoice it
 * is of and carries the software PIN (its CUDE's secret); an invoice carries the technical key (its
 * CUFE's). A debit note's concept is one of DIAN's four.
 */
export const SubmitDocumentRequest = SubmitDocumentFields.superRefine((doc, ctx) => {
  const note = doc.kind !== "invoice";
  const noun = doc.kind === "debit_note" ? "a debit note" : "a credit note";
  presentOnlyWhen(ctx, doc, ["billing_reference", "correction"], note, {
    required: `required for ${noun}`,
    forbidden: "only allowed for a note (credit or debit)",
  });
  for (const field of ["numbering", "withholdings", "prepayments"] as const) {
    if (note && doc[field] !== undefined) {
      ctx.addIssue({ code: "custom", path: [field], message: "only allowed for an invoice" });
    }
  }
  if (doc.payment_form === "2" && doc.due_date === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["due_date"],
      message: "required for a credit sale (payment_form 2)",
    });
  }
  if (doc.exchange_rate?.currency === doc.currency) {
    ctx.addIssue({
      code: "custom",
      path: ["exchange_rate", "currency"],
      message: "must be another currency than the document's",
    });
  }
  if (doc.kind === "debit_note" && doc.correction && !DEBIT_CONCEPTS.includes(doc.correction.concept_code)) {
    ctx.addIssue({
      code: "custom",
      path: ["correction", "concept_code"],
      message: 'a debit note\'s concept is "1" to "4"',
    });
  }
  presentOnlyWhen(ctx, doc.issuer, ["software_pin"], note, {
    required: `required for ${noun}`,
    forbidden: "only allowed for a note (credit or debit)",
    path: ["issuer"],
  });
  presentOnlyWhen(ctx, doc.issuer, ["technical_key"], !note, {
    required: "required for an invoice",
    forbidden: "only allowed for an invoice",
    path: ["issuer"],
  });
});
export type SubmitDocumentRequest = z.infer<typeof SubmitDocumentRequest>;

export const DocumentStatus = z.enum(["accepted", "rejected", "pending"]);
export type DocumentStatus = z.infer<typeof DocumentStatus>;

/**
 * One rule the authority applied, e.g. `{ code: "FAU04", kind: "rechazo", message: "..." }`. DIAN
 * words each one `Regla: <code>, Rechazo|Notificación: <message>`: a rejection (`rechazo`) or a
 * notification (`notificacion`), which never rejects on its own and may come with an acceptance.
 * Without `kind`, a rule of a rejected outcome is taken as a rejection, any other as a notification.
 */
export const RuleViolation = z.object({
  code: z.string().min(1).max(50),
  kind: z.enum(["rechazo", "notificacion"]).optional(),
  message: z.string().max(1000),
});
export type RuleViolation = z.infer<typeof RuleViolation>;

/**
 * The answer of a submit and of a query: what the authority decided about our document.
 * `authority_code` (the CUFE), `qr_text` and `validated_at` come with, and only with, `accepted`.
 */
export const DocumentOutcome = z
  .object({
    reference: z.guid(),
    provider_reference: z.string().min(1).max(200),
    status: DocumentStatus,
    authority_code: AuthorityCode.optional(),
    qr_text: z.string().min(1).max(2000).optional(),
    message: z.string().max(2000),
    errors: z.array(RuleViolation).max(100).optional(),
    validated_at: z.iso.datetime({ offset: true }).optional(),
  })
  .superRefine((outcome, ctx) => requireValidation(ctx, outcome, outcome.status === "accepted"));
export type DocumentOutcome = z.infer<typeof DocumentOutcome>;

/** The authority's validation (code, QR text, instant) comes with, and only with, an acceptance. */
export function requireValidation(
  ctx: z.RefinementCtx,
  value: Record<string, unknown>,
  accepted: boolean,
): void {
  presentOnlyWhen(ctx, value, ["authority_code", "qr_text", "validated_at"], accepted, {
    required: "required when status is accepted",
    forbidden: "only allowed when status is accepted",
  });
}

/** GET /credentials/check answer (a rejected key is a 401/403, not `ok: false`). */
export const CredentialCheck = z.object({ ok: z.boolean(), message: z.string().max(1000) });
export type CredentialCheck = z.infer<typeof CredentialCheck>;

/** A credential check as the service words it: our sentence, and the provider's own words beside it. */
export interface CredentialVerdict {
  ok: boolean;
  /** Ours, in English. */
  message: string;
  /** The provider's own words about the key, as it wrote them (key cut out), when it gave any. */
  providerMessage?: string;
}

/** Error codes a provider answers with; unknown codes are tolerated and treated by HTTP status. */
export const PROVIDER_ERROR_CODES = [
  "invalid_json",
  "validation_failed",
  "idempotency_key_required",
  "idempotency_conflict",
  "unauthorized",
  "document_not_found",
  "not_found",
  "rate_limited",
  "unavailable",
  "template_not_found",
  "document_not_accepted",
] as const;

/** Every non-2xx answer carries this body. */
export const ProviderErrorBody = z.object({
  error: z.object({
    code: z.string().min(1).max(100),
    message: z.string().max(2000),
    details: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  }),
});
export type ProviderErrorBody = z.infer<typeof ProviderErrorBody>;

/**
 * The idempotency key of a submit: our document id plus the attempt number. Keep the attempt
 * when resending after an unknown outcome (the provider then deduplicates); take the next one only
 * after a definite rejection, when a corrected document must be processed anew.
 */
export function idempotencyKey(documentId: string, attempt = 1): string {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError("attempt must be a positive integer");
  return `doc-${documentId.toLowerCase()}-submit-${attempt}`;
}

/**
 * GET /documents/{reference}/attached-document: the AttachedDocument of an accepted document, the
 * UBL 2.1 container (DIAN Anexo técnico 1.9) holding the signed document and the authority's
 * ApplicationResponse: what the buyer is owed, zipped with the PDF. Any other document is a 409
 * with this code (a document the provider never received: 404 `document_not_found`).
 */
export const DOCUMENT_NOT_ACCEPTED = "document_not_accepted";
export { ATTACHED_DOCUMENT_CONTENT_TYPE } from "./protocol-values.ts";
/** An AttachedDocument larger than this is malformed (one of 1,000 lines is well under 2 MiB). */
export const MAX_ATTACHED_DOCUMENT_BYTES = 5 * 1024 * 1024;

/** `documents/<reference>/attached-document`, relative to the credential's base URL. */
export function attachedDocumentPath(reference: string): string {
  return `documents/${encodeURIComponent(reference)}/attached-document`;
}

/**
 * Why `bytes` cannot be the AttachedDocument of the document whose CUFE/CUDE is `authorityCode`, or
 * null: it must be UTF-8 text whose root element is an `AttachedDocument` and that names that code.
 * A cheap guard, not a parse: it keeps an error page or another document's XML from reaching a buyer.
 */
export function attachedDocumentProblem(bytes: Uint8Array, authorityCode: string): string | null {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return "a body that is not UTF-8 text";
  }
  // An optional BOM, XML declaration, comments and whitespace may come before the root element.
  const prolog =
    /^\uFEFF?(?:\s*<\?xml[^>]*\?>)?(?:\s*<!--[\s\S]*?-->)*\s*<(?:[A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)[\s/>]/;
  const root = prolog.exec(text)?.[1];
  if (root !== "AttachedDocument") return "a body that is not an AttachedDocument";
  if (!text.toLowerCase().includes(authorityCode.toLowerCase())) {
    return "the AttachedDocument of a different document (its CUFE/CUDE is not in it)";
  }
  return null;
}

/** What the lifecycle knows of a document it asks a provider about. */
export interface KnownDocument {
  /** The document as a submit carries it (the same request, rebuilt from the stored document). */
  request: SubmitDocumentRequest;
  /** The provider's reference as last recorded (DIAN habilitación: the test set batch's ZipKey), or null. */
  providerReference: string | null;
}

/**
 * Reads the document when an adapter needs more than our reference to find it: a provider speaking
 * our protocol never calls it; DIAN finds a document by its CUFE/CUDE, computed from the document.
 * Throws a DomainError when the stored document can no longer be turned into its request.
 */
export type DocumentLookup = () => Promise<KnownDocument>;

/** The port the core uses to reach the tax authority through a provider. */
export interface TaxAdapter {
  /**
   * Why this provider could not take `document` at all, or null: checked before anything is sent
   * (DIAN direct needs, e.g., an invoice's numbering resolution). A provider without such rules omits it.
   */
  precheck?(document: SubmitDocumentRequest): string | null;
  /** Submits a document. Throws a ProviderError when no definite outcome came back. */
  submit(document: SubmitDocumentRequest, options?: { attempt?: number }): Promise<DocumentOutcome>;
  /** The provider's view of our document, or null when it never received it. */
  query(reference: string, lookup?: DocumentLookup): Promise<DocumentOutcome | null>;
  /**
   * The AttachedDocument XML of an accepted document, checked to name `authorityCode` (its CUFE or
   * CUDE). A ProviderError otherwise: `rejected` with `providerCode` `document_not_accepted` (409)
   * or `document_not_found` (404) when the provider has no accepted document under `reference`.
   */
  attachedDocument(
    reference: string,
    expected: { authorityCode: string; lookup?: DocumentLookup },
  ): Promise<Uint8Array>;
  /** Whether the configured key authenticates; `ok: false` when the provider refuses it. */
  checkCredential(): Promise<CredentialVerdict>;
}

/** "119000.00" → 11900000n. */
export function moneyToCents(amount: Money): bigint {
  if (!MONEY.test(amount)) throw new RangeError(`not a money amount: ${amount}`);
  return toCents(amount);
}

/** 11900000n → "119000.00". */
export function centsToMoney(cents: bigint): Money {
  if (cents < 0n) throw new RangeError("negative amounts are not money in this protocol");
  return centsToDecimal(cents);
}
