/**
 * DIAN-mode documents for tests and the bench: the protocol's document plus DIAN mode's software and
 * numbering resolution (habilitación's test range SETP 990000000–995000000, resolution 18760000001).
 */
import { randomInt, randomUUID } from "node:crypto";
import type { Line, SubmitDocumentRequest } from "../../shared/ports/providers/protocol.ts";
import type { DianDocumentInput, DianMode } from "../../shared/providers/dian/input.ts";
import { colombianTime } from "../../shared/providers/dian/signature.ts";

export const TEST_SOFTWARE = {
  id: "56f2ae4e-9812-4fad-9255-08fcfcd5ccb0",
  pin: "12345",
} as const;

/**
 * A fixture document signed a minute after it was issued, on its issue date as DIAN wants
 * (FAD09e/CAD09e): the options `buildSignedDocument` takes for it. The service signs with its clock
 * (shared/ports/clock.ts); a fixture, dated once and for all, is signed at a fixed instant of its own.
 */
export function signedAtIssue(input: DianDocumentInput): { signingTime: string } {
  const { issue_date, issue_time } = input.document;
  const [hours = 0, minutes = 0, seconds = 0] = issue_time.slice(0, 8).split(":").map(Number);
  const offset = issue_time.slice(8) || "Z";
  const issued = Date.parse(`${issue_date}T${issue_time.slice(0, 8)}${offset}`);
  if (Number.isNaN(issued) || hours * 3600 + minutes * 60 + seconds > 86_340) {
    throw new RangeError(`cannot sign ${issue_date} ${issue_time} a minute later on the same day`);
  }
  return { signingTime: colombianTime(new Date(issued + 60_000)) };
}

export const TEST_RESOLUTION = {
  number: "18760000001",
  start_date: "2019-01-19",
  end_date: "2030-01-19",
  prefix: "SETP",
  from: "990000000",
  to: "995000000",
} as const;

const ISSUER = {
  nit: "900123456",
  check_digit: "8",
  legal_name: "Empresa Demo S.A.S.",
  trade_name: "Demo",
  person_type: "1",
  tax_regime: "48",
  fiscal_responsibilities: ["O-13", "O-15"],
  email: "facturas@demo.example",
  address: "Calle 100 # 10-20",
  city_code: "11001",
} as const satisfies SubmitDocumentRequest["issuer"];

/** `count` lines alternating 19 % IVA, 5 % IVA, 8 % INC and not taxed (ZZ), with their totals. */
export function dianLines(count: number): { lines: Line[]; totals: SubmitDocumentRequest["totals"] } {
  const kinds = [
    { tax_code: "01", tax_rate: "19.00", rate: 19n },
    { tax_code: "01", tax_rate: "5.00", rate: 5n },
    { tax_code: "04", tax_rate: "8.00", rate: 8n },
    { tax_code: "ZZ", tax_rate: "0.00", rate: 0n },
  ] as const;
  const lines: Line[] = [];
  let subtotal = 0n;
  let tax = 0n;
  for (let i = 0; i < count; i++) {
    const kind = kinds[i % kinds.length] ?? kinds[0];
    const quantity = BigInt((i % 3) + 1);
    const unit = BigInt(10_000 + i * 1_250) * 100n;
    const base = quantity * unit;
    const taxCents = (base * kind.rate + 50n) / 100n;
    subtotal += base;
    tax += taxCents;
    lines.push({
      position: i + 1,
      code: `REF-${i + 1}`,
      description: `Artículo de prueba ${i + 1} & "accesorios" <caja>`,
      unit_code: "94",
      quantity: String(quantity),
      unit_price: cents(unit),
      line_extension: cents(base),
      tax_code: kind.tax_code,
      tax_rate: kind.tax_rate,
      tax_amount: cents(taxCents),
    });
  }
  return {
    lines,
    totals: { subtotal: cents(subtotal), tax_total: cents(tax), total: cents(subtotal + tax) },
  };
}

const cents = (value: bigint) => `${value / 100n}.${String(value % 100n).padStart(2, "0")}`;

/** An invoice of `lines` lines in the test range, with a fresh reference and number. */
export function dianInvoice(lines = 3, change?: (doc: SubmitDocumentRequest) => void): DianDocumentInput {
  const document: SubmitDocumentRequest = {
    kind: "invoice",
    reference: randomUUID(),
    environment: "uat",
    number: `SETP${randomInt(990_000_000, 995_000_000)}`,
    issue_date: "2026-11-20",
    issue_time: "10:30:00-05:00",
    due_date: "2026-12-20",
    currency: "COP",
    payment_form: "2",
    payment_method: "42",
    notes: "Gracias por su compra",
    issuer: {
      ...ISSUER,
      fiscal_responsibilities: [...ISSUER.fiscal_responsibilities],
      technical_key: "fc8eac422eba16e22ffd8c6f94b3f40a6e38162c",
    },
    buyer: {
      id_type: "31",
      id_number: "800197268",
      check_digit: "4",
      name: "Cliente Ejemplo S.A.",
      email: "compras@cliente.example",
      address: "Carrera 7 # 32-16",
      city_code: "05001",
      phone: "6045550000",
    },
    ...dianLines(lines),
  };
  change?.(document);
  const dian: DianMode = { software: { ...TEST_SOFTWARE }, resolution: { ...TEST_RESOLUTION } };
  return { document, dian };
}

/**
 * A credit note of `invoice`: a partial return (concept 1) of one unit of its first line when
 * `partial`, else the annulment (concept 2) of every line.
 */
export function dianCreditNote(invoice: DianDocumentInput, cufe: string, partial = true): DianDocumentInput {
  const source = invoice.document;
  const first = source.lines[0];
  if (!first) throw new Error("the invoice has no lines");
  const lines: Line[] = partial
    ? [
        {
          ...first,
          quantity: "1",
          line_extension: first.unit_price,
          tax_amount: cents(
            (BigInt(first.unit_price.replace(".", "")) * BigInt(first.tax_rate.split(".")[0] ?? "0") + 50n) /
              100n,
          ),
        },
      ]
    : source.lines;
  const subtotal = lines.reduce((s, l) => s + BigInt(l.line_extension.replace(".", "")), 0n);
  const tax = lines.reduce((s, l) => s + BigInt(l.tax_amount.replace(".", "")), 0n);
  const { technical_key: _key, ...issuer } = source.issuer;
  const document: SubmitDocumentRequest = {
    kind: "credit_note",
    reference: randomUUID(),
    environment: source.environment,
    number: `NC${randomInt(1, 999_999)}`,
    issue_date: "2026-11-21",
    issue_time: "09:15:00-05:00",
    currency: source.currency,
    issuer: { ...issuer, software_pin: TEST_SOFTWARE.pin },
    buyer: source.buyer,
    lines,
    totals: { subtotal: cents(subtotal), tax_total: cents(tax), total: cents(subtotal + tax) },
    billing_reference: { number: source.number, issue_date: source.issue_date, authority_code: cufe },
    correction: partial
      ? { concept_code: "1", reason: "Devolución de una unidad" }
      : { concept_code: "2", reason: "Anulación de la factura" },
  };
  return { document, dian: { software: { ...TEST_SOFTWARE } } };
}

/** A line a debit note charges, worked by hand: its base and tax from quantity, unit price and IVA rate. */
export function debitLine(
  position: number,
  description: string,
  quantity: number,
  unitCents: bigint,
  rate: 0 | 5 | 19,
): Line {
  const base = BigInt(quantity) * unitCents;
  return {
    position,
    code: `ND-${position}`,
    description,
    unit_code: "94",
    quantity: String(quantity),
    unit_price: cents(unitCents),
    line_extension: cents(base),
    tax_code: rate === 0 ? "ZZ" : "01",
    tax_rate: `${rate}.00`,
    tax_amount: cents((base * BigInt(rate) + 50n) / 100n),
  };
}

/**
 * A debit note of `invoice` (concept `concept`: 1 intereses, 2 gastos por cobrar, 3 cambio del valor,
 * 4 otros) charging `lines` — by default one line of interest, not taxed — issued the day after it.
 */
export function dianDebitNote(
  invoice: DianDocumentInput,
  cufe: string,
  concept: "1" | "2" | "3" | "4" = "1",
  lines: Line[] = [debitLine(1, "Intereses de mora: 30 días al 2 % mensual", 1, 4_760_000n, 0)],
): DianDocumentInput {
  const source = invoice.document;
  const subtotal = lines.reduce((s, l) => s + BigInt(l.line_extension.replace(".", "")), 0n);
  const tax = lines.reduce((s, l) => s + BigInt(l.tax_amount.replace(".", "")), 0n);
  const { technical_key: _key, ...issuer } = source.issuer;
  const document: SubmitDocumentRequest = {
    kind: "debit_note",
    reference: randomUUID(),
    environment: source.environment,
    number: `ND${randomInt(1, 999_999)}`,
    issue_date: "2026-11-21",
    issue_time: "09:45:00-05:00",
    currency: source.currency,
    issuer: { ...issuer, software_pin: TEST_SOFTWARE.pin },
    buyer: source.buyer,
    lines,
    totals: { subtotal: cents(subtotal), tax_total: cents(tax), total: cents(subtotal + tax) },
    billing_reference: { number: source.number, issue_date: source.issue_date, authority_code: cufe },
    correction: { concept_code: concept, reason: "Cargo adicional sobre la factura" },
  };
  return { document, dian: { software: { ...TEST_SOFTWARE } } };
}
