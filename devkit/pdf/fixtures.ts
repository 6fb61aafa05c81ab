/**
 * Invoice documents for the PDF tests, shaped exactly as `einv_private.invoice_document` returns
 * them. `demoInvoice()` is the seed's SETP990000201 (supabase/seed.sql): Demo Comercial S.A.S.,
 * transmitted in UAT, CUFE = sha384(number || '-demo'), no stored qr_text.
 */
import { createHash } from "node:crypto";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { dianQrText } from "../../shared/co/cufe.ts";
import { DEMO_SOFTWARE, softwareLine } from "../../shared/co/software.ts";
import type {
  CreditNoteDocumentRow,
  InvoiceDocumentRow,
  LineTaxRow,
  TaxTotalRow,
} from "../../shared/kernel/rows.ts";
import { INVOICE_NAMES, type InvoiceFiscal, type ValidationStamp } from "../../shared/pdf/model.ts";

type Line = InvoiceDocumentRow["lines"][number];

export const DEMO_COMPANY: InvoiceDocumentRow["company"] = {
  id: "c1111111-1111-4111-8111-111111111111",
  org_id: "11111111-1111-4111-8111-111111111111",
  nit: "900123456",
  check_digit: "8",
  legal_name: "Demo Comercial S.A.S.",
  trade_name: "Demo Comercial",
  person_type: "1",
  tax_regime: "48",
  tax_scheme: "01",
  fiscal_responsibilities: ["R-99-PN"],
  address: "Calle 100 # 10-20",
  city_code: "11001",
  city_name: "Bogotá, D.C.",
  department_code: "11",
  department_name: "Bogotá",
  country_code: "CO",
  email: "facturacion@demo.test",
  phone: "6011234567",
  invoice_prefix: "SETP",
  resolution_number: "18760000001",
  resolution_date: "2019-01-19",
  resolution_from: 990000000,
  resolution_to: 995000000,
  resolution_valid_until: "2030-01-19",
  technical_key: "fc8eac422eba16e22ffd8c6f94b3f40a6e38162c",
  active_environment: "uat",
};

/**
 * A line with its arithmetic done the way the database does it (rounded to cents): one IVA at
 * `taxRate` % (0: exempt, "exento"); a line outside every tax passes `taxes: []` in `extra`.
 */
export function line(
  position: number,
  quantity: number,
  unitPrice: number,
  taxRate: number,
  extra?: Partial<Line> & { taxCode?: "01" | "04" },
): Line {
  const extension = Math.round(quantity * unitPrice * 100) / 100;
  const { taxCode = "01", ...rest } = extra ?? {};
  const taxAmount = Math.round(extension * taxRate) / 100;
  const taxes = rest.taxes ?? [
    {
      code: taxCode,
      name: taxCode === "01" ? "IVA" : "INC",
      percent: taxRate,
      taxable_amount: extension,
      tax_amount: taxAmount,
    },
  ];
  return {
    id: `00000000-0000-4000-8000-${String(position).padStart(12, "0")}`,
    position,
    code: null,
    description: `Artículo ${position}`,
    unit_code: "94",
    quantity,
    unit_price: unitPrice,
    price_amount: unitPrice,
    line_extension: extension,
    taxes,
    allowance_charges: [],
    tax_amount: taxes.reduce((sum, t) => sum + Math.round(t.tax_amount * 100), 0) / 100,
    ...rest,
  };
}

/**
 * The document with its amounts summed from `lines` as the database sums them (in cents, so no
 * float drift): the taxes per scheme (01, 04, 03 first) and rate, and the LegalMonetaryTotal.
 */
export function withLines(doc: InvoiceDocumentRow, lines: Line[]): InvoiceDocumentRow {
  const cents = (v: number) => Math.round(v * 100);
  const schemes = new Map<string, TaxTotalRow>();
  let taxable = 0;
  for (const l of lines) {
    for (const t of l.taxes) {
      const scheme = schemes.get(t.code) ?? { code: t.code, name: t.name, tax_amount: 0, subtotals: [] };
      schemes.set(t.code, scheme);
      const key = (s: Omit<LineTaxRow, "code" | "name">) =>
        `${s.percent}|${s.per_unit_amount}|${s.per_quantity}`;
      const { code: _code, name: _name, ...part } = t;
      const same = scheme.subtotals.find((s) => key(s) === key(part));
      if (same) {
        same.tax_amount = (cents(same.tax_amount) + cents(t.tax_amount)) / 100;
        if (same.taxable_amount !== undefined) {
          same.taxable_amount = (cents(same.taxable_amount) + cents(t.taxable_amount ?? 0)) / 100;
        }
        if (same.measure !== undefined) same.measure += t.measure ?? 0;
      } else scheme.subtotals.push({ ...part });
      scheme.tax_amount = (cents(scheme.tax_amount) + cents(t.tax_amount)) / 100;
      if (t.percent !== undefined) taxable += cents(t.taxable_amount ?? 0);
    }
  }
  const order = (code: string) => ["01", "04", "03"].indexOf(code) + 1 || 10 + Number(code);
  const subtotal = lines.reduce((s, l) => s + cents(l.line_extension), 0);
  const tax = lines.reduce((s, l) => s + cents(l.tax_amount), 0);
  const allowances = doc.allowance_charges.filter((a) => !a.charge).reduce((s, a) => s + cents(a.amount), 0);
  const charges = doc.allowance_charges.filter((a) => a.charge).reduce((s, a) => s + cents(a.amount), 0);
  const total = subtotal + tax - allowances + charges;
  const withheld = cents(doc.withholding_total_amount ?? 0);
  const prepaid = cents(doc.prepaid_amount ?? 0);
  return {
    ...doc,
    lines,
    subtotal: subtotal / 100,
    tax_total: tax / 100,
    total: total / 100,
    tax_exclusive_amount: taxable / 100,
    tax_inclusive_amount: (subtotal + tax) / 100,
    allowance_total_amount: allowances / 100,
    charge_total_amount: charges / 100,
    net_payable_amount: (total - withheld - prepaid) / 100,
    // as the database orders them: schemes IVA, INC, ICA first, then by code; rates ascending
    tax_totals: [...schemes.values()]
      .sort((a, b) => order(a.code) - order(b.code))
      .map((t) => ({ ...t, subtotals: t.subtotals.sort((a, b) => (a.percent ?? 0) - (b.percent ?? 0)) })),
  };
}

export function demoInvoice(): InvoiceDocumentRow {
  const doc: InvoiceDocumentRow = {
    id: "6c0b2a8e-0000-4000-8000-000000000201",
    org_id: "11111111-1111-4111-8111-111111111111",
    company_id: "c1111111-1111-4111-8111-111111111111",
    number: "SETP990000201",
    issue_date: "2026-11-20",
    issue_time: "10:15:00-05",
    due_date: null,
    currency: "COP",
    payment_form: "1",
    payment_method: "10",
    notes: null,
    buyer_id_type: "31",
    buyer_id_number: "860000000",
    buyer_check_digit: "0",
    buyer_name: "Cliente Demo 1 S.A.S.",
    buyer_email: "cliente1@cliente.test",
    buyer_address: "Avenida 68 # 1-1",
    buyer_city_code: "11001",
    buyer_phone: null,
    buyer_person_type: "1",
    buyer_fiscal_responsibilities: ["R-99-PN"],
    buyer_tax_scheme: "ZZ",
    buyer_city_name: null,
    buyer_department_code: "11",
    buyer_department_name: null,
    buyer_postal_zone: null,
    buyer_country_code: "CO",
    exchange_rate: null,
    exchange_rate_date: null,
    subtotal: 0,
    tax_total: 0,
    total: 0,
    tax_exclusive_amount: 0,
    tax_inclusive_amount: 0,
    allowance_total_amount: 0,
    charge_total_amount: 0,
    prepaid_amount: 0,
    withholding_total_amount: 0,
    net_payable_amount: 0,
    tax_totals: [],
    withholding_totals: [],
    allowance_charges: [],
    prepayments: [],
    currency_totals: null,
    problems: [],
    lines: [],
    company: DEMO_COMPANY,
  };
  // seed: 2 × 50.000 at 19 % IVA, and 1 × (10.000 + 1.000 × (990000201 mod 50)) exempt
  return withLines(doc, [
    line(1, 2, 50_000, 19, { code: "SRV-01", description: "Servicio de consultoría" }),
    line(2, 1, 11_000, 0, { code: "LIB-07", description: "Libro técnico (exento)" }),
  ]);
}

export const DEMO_CUFE = createHash("sha384").update("SETP990000201-demo").digest("hex");
export const DEMO_VALIDATED_AT = "2026-11-20T15:16:42Z";

/** The DIAN QR text of the demo invoice, built here independently of the renderer's model. */
export const DEMO_QR_TEXT = dianQrText({
  number: "SETP990000201",
  issueDate: "2026-11-20",
  issueTime: "10:15:00-05:00",
  issuerNit: "900123456",
  buyerId: "860000000",
  subtotal: "111000.00",
  iva: "19000.00",
  otherTaxes: "0.00",
  total: "130000.00",
  cufe: DEMO_CUFE,
  environment: "uat",
});

export function acceptedFiscal(overrides: Partial<InvoiceFiscal> = {}): InvoiceFiscal {
  return {
    status: "transmitida",
    authority_code: DEMO_CUFE,
    qr_text: null,
    validated_at: DEMO_VALIDATED_AT,
    environment: "uat",
    ...overrides,
  };
}

export function pendingFiscal(): InvoiceFiscal {
  return { status: "pendiente", authority_code: null, qr_text: null, environment: null };
}

const PRODUCTS = [
  "Servicio de soporte técnico mensual",
  "Licencia de software de contabilidad (usuario adicional)",
  "Cable UTP categoría 6, caja por 305 m",
  "Capacitación presencial en facturación electrónica, jornada de ocho horas en las instalaciones del cliente",
  "Mantenimiento preventivo de equipos",
];

/** A realistic invoice of `count` lines, mixing 19 %, 5 % and exempt lines and wrapping descriptions. */
export function manyLinesInvoice(count: number): InvoiceDocumentRow {
  const lines = Array.from({ length: count }, (_, i) => {
    const rate = [19, 19, 5, 0][i % 4] ?? 0;
    const quantity = [1, 2, 3.5, 12][i % 4] ?? 1;
    return line(i + 1, quantity, 1_000 * ((i * 37) % 90) + 12_500.5, rate, {
      code: `REF-${String(i + 1).padStart(4, "0")}`,
      description: PRODUCTS[i % PRODUCTS.length] ?? "Artículo",
      unit_code: i % 4 === 3 ? "HUR" : "94",
    });
  });
  return withLines(
    { ...demoInvoice(), number: "SETP990000777", due_date: "2026-12-20", payment_form: "2" },
    lines,
  );
}

export const DEMO_STAMP: ValidationStamp = {
  authorityCode: DEMO_CUFE,
  names: INVOICE_NAMES,
  qrText: DEMO_QR_TEXT,
  validatedAt: DEMO_VALIDATED_AT,
  environment: "uat",
  software: softwareLine(DEMO_SOFTWARE),
  corrects: null,
};

/** A stand-in for a docsgen provider's PDF: two A4 pages of its own, with a crop box. */
export async function providerPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setCreationDate(new Date("2026-11-20T15:00:00Z"));
  doc.setModificationDate(new Date("2026-11-20T15:00:00Z"));
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  for (const n of [1, 2]) {
    const page = doc.addPage([595.28, 841.89]);
    page.drawText(`Factura del proveedor, página ${n}`, { x: 60, y: 780, size: 14, font });
    page.setCropBox(18, 24, 560, 800);
  }
  return doc.save();
}

/** The demo invoice's first line credited by a credit note, shaped as `credit_note_payload` returns it. */
export function demoCreditNote(): CreditNoteDocumentRow {
  const invoice = demoInvoice();
  const [first] = invoice.lines;
  if (!first) throw new Error("the demo invoice has lines");
  const {
    company,
    lines: _lines,
    notes: _notes,
    withholding_totals: _withholdings,
    prepayments: _prepayments,
    prepaid_amount: _prepaid,
    withholding_total_amount: _withheld,
    net_payable_amount: _net,
    problems: _problems,
    ...rest
  } = invoice;
  const note = withLines(invoice, [first]);
  return {
    ...rest,
    id: "6c0b2a8e-0000-4000-8000-00000000c001",
    invoice_id: invoice.id,
    number: "NC1",
    issue_date: "2026-11-21",
    issue_time: "09:30:00-05",
    concept_code: "1",
    reason: "Devolución parcial: el cliente devolvió el servicio de consultoría",
    subtotal: note.subtotal,
    tax_total: note.tax_total,
    total: note.total,
    tax_exclusive_amount: note.tax_exclusive_amount,
    tax_inclusive_amount: note.tax_inclusive_amount,
    tax_totals: note.tax_totals,
    billing_reference: { number: invoice.number, issue_date: invoice.issue_date, authority_code: DEMO_CUFE },
    lines: [{ ...first, invoice_line_id: first.id }],
    company: { ...company, software_pin: "12345" },
  };
}

/** The demo credit note's CUDE, from the Anexo's formula with the software PIN (computed independently). */
export const DEMO_CUDE = createHash("sha384")
  .update("NC12026-11-2109:30:00-05:00100000.000119000.00040.00030.00119000.00900123456860000000123452")
  .digest("hex");

/** The DIAN QR text of the demo credit note, built here independently of the renderer's model. */
export const DEMO_NOTE_QR_TEXT = [
  "NumFac: NC1",
  "FecFac: 2026-11-21",
  "HorFac: 09:30:00-05:00",
  "NitFac: 900123456",
  "DocAdq: 860000000",
  "ValFac: 100000.00",
  "ValIva: 19000.00",
  "ValOtroIm: 0.00",
  "ValTolFac: 119000.00",
  `CUDE: ${DEMO_CUDE}`,
  `QRCode: https://catalogo-vpfe-hab.dian.gov.co/document/searchqr?documentkey=${DEMO_CUDE}`,
].join("\n");
