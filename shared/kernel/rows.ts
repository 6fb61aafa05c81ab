/**
 * The rows the database API returns, typed once: what `einv_*` functions hand TypeScript as JSON.
 * Shapes follow the SQL that builds them (supabase/migrations), positive lists on both sides.
 */
import type { AuthorityRule, ResultCode } from "./result-codes.ts";

export type DocumentKind = "invoice" | "credit_note" | "debit_note";
export type Environment = "uat" | "prd";

/**
 * A fiscal document's status; `transmitida` is an invoice's "accepted", `emitida` a note's;
 * `descartada` a credit note in error replaced by a later one (it is never sent again).
 */
export type FiscalStatus = "pendiente" | "en_proceso" | "transmitida" | "emitida" | "error" | "descartada";

export interface MembershipRow {
  org_id: string;
  user_id: string;
  role: string;
}

export interface CredentialRow {
  org_id: string;
  company_id: string;
  service: string;
  environment: Environment;
  url: string | null;
  settings: Record<string, unknown>;
  api_key_ciphertext: string | null;
  api_key_hint: string | null;
  verified_at: string | null;
}

/** The issuer as `einv_private.issuer_of` lists it (no secret), as frozen at the first claim. */
export interface IssuerRow {
  id: string;
  org_id: string;
  nit: string;
  check_digit: string;
  legal_name: string;
  trade_name: string | null;
  person_type: string;
  tax_regime: string;
  /** The party's TaxScheme: 01 IVA, 04 INC, ZA IVA e INC, ZZ no aplica. */
  tax_scheme: string;
  fiscal_responsibilities: string[];
  address: string;
  city_code: string;
  city_name: string;
  department_code: string;
  department_name: string;
  postal_zone?: string | null;
  country_code: string;
  email: string | null;
  phone: string | null;
  invoice_prefix: string;
  resolution_number: string | null;
  resolution_date: string | null;
  resolution_from: number | null;
  resolution_to: number | null;
  resolution_valid_until: string | null;
  active_environment: Environment;
}

/** The issuer of an invoice's payload: the row above plus the CUFE's secret, read live. */
export interface PayloadIssuer extends IssuerRow {
  /** The numbering range's technical key (ClTec): an input of the CUFE. Never shown, never logged. */
  technical_key: string | null;
}

/** The issuer of a note's payload (credit or debit): the row above plus the CUDE's secret, read live. */
export interface NoteIssuer extends IssuerRow {
  /** The issuer's DIAN software PIN: an input of the CUDE. Never shown, never logged. */
  software_pin: string | null;
}
/**
 * A tax of a line (or of a credit note's part of one) as the database computed it
 * (supabase/migrations/…_amounts.sql): by percentage (`percent`, `taxable_amount`) or per unit
 * (`per_unit_amount` for every `per_quantity` units of `measure_unit_code`, on `measure`), in pesos.
 */
export interface LineTaxRow {
  code: string;
  name: string;
  percent?: number;
  taxable_amount?: number;
  per_unit_amount?: number;
  per_quantity?: number;
  unit_measure?: number;
  measure_unit_code?: string;
  measure?: number;
  tax_amount: number;
}

/** A discount (`charge` false, DIAN reason code 00/01) or charge, with its amount in pesos. */
export interface AllowanceChargeRow {
  id: number;
  charge: boolean;
  reason_code: string | null;
  reason: string | null;
  percent: number | null;
  base_amount: number;
  amount: number;
}

/** A document's taxes (or withholdings) of one scheme: its total and one subtotal per rate. */
export interface TaxTotalRow {
  code: string;
  name: string;
  tax_amount: number;
  subtotals: Omit<LineTaxRow, "code" | "name">[];
}

/** An advance (PrepaidPayment), its amount in pesos. */
export interface PrepaymentRow {
  id: number;
  reference: string | null;
  received_date: string;
  paid_amount: number;
}

export interface InvoiceLineRow {
  id: string;
  position: number;
  code: string | null;
  description: string;
  unit_code: string;
  quantity: number;
  /** In the document's currency; `price_amount` is it in pesos (PriceAmount). */
  unit_price: number;
  price_amount: number;
  line_extension: number;
  /** The sum of its taxes. */
  tax_amount: number;
  /** Its taxes, one per scheme, in pesos; none: the line is excluded ("excluido"). */
  taxes: LineTaxRow[];
  /** Its discounts and charges, in pesos. */
  allowance_charges: AllowanceChargeRow[];
  /** The line in the deal's currency, when the document's is not COP. */
  currency_amounts?: {
    price_amount: number;
    line_extension: number;
    tax_amount: number;
    taxes: LineTaxRow[];
    allowance_charges: AllowanceChargeRow[];
  } | null;
}

/**
 * The amounts the database adds to a document's payload (…_amounts.sql): LegalMonetaryTotal's other
 * fields, the taxes per scheme and rate, and (invoices) the withholdings, discounts and charges and
 * advances; `problems`: what must not be sent (it depends on more than one input).
 */
export interface DocumentAmountsRow {
  /** Pesos per unit of `currency`, and the rate's date; null for COP. */
  exchange_rate: number | null;
  exchange_rate_date: string | null;
  tax_exclusive_amount: number;
  tax_inclusive_amount: number;
  allowance_total_amount: number;
  charge_total_amount: number;
  tax_totals: TaxTotalRow[];
  allowance_charges: AllowanceChargeRow[];
  /** The same totals in the deal's currency (`document_amounts`' keys), when it is not COP. */
  currency_totals: CurrencyTotalsRow | null;
  prepaid_amount?: number;
  withholding_total_amount?: number;
  net_payable_amount?: number;
  withholding_totals?: TaxTotalRow[];
  prepayments?: PrepaymentRow[];
  problems?: string[];
  /** The buyer's fiscal profile (AdditionalAccountID, TaxLevelCode, TaxScheme, DIVIPOLA address). */
  buyer_person_type: string | null;
  buyer_fiscal_responsibilities: string[];
  buyer_tax_scheme: string;
  buyer_city_name: string | null;
  buyer_department_code: string | null;
  buyer_department_name: string | null;
  buyer_postal_zone: string | null;
  buyer_country_code: string;
}

/** A document's totals in the deal's currency, as `einv_private.document_amounts` answers them. */
export interface CurrencyTotalsRow {
  line_extension_amount: number;
  tax_total: number;
  tax_inclusive_amount: number;
  allowance_total_amount: number;
  charge_total_amount: number;
  payable_amount: number;
  prepaid_amount: number;
  withholding_total_amount: number;
  net_payable_amount: number;
  tax_totals: TaxTotalRow[];
  withholding_totals: TaxTotalRow[];
  allowance_charges: AllowanceChargeRow[];
}

/** `einv_private.invoice_payload`: the invoice's content, its lines and its issuer. */
export interface InvoiceDocumentRow extends DocumentAmountsRow {
  id: string;
  org_id: string;
  company_id: string;
  number: string;
  issue_date: string;
  issue_time: string;
  due_date: string | null;
  currency: string;
  payment_form: string;
  payment_method: string;
  notes: string | null;
  buyer_id_type: string;
  buyer_id_number: string | null;
  buyer_check_digit: string | null;
  buyer_name: string | null;
  buyer_email: string | null;
  buyer_address: string | null;
  buyer_city_code: string | null;
  buyer_phone: string | null;
  subtotal: number;
  tax_total: number;
  total: number;
  lines: InvoiceLineRow[];
  company: PayloadIssuer;
}

/**
 * A credit note's line as the document shows it: the units it returns at the line's price, or one
 * unit (94) of the amount it credits; its tax is that base's at the line's rate.
 */
export interface CreditNoteLineRow extends InvoiceLineRow {
  /** The invoice line it credits, in part or in full. */
  invoice_line_id: string;
}

/**
 * What a new credit note credits of one invoice line (`einv_credit_note_create`): everything left
 * of it (neither), a quantity of its units (decimal text; concept 1), or a base amount (decimal
 * text; concepts 3–6), never both.
 */
export interface CreditedLine {
  line_id: string;
  quantity?: string | undefined;
  amount?: string | undefined;
}

/**
 * What every note's payload says (`einv_private.<kind>_payload`, with `note_of_invoice`): the note,
 * its lines, the buyer and the invoice it is of (its billing reference), and the issuer with the
 * CUDE's secret.
 */
export interface NoteDocumentRow extends DocumentAmountsRow {
  id: string;
  org_id: string;
  company_id: string;
  invoice_id: string;
  number: string;
  issue_date: string;
  issue_time: string;
  /** The DIAN concept of the note's kind: a credit note's correction "1"–"6", a debit note's "1"–"4". */
  concept_code: string;
  reason: string;
  currency: string;
  /** The invoice's payment form and means, and its due date when sold on credit. */
  payment_form: string;
  payment_method: string;
  due_date: string | null;
  subtotal: number;
  tax_total: number;
  total: number;
  buyer_id_type: string;
  buyer_id_number: string | null;
  buyer_check_digit: string | null;
  buyer_name: string | null;
  buyer_email: string | null;
  buyer_address: string | null;
  buyer_city_code: string | null;
  buyer_phone: string | null;
  /** The invoice the note is of: its number, issue date and CUFE. */
  billing_reference: { number: string; issue_date: string; authority_code: string | null };
  lines: InvoiceLineRow[];
  company: NoteIssuer;
}

/** `einv_private.credit_note_payload`: the note, its credited lines, the buyer and the invoice. */
export interface CreditNoteDocumentRow extends NoteDocumentRow {
  lines: CreditNoteLineRow[];
}

/**
 * A line of a new debit note, as the request writes it (`einv_debit_note_create`): an invoice line's
 * inputs — what is charged, how many, at what unit price (decimal text, in the invoice's currency),
 * with which taxes and discounts or charges (…_amounts.sql computes them).
 */
export interface DebitedLine {
  description: string;
  quantity: string;
  unit_price: string;
  taxes?: Record<string, unknown>[] | undefined;
  allowance_charges?: Record<string, unknown>[] | undefined;
  code?: string | undefined;
  unit_code?: string | undefined;
}

/** `einv_private.debit_note_payload`: the note, its lines, the buyer and the invoice it raises. */
export interface DebitNoteDocumentRow extends NoteDocumentRow {
  lines: InvoiceLineRow[];
}

/** The payload of each kind of document. */
export interface DocumentPayloads {
  invoice: InvoiceDocumentRow;
  credit_note: CreditNoteDocumentRow;
  debit_note: DebitNoteDocumentRow;
}

export interface FiscalRow {
  status: FiscalStatus;
  authority_code: string | null;
  qr_text: string | null;
  provider_reference: string | null;
  environment: Environment | null;
  last_message: string | null;
  transmitted_at: string | null;
  attempt_count: number;
  /** A transmission holds the document right now. */
  in_flight: boolean;
}

export interface RepresentationRow {
  org_id: string;
  document_type: DocumentKind;
  document_id: string;
  path: string;
  filename: string;
  fingerprint: string;
  stamped: boolean;
  renderer: "builtin" | "docsgen";
  generated_at: string;
  /** The AttachedDocument XML beside the PDF; null until accepted and obtained. */
  xml_path: string | null;
}

/** One file a delivery handed to the deliver provider (`deliveries.attachments`), and what it holds. */
export interface DeliveryAttachmentRecord {
  filename: string;
  content_type: string;
  size: number;
  /** The files inside an archive (the ZIP's XML and PDF). */
  files?: { filename: string; size: number }[];
}

/** `einv_document_get`: a document, its fiscal state, its current PDF. */
export interface DocumentRecord<K extends DocumentKind = DocumentKind> {
  document: DocumentPayloads[K];
  fiscal: FiscalRow;
  representation: RepresentationRow | null;
}

/** Why a claim left a document as it was. */
export type SkipReason = "accepted" | "failed" | "in_progress" | "not_found" | "test_set_in_production";

/** One document of a claim, in request order. */
export type ClaimEntry<K extends DocumentKind = DocumentKind> =
  | {
      document_id: string;
      action: "skip";
      status: FiscalStatus;
      reason: SkipReason;
      last_message?: string | null;
    }
  | {
      document_id: string;
      action: "send" | "query";
      status: "en_proceso";
      attempt: number;
      /** The attempt whose submit may have reached the provider (its key is reused), or null. */
      submitted_attempt: number | null;
      environment: Environment;
      company_id: string;
      /**
       * Set when this claim issued the document anew: sent afresh on a later day than its stamp,
       * nothing of it at the provider could still be accepted; the stamp it had, as the database
       * writes it (`2026-11-20`, `23:30:12-05`). The new one is the document's `issue_date`, `issue_time`.
       */
      restamped_from: { issue_date: string; issue_time: string } | null;
      document: DocumentPayloads[K];
    };

export interface RecordedOutcome {
  /** `pendiente`: released without anything sent (checks failed, no credential). */
  status: FiscalStatus;
  /** Set when this attempt submitted: the attempt number its idempotency key was derived from. */
  submitted_attempt?: number;
  /** The machine word for it, kept as `last_code` (shared/kernel/result-codes.ts). */
  code: ResultCode;
  /** The API's sentence, kept as `last_message`. */
  message: string;
  /** The authority's own words and rules, as written; left out when the provider did not answer. */
  authority_message?: string;
  authority_rules?: AuthorityRule[];
  authority_code?: string;
  qr_text?: string;
  provider_reference?: string;
  validated_at?: string;
  /**
   * The provider definitely holds nothing it could still accept under the attempt in doubt: it
   * rejected it, or nothing of ours could have reached it. Recorded as the document's
   * `refused_attempt`; an error without it stays in doubt (a credit note in doubt is never replaced).
   */
  definite?: boolean;
  detail?: Record<string, unknown>;
}

/** What the recording functions answer of the outcome they kept (`last_code`, `last_message`, …). */
export interface RecordedResult {
  code: ResultCode;
  message: string;
  authority_message: string | null;
  authority_rules: AuthorityRule[] | null;
  /** Whether the call's transaction queued a webhook delivery (einv_private.webhooks_queued, …_events.sql). */
  webhooks_queued?: boolean;
}
