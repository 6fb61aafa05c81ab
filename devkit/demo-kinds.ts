/**
 * The kinds of invoice DIAN's content allows beyond the simplest sale, each as a web app writes its
 * draft with supabase-js (docs/creating-invoices.md shows the same inputs): the invoice's columns
 * and its lines, inputs only — the database computes every amount (docs/adr/0009). `npm start`
 * seeds one of each for Demo Org's two companies (supabase/seed.sql, the same inputs:
 * tests/db/seed-kinds.test.ts holds the two together), and the tests write them as a
 * member, transmit them in sandbox and in DIAN mode, and check the UBL and the PDF against the
 * amounts below, worked by hand (`expected`).
 *
 * Sources of the figures: the B2B withholdings as the ADR's formulas (ReteFuente and ReteICA on the
 * LineExtensionAmount; ReteICA per mil as a percent, 9.66 ‰ = 0.966, as Odoo's 0.414); the bags
 * as Odoo 19's `invoice_plastic_bags.xml` (70 pesos a bag, no base, no percent); the line discount as
 * `invoice_with_line_discount.xml` (10 % of 100 → 90 taxed); the dollars as
 * `invoice_multicurrency.xml` (226.98 USD at 3919.109578: 889559.49 pesos, 169016.30 of IVA)
 * (yckhg/sse@d4c746f, odoo-19.0+e.20260101/odoo/addons/l10n_co_dian/tests/attachments/).
 */
import type { TablesInsert } from "../client/database.ts";

export type DraftInvoice = Omit<TablesInsert<"invoices">, "org_id" | "company_id" | "number">;
export type DraftLine = Omit<TablesInsert<"invoice_lines">, "invoice_id" | "org_id">;

/** What a kind's document comes to, in pesos (and, for a foreign deal, in its currency). */
export interface ExpectedAmounts {
  subtotal: string;
  tax_exclusive: string;
  /** Per scheme: its TaxTotal amount. */
  taxes: Record<string, string>;
  tax_inclusive: string;
  allowances: string;
  charges: string;
  payable: string;
  prepaid: string;
  /** Per withholding code: its amount. */
  withholdings: Record<string, string>;
  net: string;
  deal?: { currency: string; subtotal: string; tax_total: string; total: string };
}

export interface DemoKind {
  /** A short name for tests and the seed's comments. */
  key: "servicios" | "restaurante" | "bolsas" | "exportacion" | "persona-natural";
  title: string;
  /** Its consecutive in Demo Org's sandbox company (SETP990000061…) and in its DIAN company (…507…). */
  numbers: { sandbox: string; dian: string };
  invoice: DraftInvoice;
  lines: DraftLine[];
  expected: ExpectedAmounts;
}

/** A credit sale's due date: thirty days after today in Bogotá, so the seed never goes stale. */
export function dueInThirtyDays(now = new Date()): string {
  const bogota = new Date(now.getTime() - 5 * 3_600_000);
  return new Date(bogota.getTime() + 30 * 86_400_000).toISOString().slice(0, 10);
}

export const DEMO_KINDS: readonly DemoKind[] = [
  {
    key: "servicios",
    title: "B2B services on credit, with ReteFuente and ReteICA",
    numbers: { sandbox: "SETP990000061", dian: "SETP990000507" },
    invoice: {
      buyer_id_type: "31",
      buyer_id_number: "900373913",
      buyer_check_digit: "4",
      buyer_person_type: "1",
      buyer_fiscal_responsibilities: ["O-13", "O-15"],
      buyer_tax_scheme: "01",
      buyer_name: "Cliente Industrial S.A.S.",
      buyer_email: "compras@industrial.test",
      buyer_address: "Carrera 43A # 1-50",
      buyer_city_code: "05001",
      buyer_city_name: "Medellín",
      buyer_department_code: "05",
      buyer_department_name: "Antioquia",
      buyer_postal_zone: "050021",
      payment_form: "2",
      payment_method: "42",
      withholdings: [
        { code: "06", percent: 4 },
        { code: "07", percent: 0.966 },
      ],
    },
    lines: [
      {
        position: 1,
        code: "MNT-01",
        description: "Mantenimiento mensual de equipos",
        quantity: 1,
        unit_price: 2_500_000,
        taxes: [{ code: "01", percent: 19 }],
      },
    ],
    // 19 % of 2.500.000 = 475.000; ReteFuente 4 % = 100.000, ReteICA 0,966 % = 24.150 of 2.500.000
    expected: {
      subtotal: "2500000.00",
      tax_exclusive: "2500000.00",
      taxes: { "01": "475000.00" },
      tax_inclusive: "2975000.00",
      allowances: "0.00",
      charges: "0.00",
      payable: "2975000.00",
      prepaid: "0.00",
      withholdings: { "06": "100000.00", "07": "24150.00" },
      net: "2850850.00",
    },
  },
  {
    key: "restaurante",
    title: "a restaurant bill with INC and a tip, to DIAN's final consumer",
    numbers: { sandbox: "SETP990000062", dian: "SETP990000508" },
    invoice: {
      buyer_id_type: "13",
      buyer_id_number: "222222222222",
      buyer_name: "Consumidor final",
      payment_form: "1",
      payment_method: "10",
      allowance_charges: [{ charge: true, reason: "Propina voluntaria", percent: 10 }],
    },
    lines: [
      {
        position: 1,
        code: "MENU-01",
        description: "Menú del día",
        quantity: 2,
        unit_price: 25_000,
        taxes: [{ code: "04", percent: 8 }],
      },
      {
        position: 2,
        code: "BEB-03",
        description: "Limonada natural",
        quantity: 2,
        unit_price: 6_000,
        taxes: [{ code: "04", percent: 8 }],
      },
    ],
    // 50.000 + 12.000 = 62.000; INC 8 % = 4.000 + 960; tip 10 % of 62.000 = 6.200 (taxes nothing)
    expected: {
      subtotal: "62000.00",
      tax_exclusive: "62000.00",
      taxes: { "04": "4960.00" },
      tax_inclusive: "66960.00",
      allowances: "0.00",
      charges: "6200.00",
      payable: "73160.00",
      prepaid: "0.00",
      withholdings: {},
      net: "73160.00",
    },
  },
  {
    key: "bolsas",
    title: "a sale with plastic bags (INC bolsas per unit), a line discount and a delivery charge",
    numbers: { sandbox: "SETP990000063", dian: "SETP990000509" },
    invoice: {
      buyer_id_type: "13",
      buyer_id_number: "52123456",
      buyer_person_type: "2",
      buyer_name: "María Pérez",
      buyer_email: "maria.perez@correo.test",
      buyer_address: "Calle 45 # 13-20",
      buyer_city_code: "11001",
      buyer_department_code: "11",
      payment_form: "1",
      payment_method: "48",
      allowance_charges: [{ charge: true, reason: "Domicilio", amount: 5_000 }],
    },
    lines: [
      {
        position: 1,
        code: "MER-01",
        description: "Mercado",
        quantity: 1,
        unit_price: 100_000,
        taxes: [{ code: "01", percent: 19 }],
        allowance_charges: [
          { charge: false, reason_code: "00", reason: "Descuento cliente frecuente", percent: 10 },
        ],
      },
      {
        position: 2,
        code: "BOLSA",
        description: "Bolsa plástica",
        quantity: 2,
        unit_price: 100,
        taxes: [
          { code: "01", percent: 19 },
          { code: "22", per_unit_amount: 70 },
        ],
      },
    ],
    // line 1: 100.000 - 10 % = 90.000, IVA 17.100; line 2: 200, IVA 38, bags 2 × 70 = 140 (no base)
    expected: {
      subtotal: "90200.00",
      tax_exclusive: "90200.00",
      taxes: { "01": "17138.00", "22": "140.00" },
      tax_inclusive: "107478.00",
      allowances: "0.00",
      charges: "5000.00",
      payable: "112478.00",
      prepaid: "0.00",
      withholdings: {},
      net: "112478.00",
    },
  },
  {
    key: "exportacion",
    title: "an export-style sale in US dollars, with its exchange rate and an advance",
    numbers: { sandbox: "SETP990000064", dian: "SETP990000510" },
    invoice: {
      currency: "USD",
      exchange_rate: 3919.109578,
      exchange_rate_date: "2026-11-20",
      buyer_id_type: "50",
      buyer_id_number: "123456789",
      buyer_name: "Importer Inc.",
      buyer_email: "purchasing@importer.test",
      buyer_address: "100 Main Street",
      buyer_city_name: "Miami",
      buyer_country_code: "US",
      payment_form: "1",
      payment_method: "45",
      prepayments: [{ amount: 100, received_date: "2026-11-01", reference: "Anticipo 1" }],
    },
    lines: [
      {
        position: 1,
        code: "CAFE-LB",
        description: "Café especial (lb)",
        quantity: 1,
        unit_price: 226.98,
        taxes: [{ code: "01", percent: 19 }],
      },
    ],
    // 226,98 USD × 3.919,109578 = 889.559,49 pesos; IVA 169.016,30; advance 100 USD = 391.910,96
    expected: {
      subtotal: "889559.49",
      tax_exclusive: "889559.49",
      taxes: { "01": "169016.30" },
      tax_inclusive: "1058575.79",
      allowances: "0.00",
      charges: "0.00",
      payable: "1058575.79",
      prepaid: "391910.96",
      withholdings: {},
      net: "666664.83",
      deal: { currency: "USD", subtotal: "226.98", tax_total: "43.13", total: "270.11" },
    },
  },
  {
    key: "persona-natural",
    title: "a natural person identified by a NIT (a professional)",
    numbers: { sandbox: "SETP990000065", dian: "SETP990000511" },
    invoice: {
      buyer_id_type: "31",
      buyer_id_number: "1018419008",
      buyer_check_digit: "5",
      buyer_person_type: "2",
      buyer_fiscal_responsibilities: ["R-99-PN"],
      buyer_tax_scheme: "ZZ",
      buyer_name: "Andrés Gómez",
      buyer_email: "andres.gomez@correo.test",
      buyer_address: "Carrera 7 # 72-13",
      buyer_city_code: "11001",
      buyer_department_code: "11",
      payment_form: "1",
      payment_method: "49",
    },
    lines: [
      {
        position: 1,
        code: "ASE-01",
        description: "Asesoría contable",
        quantity: 1,
        unit_price: 800_000,
        taxes: [{ code: "01", percent: 19 }],
      },
    ],
    expected: {
      subtotal: "800000.00",
      tax_exclusive: "800000.00",
      taxes: { "01": "152000.00" },
      tax_inclusive: "952000.00",
      allowances: "0.00",
      charges: "0.00",
      payable: "952000.00",
      prepaid: "0.00",
      withholdings: {},
      net: "952000.00",
    },
  },
];

/** A kind's draft, due in thirty days when sold on credit. */
export function draftOf(kind: DemoKind, now = new Date()): DraftInvoice {
  return kind.invoice.payment_form === "2"
    ? { ...kind.invoice, due_date: dueInThirtyDays(now) }
    : kind.invoice;
}
