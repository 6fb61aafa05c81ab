/**
 * What the printed invoice shows, already formatted: the renderer only lays it out. Built from the
 * invoice document (`einv_private.invoice_document`) and the fiscal columns the service wrote. Plain
 * JSON (no Date, no bigint), so equal inputs give an equal model and, from it, equal PDF bytes.
 */

import { CUFE_TAXES, type DianEnvironment, formatAmount as dianAmount, dianQrText } from "../co/cufe.ts";
import { personTypeOf } from "../co/fiscal-profile.ts";
import { DEMO_SOFTWARE, type SoftwareMaker, softwareLine } from "../co/software.ts";
import { centsToDecimal, toCents } from "../kernel/money.ts";
import type {
  CreditNoteDocumentRow,
  DebitNoteDocumentRow,
  FiscalStatus,
  InvoiceDocumentRow,
  IssuerRow,
  NoteDocumentRow,
} from "../kernel/rows.ts";
import {
  DOCUMENT_CURRENCY,
  exchangeRateText,
  lineAllowances,
  lineTaxes,
  type PrintedAmounts,
  type TaxRow,
  type TotalRow,
  taxRows,
  totalRows,
  withholdingRows,
} from "./amounts.ts";
import {
  formatDate,
  formatMoney,
  formatQuantity,
  formatTaxId,
  formatTime,
  isoTimeWithOffset,
} from "./format.ts";
import * as label from "./labels.ts";
import { pesosInWords } from "./words.ts";

/** Bumped whenever the layout changes, so that stored representations are re-rendered. */
export const INVOICE_TEMPLATE_VERSION = "invoice-pdf/4";

export type PageSizeName = "letter" | "a4";

/** The fiscal columns of the invoice row (not part of `InvoiceDocumentRow`). */
export interface InvoiceFiscal {
  status: FiscalStatus;
  /** The CUFE. */
  authority_code: string | null;
  qr_text: string | null;
  /** When the authority validated it; falls back to `transmitted_at`. */
  validated_at?: string | null;
  transmitted_at?: string | null;
  environment: DianEnvironment | null;
}

/** What a kind of document is called on its PDF. */
export interface DocumentNames {
  /** "Factura electrónica de venta": headers, footers, metadata. */
  title: string;
  /** "Factura": in sentences ("… acepte la factura") and the data box ("DATOS DE LA FACTURA"). */
  short: string;
  /** The authority code's name: CUFE (invoices), CUDE (credit notes). */
  codeLabel: "CUFE" | "CUDE";
}

export const INVOICE_NAMES: DocumentNames = {
  title: "Factura electrónica de venta",
  short: "Factura",
  codeLabel: "CUFE",
};

export const CREDIT_NOTE_NAMES: DocumentNames = {
  title: "Nota crédito electrónica",
  short: "Nota crédito",
  codeLabel: "CUDE",
};

export const DEBIT_NOTE_NAMES: DocumentNames = {
  title: "Nota débito electrónica",
  short: "Nota débito",
  codeLabel: "CUDE",
};

/** The authority's validation, printed only once the document is accepted. */
export interface ValidationStamp {
  /** The CUFE or CUDE. */
  authorityCode: string;
  qrText: string;
  /** ISO-8601 instant. */
  validatedAt: string;
  environment: DianEnvironment;
  names: DocumentNames;
  /** The issuing software and its maker, one printed line (../co/software.ts). */
  software: string;
  /**
   * A credit note's corrected invoice and concept, printed in the block too: a provider's PDF that
   * is stamped shows them even if its template does not. Null for an invoice.
   */
  corrects: CorrectedInvoice | null;
}

/** What a note is of, as printed. */
export interface CorrectedInvoice {
  /**
   * The labels the validation block prints them under, when not a credit note's ("Factura que
   * corrige", "Concepto de corrección"): a debit note's raise the invoice, not correct it.
   */
  labels?: { invoice: string; concept: string };
  /** "SETP990000201 del 20/11/2026". */
  invoice: string;
  /** The invoice's CUFE. */
  cufe: string;
  /** "1 · Devolución parcial de los bienes…". */
  concept: string;
}

export type PdfFiscal =
  | ({ stamped: true } & ValidationStamp)
  | { stamped: false; statusLabel: string; software: string };

/** A block of label/value pairs under the parties: what a credit note refers to, for one. */
export interface ReferenceBlock {
  heading: string;
  facts: [string, string][];
}

export interface PdfLine {
  position: string;
  code: string;
  description: string;
  quantity: string;
  unit: string;
  unitPrice: string;
  tax: string;
  total: string;
}

/** Everything the built-in renderer draws, for any kind of document. */
export interface DocumentPdfModel {
  templateVersion: string;
  pageSize: PageSizeName;
  names: DocumentNames;
  number: string;
  issuer: {
    legalName: string;
    tradeName: string | null;
    taxId: string;
    details: string[];
    /** The invoice numbering authorization: an invoice's only (a credit note is not numbered by it). */
    resolution: string | null;
  };
  buyer: { name: string; taxId: string; details: string[] };
  /** Printed under the parties when set (a credit note's invoice, concept and reason). */
  reference: ReferenceBlock | null;
  /** Label/value pairs of the invoice data box: dates, payment, currency. */
  facts: [string, string][];
  lines: PdfLine[];
  /** Each tax by scheme and rate, the lines outside every tax last. */
  taxes: TaxRow[];
  /** The withholdings (an invoice's): informative to DIAN, subtracted from what the buyer pays. */
  withholdings: TaxRow[];
  totals: TotalRow[];
  amountInWords: string | null;
  notes: string | null;
  /** The currency of the amounts printed (the deal's, when another, in `totals` beside them). */
  currency: string;
  fiscal: PdfFiscal;
  /** Fixed PDF creation date (ISO-8601): the validation instant, else the issue date and time. */
  documentDate: string;
}

const STATUS_LABELS: Record<FiscalStatus, string> = {
  pendiente: "pendiente de envío a la DIAN",
  en_proceso: "en proceso de validación por la DIAN",
  transmitida: "aceptada por la DIAN",
  emitida: "aceptada por la DIAN",
  error: "no aceptada por la DIAN",
  descartada: "reemplazada por otra nota crédito: sin efecto",
};

/** Builds an invoice's printable model; `stamped` only when accepted and it has a CUFE. */
export function toInvoicePdfModel(
  doc: InvoiceDocumentRow,
  fiscal: InvoiceFiscal,
  options: PdfOptions = {},
): DocumentPdfModel {
  return buildPdfModel(doc, fiscal, options, {
    names: INVOICE_NAMES,
    resolution: true,
    corrects: null,
    accepted: "transmitida",
    grandTotal: "TOTAL A PAGAR",
    facts: [
      ["Fecha de emisión", formatDate(doc.issue_date)],
      ["Hora de emisión", formatTime(doc.issue_time)],
      ["Fecha de vencimiento", doc.due_date ? formatDate(doc.due_date) : "—"],
      ["Forma de pago", label.paymentFormLabel(doc.payment_form)],
      ["Medio de pago", label.paymentMethodLabel(doc.payment_method)],
      ...currencyFacts(doc),
    ],
    reference: null,
    notes: doc.notes,
  });
}

/** What a kind of note prints that another does not: its names, its concepts, its headings. */
export interface NotePrinting {
  names: DocumentNames;
  /** The grand total's label: "TOTAL NOTA CRÉDITO". */
  grandTotal: string;
  /** The data box's label for the invoice: "Factura que corrige". */
  invoiceFact: string;
  /** The reference block's heading. */
  heading: string;
  /** The concept's label in the block: "Concepto de corrección". */
  conceptLabel: string;
  /** "1" → "Devolución parcial…": the kind's DIAN concepts. */
  concept: (code: string) => string;
  /** The validation block's labels, when not a credit note's. */
  stampLabels?: { invoice: string; concept: string };
}

export const CREDIT_NOTE_PRINTING: NotePrinting = {
  names: CREDIT_NOTE_NAMES,
  grandTotal: "TOTAL NOTA CRÉDITO",
  invoiceFact: "Factura que corrige",
  heading: "FACTURA ELECTRÓNICA REFERENCIADA Y CORRECCIÓN",
  conceptLabel: "Concepto de corrección",
  concept: label.correctionConceptLabel,
};

export const DEBIT_NOTE_PRINTING: NotePrinting = {
  names: DEBIT_NOTE_NAMES,
  grandTotal: "TOTAL NOTA DÉBITO",
  invoiceFact: "Factura que ajusta",
  heading: "FACTURA ELECTRÓNICA REFERENCIADA Y AJUSTE",
  conceptLabel: "Concepto de la nota débito",
  concept: label.debitConceptLabel,
  stampLabels: { invoice: "Factura que ajusta", concept: "Concepto de la nota débito" },
};

/** Builds a credit note's printable model: the invoice it corrects, why, and what it credits. */
export function toCreditNotePdfModel(
  doc: CreditNoteDocumentRow,
  fiscal: InvoiceFiscal,
  options: PdfOptions = {},
): DocumentPdfModel {
  return toNotePdfModel(doc, fiscal, options, CREDIT_NOTE_PRINTING);
}

/** Builds a debit note's printable model: the invoice it raises, why, and what it charges. */
export function toDebitNotePdfModel(
  doc: DebitNoteDocumentRow,
  fiscal: InvoiceFiscal,
  options: PdfOptions = {},
): DocumentPdfModel {
  return toNotePdfModel(doc, fiscal, options, DEBIT_NOTE_PRINTING);
}

/**
 * Builds a note's printable model, whatever its kind: the invoice it is of (number, date, CUFE),
 * its concept by code and name, the reason, its lines — never the invoice numbering authorization.
 */
export function toNotePdfModel(
  doc: NoteDocumentRow,
  fiscal: InvoiceFiscal,
  options: PdfOptions,
  printing: NotePrinting,
): DocumentPdfModel {
  const ref = doc.billing_reference;
  const concept = `${doc.concept_code} · ${printing.concept(doc.concept_code)}`;
  return buildPdfModel(doc, fiscal, options, {
    names: printing.names,
    resolution: false,
    corrects: {
      invoice: `${ref.number} del ${formatDate(ref.issue_date)}`,
      cufe: ref.authority_code ?? "—",
      concept,
      ...(printing.stampLabels ? { labels: printing.stampLabels } : {}),
    },
    accepted: "emitida",
    grandTotal: printing.grandTotal,
    facts: [
      ["Fecha de emisión", formatDate(doc.issue_date)],
      ["Hora de emisión", formatTime(doc.issue_time)],
      [printing.invoiceFact, ref.number],
      ...currencyFacts(doc),
    ],
    reference: {
      heading: printing.heading,
      facts: [
        ["Factura", `${ref.number} del ${formatDate(ref.issue_date)}`],
        ["CUFE de la factura", ref.authority_code ?? "—"],
        [printing.conceptLabel, concept],
        ["Motivo", doc.reason],
      ],
    },
    notes: null,
  });
}

/** What a document of any kind prints: its content, lines and totals, and its issuer. */
type PrintableDocument = Pick<
  InvoiceDocumentRow,
  | "number"
  | "issue_date"
  | "issue_time"
  | "currency"
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
  | "buyer_country_code"
  | "lines"
> &
  PrintedAmounts & { company: IssuerRow; withholding_totals?: InvoiceDocumentRow["withholding_totals"] };

/** The document's currency, and the deal's with its rate when another. */
function currencyFacts(doc: PrintedAmounts): [string, string][] {
  const rate = exchangeRateText(doc);
  return rate
    ? [
        ["Moneda", `${DOCUMENT_CURRENCY} (negociada en ${doc.currency})`],
        ["Tasa de cambio", rate],
      ]
    : [["Moneda", DOCUMENT_CURRENCY]];
}

/** The page size, and the software printed on it (the configured one; a demo one in tests). */
export interface PdfOptions {
  pageSize?: PageSizeName;
  software?: SoftwareMaker;
}

/** What differs between the kinds on paper. */
interface PrintedKind {
  names: DocumentNames;
  /** Whether it prints the invoice numbering authorization. */
  resolution: boolean;
  corrects: CorrectedInvoice | null;
  /** The status in which the document is stamped. */
  accepted: FiscalStatus;
  grandTotal: string;
  facts: [string, string][];
  reference: ReferenceBlock | null;
  notes: string | null;
}

function buildPdfModel(
  doc: PrintableDocument,
  fiscal: InvoiceFiscal,
  options: PdfOptions,
  kind: PrintedKind,
): DocumentPdfModel {
  const software = softwareLine(options.software ?? DEMO_SOFTWARE);
  const c = doc.company;
  // every amount of the document is in pesos (the deal's currency, if another, is in the totals)
  const money = (cents: bigint) => formatMoney(cents, DOCUMENT_CURRENCY);
  const issueTime = isoTimeWithOffset(doc.issue_time);
  const iva = toCents(doc.tax_totals.find((t) => t.code === CUFE_TAXES.iva)?.tax_amount ?? 0);
  const total = toCents(doc.total);

  const environment: DianEnvironment = fiscal.environment ?? (c.active_environment === "prd" ? "prd" : "uat");
  const validatedAt = fiscal.validated_at ?? fiscal.transmitted_at ?? null;
  const stamped = fiscal.status === kind.accepted && !!fiscal.authority_code;
  const pdfFiscal: PdfFiscal = stamped
    ? {
        stamped: true,
        authorityCode: fiscal.authority_code as string,
        names: kind.names,
        // the QR content is fully determined by the document and its code: rebuild it if not stored
        qrText:
          fiscal.qr_text ??
          dianQrText({
            number: doc.number,
            issueDate: doc.issue_date,
            issueTime,
            issuerNit: c.nit,
            buyerId: doc.buyer_id_number ?? "",
            subtotal: dianAmount(doc.subtotal),
            iva: centsToDecimal(iva),
            otherTaxes: centsToDecimal(toCents(doc.tax_total) - iva),
            total: dianAmount(doc.total),
            cufe: fiscal.authority_code as string,
            environment,
            codeLabel: kind.names.codeLabel,
          }),
        validatedAt: validatedAt ?? `${doc.issue_date}T${issueTime}`,
        environment,
        software,
        corrects: kind.corrects,
      }
    : { stamped: false, statusLabel: STATUS_LABELS[fiscal.status], software };

  return {
    templateVersion: INVOICE_TEMPLATE_VERSION,
    pageSize: options.pageSize ?? "letter",
    names: kind.names,
    number: doc.number,
    issuer: {
      legalName: c.legal_name,
      tradeName: c.trade_name || null,
      taxId: `NIT ${formatTaxId(c.nit, c.check_digit)}`,
      details: issuerDetails(c),
      resolution: kind.resolution ? resolutionText(c) : null,
    },
    buyer: {
      name: doc.buyer_name ?? "—",
      taxId: doc.buyer_id_number
        ? `${label.idTypeLabel(doc.buyer_id_type)} ${formatTaxId(doc.buyer_id_number, doc.buyer_check_digit)}`
        : "—",
      details: buyerDetails(doc),
    },
    reference: kind.reference,
    facts: kind.facts,
    lines: doc.lines.map((l) => {
      const allowances = lineAllowances(l);
      return {
        position: String(l.position),
        code: l.code ?? "",
        description: allowances ? `${l.description} · ${allowances}` : l.description,
        quantity: formatQuantity(l.quantity),
        unit: label.unitLabel(l.unit_code),
        unitPrice: money(toCents(l.price_amount)),
        tax: lineTaxes(l),
        total: money(toCents(l.line_extension)),
      };
    }),
    taxes: taxRows(doc.tax_totals, doc.lines),
    withholdings: withholdingRows(doc.withholding_totals),
    totals: totalRows(doc, kind.grandTotal),
    amountInWords: pesosInWords(total),
    notes: kind.notes,
    currency: DOCUMENT_CURRENCY,
    fiscal: pdfFiscal,
    documentDate: pdfFiscal.stamped ? pdfFiscal.validatedAt : `${doc.issue_date}T${issueTime}`,
  };
}

/** The issuer's fiscal profile as its codes say, its address and contact. */
function issuerDetails(c: IssuerRow): string[] {
  const city = c.city_name || null;
  const department = c.department_name || null;
  // "Bogotá, D.C." already names its department
  const cityLine = [city, department && !city?.startsWith(department) ? department : null]
    .filter(Boolean)
    .join(", ");
  const contact = [c.phone && `Tel. ${c.phone}`, c.email].filter(Boolean).join(" · ");
  return [
    [label.taxRegimeLabel(c.tax_regime), label.fiscalProfileLabel(c)].filter(Boolean).join(" · "),
    c.address,
    cityLine,
    contact,
  ].filter((s): s is string => !!s);
}

/** The buyer's fiscal profile as its codes say (DIAN's final consumer's too), address and contact. */
function buyerDetails(doc: PrintableDocument): string[] {
  const city = doc.buyer_city_name || label.cityLabel(doc.buyer_city_code);
  const country = doc.buyer_country_code && doc.buyer_country_code !== "CO" ? doc.buyer_country_code : null;
  return [
    label.fiscalProfileLabel({
      person_type: doc.buyer_person_type ?? personTypeOf(null, doc.buyer_id_type),
      tax_scheme: doc.buyer_tax_scheme,
      fiscal_responsibilities: doc.buyer_fiscal_responsibilities,
    }),
    doc.buyer_address,
    [city, country].filter(Boolean).join(", "),
    doc.buyer_phone && `Tel. ${doc.buyer_phone}`,
    doc.buyer_email,
  ].filter((s): s is string => !!s);
}

function resolutionText(c: IssuerRow): string | null {
  const get = (value: string | number | null) => (value == null || value === "" ? null : String(value));
  const number = get(c.resolution_number);
  if (!number) return null;
  const date = get(c.resolution_date);
  const from = get(c.resolution_from);
  const to = get(c.resolution_to);
  const until = get(c.resolution_valid_until);
  const prefix = get(c.invoice_prefix);
  return [
    `Autorización de numeración de facturación electrónica DIAN No. ${number}`,
    date && `del ${formatDate(date)}`,
    prefix && `prefijo ${prefix}`,
    from && to && `del ${prefix ?? ""}${from} al ${prefix ?? ""}${to}`,
    until && `vigente hasta el ${formatDate(until)}`,
  ]
    .filter(Boolean)
    .join(", ");
}
