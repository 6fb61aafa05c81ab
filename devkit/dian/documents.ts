/**
 * DIAN-mode documents for tests and the bench: the protocol's document plus DIAN mode's software and
 * numbering resolution (habilitación's test range SETP 990000000–995000000, resolution 18760000001).
 */
import { randomInt, randomUUID } from "node:crypto";
import { colombianTime } from "../../shared/co/time.ts";
import type { Line, SubmitDocumentRequest } from "../../shared/ports/providers/protocol.ts";
import type { DianDocumentInput, DianMode } from "../../shared/providers/dian/input.ts";

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
  tax_scheme: "01",
  fiscal_responsibilities: ["O-13", "O-15"],
  email: "facturas@demo.example",
  address: "Calle 100 # 10-20",
  city_code: "11001",
  city_name: "Bogotá, D.C.",
  department_code: "11",
  department_name: "Bogotá",
  postal_zone: "110111",
  country_code: "CO",
} as const satisfies SubmitDocumentRequest["issuer"];

const KINDS = [
  { code: "01", name: "IVA", percent: "19.00", rate: 19n },
  { code: "01", name: "IVA", percent: "5.00", rate: 5n },
  { code: "04", name: "INC", percent: "8.00", rate: 8n },
  null, // excluded: no tax at all
] as const;

/**
 * `count` lines alternating 19 % IVA, 5 % IVA, 8 % INC and excluded (no tax), with the document's
 * taxes per scheme and rate and its totals (`withAmounts`).
 */
export function dianLines(count: number): Pick<SubmitDocumentRequest, "lines" | "tax_totals" | "totals"> {
  const lines: Line[] = [];
  for (let i = 0; i < count; i++) {
    const kind = KINDS[i % KINDS.length] ?? null;
    const quantity = BigInt((i % 3) + 1);
    const unit = BigInt(10_000 + i * 1_250) * 100n;
    const base = quantity * unit;
    const taxCents = kind ? (base * kind.rate + 50n) / 100n : 0n;
    lines.push({
      position: i + 1,
      code: `REF-${i + 1}`,
      description: `Artículo de prueba ${i + 1} & "accesorios" <caja>`,
      unit_code: "94",
      quantity: String(quantity),
      unit_price: cents(unit),
      line_extension: cents(base),
      taxes: kind
        ? [
            {
              code: kind.code,
              name: kind.name,
              percent: kind.percent,
              taxable_amount: cents(base),
              tax_amount: cents(taxCents),
            },
          ]
        : [],
      tax_amount: cents(taxCents),
    });
  }
  return withAmounts({ lines });
}

const cents = (value: bigint) => `${value / 100n}.${String(value % 100n).padStart(2, "0")}`;
const toCents = (value: string) => BigInt(value.replace(".", ""));

/**
 * `lines`, with the document's taxes per scheme (01, 04, 03 first) and rate and its
 * LegalMonetaryTotal summed from them, as the database sums them (…_amounts.sql), and the document
 * discounts or charges given. A fixture's bookkeeping, not a second implementation to test against:
 * tests assert hand-worked values.
 */
export function withAmounts(doc: {
  lines: Line[];
  allowance_charges?: SubmitDocumentRequest["allowance_charges"];
}): Pick<SubmitDocumentRequest, "lines" | "tax_totals" | "totals"> {
  type Total = SubmitDocumentRequest["tax_totals"][number];
  type Subtotal = Total["subtotals"][number];
  const schemes = new Map<string, { total: Total; rates: Map<string, Subtotal> }>();
  let subtotal = 0n;
  let taxable = 0n;
  let tax = 0n;
  for (const line of doc.lines) {
    subtotal += toCents(line.line_extension);
    for (const { code, name, ...part } of line.taxes) {
      const scheme = schemes.get(code) ?? {
        total: { code, name, tax_amount: "0.00", subtotals: [] as Subtotal[] },
        rates: new Map<string, Subtotal>(),
      };
      schemes.set(code, scheme);
      const key =
        "percent" in part ? part.percent : `${part.per_unit_amount} ${part.per_quantity} ${part.unit_code}`;
      const same = scheme.rates.get(key);
      if (!same) {
        const copy = { ...part };
        scheme.rates.set(key, copy);
        scheme.total.subtotals.push(copy);
      } else if ("percent" in same && "percent" in part) {
        same.taxable_amount = cents(toCents(same.taxable_amount) + toCents(part.taxable_amount));
        same.tax_amount = cents(toCents(same.tax_amount) + toCents(part.tax_amount));
      } else if (!("percent" in same) && !("percent" in part)) {
        same.base_unit_measure = String(Number(same.base_unit_measure) + Number(part.base_unit_measure));
        same.tax_amount = cents(toCents(same.tax_amount) + toCents(part.tax_amount));
      }
      scheme.total.tax_amount = cents(toCents(scheme.total.tax_amount) + toCents(part.tax_amount));
      if ("percent" in part) taxable += toCents(part.taxable_amount);
      tax += toCents(part.tax_amount);
    }
  }
  const order = (code: string) => ["01", "04", "03"].indexOf(code) + 1 || 10 + Number(code);
  const sum = (charge: boolean) =>
    (doc.allowance_charges ?? [])
      .filter((a) => a.charge === charge)
      .reduce((s, a) => s + toCents(a.amount), 0n);
  const total = subtotal + tax - sum(false) + sum(true);
  return {
    lines: doc.lines,
    tax_totals: [...schemes.values()].map((s) => s.total).sort((a, b) => order(a.code) - order(b.code)),
    totals: {
      subtotal: cents(subtotal),
      tax_exclusive_amount: cents(taxable),
      tax_total: cents(tax),
      tax_inclusive_amount: cents(subtotal + tax),
      allowance_total_amount: cents(sum(false)),
      charge_total_amount: cents(sum(true)),
      prepaid_amount: "0.00",
      total: cents(total),
      withholding_total_amount: "0.00",
      net_payable_amount: cents(total),
    },
  };
}

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
      person_type: "1",
      fiscal_responsibilities: ["O-13"],
      tax_scheme: "01",
      email: "compras@cliente.example",
      address: "Carrera 7 # 32-16",
      city_code: "05001",
      department_code: "05",
      country_code: "CO",
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
  const unitTaxes = first.taxes.map((t) =>
    "percent" in t
      ? {
          ...t,
          taxable_amount: first.unit_price,
          tax_amount: cents((toCents(first.unit_price) * toCents(t.percent) + 5_000n) / 10_000n),
        }
      : t,
  );
  const lines: Line[] = partial
    ? [
        {
          ...first,
          quantity: "1",
          line_extension: first.unit_price,
          taxes: unitTaxes,
          tax_amount: cents(unitTaxes.reduce((s, t) => s + toCents(t.tax_amount), 0n)),
        },
      ]
    : source.lines;
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
    ...withAmounts({ lines }),
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
    // not taxed: no tax at all (as the database writes a line without taxes)
    taxes:
      rate === 0
        ? []
        : [
            {
              code: "01",
              name: "IVA",
              percent: `${rate}.00`,
              taxable_amount: cents(base),
              tax_amount: cents((base * BigInt(rate) + 50n) / 100n),
            },
          ],
    tax_amount: cents(rate === 0 ? 0n : (base * BigInt(rate) + 50n) / 100n),
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
    ...withAmounts({ lines }),
    billing_reference: { number: source.number, issue_date: source.issue_date, authority_code: cufe },
    correction: { concept_code: concept, reason: "Cargo adicional sobre la factura" },
  };
  return { document, dian: { software: { ...TEST_SOFTWARE } } };
}
