/**
 * The amounts the database computes from a draft's inputs (supabase/migrations/…_amounts.sql), on
 * the real database, written the way the web app writes them: through PostgREST's role as an
 * operador. Golden cases worked by hand from the sources ../shared/dian/brief-business.md cites —
 * Odoo 19's l10n_co_dian test outputs (invoice_sugar, invoice_withholding,
 * invoice_with_line_discount, invoice_multicurrency, invoice_prepaid_payment_1,
 * invoice_plastic_bags), each asserted to the cent on the computed columns; that no member can
 * write a computed column and that anyone else's write is computed over; that every input out of
 * its bounds is refused naming its field; what only /transmit can refuse; and that a 1,000-line
 * insert computes its invoice once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  asRole,
  createTestDatabase,
  type Param,
  sqlState,
  type TestDatabase,
} from "../../devkit/database.ts";
import { createTenant, type Tenant } from "../../devkit/factories.ts";

let db: TestDatabase;
let tenant: Tenant;
beforeAll(async () => {
  db = await createTestDatabase();
  tenant = await createTenant(db);
});
afterAll(() => db?.close());

type Json = Record<string, unknown>;

const asOperador = <R = Json>(sql: string, params: Param[] = []) =>
  asRole<R>(db, "authenticated", tenant.operador.claims, sql, params);

/** A draft as the web app writes it: the invoice's inputs, then its lines'; answers its id. */
async function draft(invoice: Json, lines: Json[]): Promise<string> {
  const row = { org_id: tenant.org.id, company_id: tenant.company.id, number: nextNumber(), ...invoice };
  const columns = Object.keys(row).join(", ");
  const [inserted] = await asOperador<{ id: string }>(
    `insert into public.invoices (${columns})
     select ${columns} from jsonb_populate_record(null::public.invoices, $1::text::jsonb) returning id`,
    [JSON.stringify(row)],
  );
  const id = inserted?.id as string;
  if (lines.length > 0) await writeLines(id, lines);
  return id;
}

// in the demo numbering range, past where the factories draw theirs here (they draw none)
let numbered = 0;
const nextNumber = () => `SETP${994_500_000 + numbered++}`;

/** The lines, in one statement, as supabase-js's `.insert(rows)` sends them. */
function writeLines(invoiceId: string, lines: Json[]) {
  const rows = lines.map((line, i) => ({
    invoice_id: invoiceId,
    org_id: tenant.org.id,
    position: i + 1,
    ...line,
  }));
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))].join(", ");
  return asOperador(
    `insert into public.invoice_lines (${columns})
     select ${columns} from jsonb_populate_recordset(null::public.invoice_lines, $1::text::jsonb)`,
    [JSON.stringify(rows)],
  );
}

const TOTALS = `subtotal::text, tax_exclusive_amount::text, tax_total::text, tax_inclusive_amount::text,
  allowance_total_amount::text, charge_total_amount::text, total::text, prepaid_amount::text,
  withholding_total_amount::text, net_payable_amount::text`;

const totals = async (id: string) =>
  (await db.superuser<Json>(`select ${TOTALS} from public.invoices where id = $1`, [id]))[0];

const invoiceJson = async (id: string, column: string) =>
  (
    await db.superuser<{ value: unknown }>(`select ${column} as value from public.invoices where id = $1`, [
      id,
    ])
  )[0]?.value;

const lines = (id: string) =>
  db.superuser<Json>(
    `select position, price_amount::text, line_extension::text, tax_amount::text, tax_subtotals as taxes,
            allowance_charge_amounts as allowance_charges
       from public.invoice_lines where invoice_id = $1 order by position`,
    [id],
  );

/** { subtotal: "2200.00", … } from the amounts in the order of TOTALS, unset ones 0.00. */
function expected(amounts: Partial<Record<string, string>>): Json {
  const keys = [
    "subtotal",
    "tax_exclusive_amount",
    "tax_total",
    "tax_inclusive_amount",
    "allowance_total_amount",
    "charge_total_amount",
    "total",
    "prepaid_amount",
    "withholding_total_amount",
    "net_payable_amount",
  ];
  return Object.fromEntries(keys.map((k) => [k, amounts[k] ?? "0.00"]));
}

describe("golden cases, worked by hand from Odoo's DIAN test outputs", () => {
  it("invoice_sugar: IVA at 5 and 19 % and IBUA per 100 mL: 2200 + 180 + 3747 = 6127", async () => {
    const ibua = (per100: number, ml: number) => ({
      code: "34",
      per_unit_amount: per100,
      per_quantity: 100,
      unit_measure: ml,
      measure_unit_code: "MLT",
    });
    const id = await draft({}, [
      // 3 bottles of 3.5 L: 10 500 mL at 35 per 100 mL = 3 675
      {
        description: "Coca cola 3.5L",
        quantity: 3,
        unit_price: 100,
        taxes: [{ code: "01", percent: 5 }, ibua(35, 3500)],
      },
      // 2 of 100 mL at 36 per 100 mL = 72
      {
        description: "Sprite 100mL",
        quantity: 2,
        unit_price: 200,
        taxes: [{ code: "01", percent: 5 }, ibua(36, 100)],
      },
      { description: "product_a", quantity: 10, unit_price: 100, taxes: [{ code: "01", percent: 5 }] },
      { description: "product_a", quantity: 5, unit_price: 100, taxes: [{ code: "01", percent: 19 }] },
    ]);
    // IVA 5 % of 300 + 400 + 1000 = 85, 19 % of 500 = 95; IBUA 3675 + 72; per-unit taxes have no
    // taxable amount, so TaxExclusive is the lines' 2200 (FAU04), TaxInclusive 2200 + 3927 (FAU06)
    expect(await totals(id)).toEqual(
      expected({
        subtotal: "2200.00",
        tax_exclusive_amount: "2200.00",
        tax_total: "3927.00",
        tax_inclusive_amount: "6127.00",
        total: "6127.00",
        net_payable_amount: "6127.00",
      }),
    );
    expect(await invoiceJson(id, "tax_totals")).toEqual([
      {
        code: "01",
        name: "IVA",
        tax_amount: 180,
        subtotals: [
          { percent: 5, taxable_amount: 1700, tax_amount: 85 },
          { percent: 19, taxable_amount: 500, tax_amount: 95 },
        ],
      },
      {
        code: "34",
        name: "IBUA",
        tax_amount: 3747,
        subtotals: [
          {
            per_unit_amount: 35,
            per_quantity: 100,
            measure_unit_code: "MLT",
            measure: 10500,
            tax_amount: 3675,
          },
          { per_unit_amount: 36, per_quantity: 100, measure_unit_code: "MLT", measure: 200, tax_amount: 72 },
        ],
      },
    ]);
    expect((await lines(id))[0]).toMatchObject({
      line_extension: "300.00",
      tax_amount: "3690.00",
      taxes: [
        { code: "01", name: "IVA", percent: 5, taxable_amount: 300, tax_amount: 15 },
        { code: "34", name: "IBUA", measure: 10500, unit_measure: 3500, tax_amount: 3675 },
      ],
    });
  });

  it("invoice_withholding: ReteIVA is 15 % of the IVA (24.00 → 3.60); withholdings leave the payable alone", async () => {
    const id = await draft(
      {
        withholdings: [
          { code: "05", percent: 15 },
          // Odoo withholds ReteICA on the first line only (0.41); here it is the invoice's: 0.414 % of 200
          { code: "07", percent: 0.414 },
        ],
      },
      [
        {
          description: "product_a",
          quantity: 1,
          unit_code: "94",
          unit_price: 100,
          taxes: [{ code: "01", percent: 19 }],
        },
        {
          description: "product_b",
          quantity: 1,
          unit_code: "DZN",
          unit_price: 100,
          taxes: [{ code: "01", percent: 5 }],
        },
      ],
    );
    expect(await totals(id)).toEqual(
      expected({
        subtotal: "200.00",
        tax_exclusive_amount: "200.00",
        tax_total: "24.00",
        tax_inclusive_amount: "224.00",
        total: "224.00", // PayableAmount 224.00 as Odoo's, with 4.43 withheld
        withholding_total_amount: "4.43",
        net_payable_amount: "219.57",
      }),
    );
    expect(await invoiceJson(id, "withholding_totals")).toEqual([
      {
        code: "05",
        name: "ReteIVA",
        tax_amount: 3.6,
        subtotals: [{ percent: 15, taxable_amount: 24, tax_amount: 3.6 }],
      },
      {
        code: "07",
        name: "ReteICA",
        tax_amount: 0.83, // 0.8280
        subtotals: [{ percent: 0.414, taxable_amount: 200, tax_amount: 0.83 }],
      },
    ]);
  });

  it("invoice_with_line_discount: base 100, 10 % off → 90, IVA 17.10, payable 107.10", async () => {
    const id = await draft({}, [
      {
        description: "product_a",
        quantity: 1,
        unit_price: 100,
        taxes: [{ code: "01", percent: 19 }],
        allowance_charges: [{ charge: false, reason_code: "00", percent: 10 }],
      },
    ]);
    expect(await totals(id)).toEqual(
      expected({
        subtotal: "90.00",
        tax_exclusive_amount: "90.00",
        tax_total: "17.10",
        tax_inclusive_amount: "107.10",
        total: "107.10",
        net_payable_amount: "107.10",
      }),
    );
    expect((await lines(id))[0]?.allowance_charges).toEqual([
      { id: 1, charge: false, reason_code: "00", reason: null, percent: 10, base_amount: 100, amount: 10 },
    ]);
  });

  it("invoice_multicurrency: 226.98 USD at 3919.109578 is 889559.49 pesos with 169016.30 of IVA", async () => {
    const id = await draft(
      { currency: "USD", exchange_rate: 3919.109578, exchange_rate_date: "2024-01-30" },
      [{ description: "product_a", quantity: 1, unit_price: 226.98, taxes: [{ code: "01", percent: 19 }] }],
    );
    // the price is converted first (889559.49201444 → 889559.492014), then everything is computed in
    // pesos: 19 % of 889559.49 = 169016.3031. Converting Odoo's rounded 43.13 of dollar IVA instead
    // would give 169032.20, which DIAN's base × rate check refuses (l10n_co_edi test_invoice_multicurrency).
    expect((await lines(id))[0]).toMatchObject({
      price_amount: "889559.492014",
      line_extension: "889559.49",
    });
    expect(await totals(id)).toEqual(
      expected({
        subtotal: "889559.49",
        tax_exclusive_amount: "889559.49",
        tax_total: "169016.30",
        tax_inclusive_amount: "1058575.79",
        total: "1058575.79",
        net_payable_amount: "1058575.79",
      }),
    );
    // the deal, for the PDF: 226.98 with 43.13 of IVA (43.1262)
    expect(await invoiceJson(id, "currency_totals")).toMatchObject({
      line_extension_amount: 226.98,
      tax_total: 43.13,
      payable_amount: 270.11,
    });
    // a new rate computes every line again, and the totals once more
    await asOperador("update public.invoices set exchange_rate = 4000 where id = $1", [id]);
    expect((await lines(id))[0]).toMatchObject({ price_amount: "907920.00", line_extension: "907920.00" });
    expect(await totals(id)).toMatchObject({ tax_total: "172504.80", total: "1080424.80" });
    // and back in pesos, the prices are pesos
    await asOperador(
      "update public.invoices set currency = 'COP', exchange_rate = null, exchange_rate_date = null where id = $1",
      [id],
    );
    expect(await totals(id)).toMatchObject({ subtotal: "226.98", total: "270.11" });
    expect(await invoiceJson(id, "currency_totals")).toBeNull();
  });

  it("invoice_prepaid_payment_1: advances make the PrepaidAmount, and are not subtracted from the payable", async () => {
    const id = await draft(
      {
        currency: "USD",
        exchange_rate: 3919.109578,
        exchange_rate_date: "2024-01-30",
        prepayments: [
          { amount: 100, received_date: "2024-01-30", reference: "Payment ref 2 (!= rate)" },
          { amount: 255.16, received_date: "2024-01-30", reference: "Payment ref 1" },
        ],
      },
      [{ description: "product_a", quantity: 1, unit_price: 1000, taxes: [{ code: "01", percent: 5 }] }],
    );
    // 1000 USD = 3919109.58 pesos, IVA 5 % 195955.48; the advances 391910.96 + 1000000.00
    expect(await totals(id)).toEqual(
      expected({
        subtotal: "3919109.58",
        tax_exclusive_amount: "3919109.58",
        tax_total: "195955.48",
        tax_inclusive_amount: "4115065.06",
        total: "4115065.06",
        prepaid_amount: "1391910.96",
        net_payable_amount: "2723154.10",
      }),
    );
    expect(await invoiceJson(id, "prepayment_amounts")).toEqual([
      { id: 1, reference: "Payment ref 2 (!= rate)", received_date: "2024-01-30", paid_amount: 391910.96 },
      { id: 2, reference: "Payment ref 1", received_date: "2024-01-30", paid_amount: 1000000 },
    ]);
  });

  it("invoice_plastic_bags: INC bolsas per bag, 70 each, beside the IVA: 700 + 38 + 490 = 1228", async () => {
    const bags = { code: "22", per_unit_amount: 70 };
    const id = await draft({}, [
      {
        description: "Bolsa Plastica",
        quantity: 2,
        unit_price: 100,
        taxes: [{ code: "01", percent: 19 }, bags],
      },
      { description: "product_a", quantity: 5, unit_price: 100, taxes: [bags] },
    ]);
    expect(await totals(id)).toEqual(
      expected({
        subtotal: "700.00",
        tax_exclusive_amount: "200.00", // only the first line has a taxable amount (IVA)
        tax_total: "528.00",
        tax_inclusive_amount: "1228.00",
        total: "1228.00",
        net_payable_amount: "1228.00",
      }),
    );
    expect(await invoiceJson(id, "tax_totals")).toMatchObject([
      { code: "01", tax_amount: 38 },
      {
        code: "22",
        name: "Bolsas",
        tax_amount: 490,
        subtotals: [
          { per_unit_amount: 70, per_quantity: 1, measure_unit_code: "NIU", measure: 7, tax_amount: 490 },
        ],
      },
    ]);
  });

  it("document discounts and charges change no tax base; percentages are of the LineExtensionAmount", async () => {
    const id = await draft(
      {
        allowance_charges: [
          { charge: true, reason: "Propina voluntaria", percent: 10 },
          { charge: false, reason_code: "01", reason: "Pronto pago", amount: 1000 },
        ],
      },
      [{ description: "Menú del día", quantity: 2, unit_price: 25_000, taxes: [{ code: "04", percent: 8 }] }],
    );
    // 50000 + INC 4000 = 54000; − 1000 + 5000 (10 % of 50000) = 58000 (FAU14)
    expect(await totals(id)).toEqual(
      expected({
        subtotal: "50000.00",
        tax_exclusive_amount: "50000.00",
        tax_total: "4000.00",
        tax_inclusive_amount: "54000.00",
        allowance_total_amount: "1000.00",
        charge_total_amount: "5000.00",
        total: "58000.00",
        net_payable_amount: "58000.00",
      }),
    );
  });

  it("exempt and excluded stay apart: IVA at 0 % is a subtotal with its base, no tax is none", async () => {
    const id = await draft({}, [
      { description: "Libro (exento)", quantity: 1, unit_price: 10_000, taxes: [{ code: "01", percent: 0 }] },
      { description: "Servicio excluido", quantity: 1, unit_price: 5_000 },
    ]);
    expect(await totals(id)).toMatchObject({
      subtotal: "15000.00",
      tax_exclusive_amount: "10000.00",
      total: "15000.00",
    });
    expect(await invoiceJson(id, "tax_totals")).toEqual([
      {
        code: "01",
        name: "IVA",
        tax_amount: 0,
        subtotals: [{ percent: 0, taxable_amount: 10000, tax_amount: 0 }],
      },
    ]);
  });

  it("the examples of docs/creating-invoices.md come to what the document says", async () => {
    const b2b = await draft(
      {
        payment_form: "2",
        due_date: "2026-12-31",
        withholdings: [
          { code: "06", percent: 4 },
          { code: "07", percent: 0.966 },
        ],
      },
      [
        {
          description: "Mantenimiento",
          quantity: 1,
          unit_price: 2_500_000,
          taxes: [{ code: "01", percent: 19 }],
        },
      ],
    );
    expect(await totals(b2b)).toMatchObject({
      total: "2975000.00",
      withholding_total_amount: "124150.00",
      net_payable_amount: "2850850.00",
    });
    const bill = await draft({ allowance_charges: [{ charge: true, reason: "Propina", percent: 10 }] }, [
      { description: "Menú", quantity: 2, unit_price: 25_000, taxes: [{ code: "04", percent: 8 }] },
    ]);
    expect(await totals(bill)).toMatchObject({
      tax_total: "4000.00",
      charge_total_amount: "5000.00",
      total: "59000.00",
    });
    const market = await draft(
      { allowance_charges: [{ charge: true, reason: "Domicilio", amount: 5_000 }] },
      [
        {
          description: "Mercado",
          quantity: 1,
          unit_price: 100_000,
          taxes: [{ code: "01", percent: 19 }],
          allowance_charges: [{ charge: false, reason_code: "00", percent: 10 }],
        },
        {
          description: "Bolsa",
          quantity: 2,
          unit_price: 100,
          taxes: [
            { code: "01", percent: 19 },
            { code: "22", per_unit_amount: 70 },
          ],
        },
      ],
    );
    expect((await lines(market)).map((l) => [l.line_extension, l.tax_amount])).toEqual([
      ["90000.00", "17100.00"],
      ["200.00", "178.00"],
    ]);
  });
});

describe("computed columns", () => {
  const INVOICE_COMPUTED = [
    "subtotal",
    "tax_total",
    "total",
    "tax_exclusive_amount",
    "tax_inclusive_amount",
    "allowance_total_amount",
    "charge_total_amount",
    "prepaid_amount",
    "withholding_total_amount",
    "net_payable_amount",
    "tax_totals",
    "withholding_totals",
    "allowance_charge_amounts",
    "prepayment_amounts",
    "currency_totals",
  ];
  const LINE_COMPUTED = [
    "price_amount",
    "line_extension",
    "tax_amount",
    "tax_subtotals",
    "allowance_charge_amounts",
    "currency_amounts",
  ];
  const valueFor = (column: string) =>
    /totals|amounts|subtotals/.test(column) && !column.endsWith("_amount") ? "'[]'" : "1";

  it.each(["admin", "operador"] as const)(
    "a %s can write none of them, on insert or update (42501)",
    async (role) => {
      const id = await draft({}, [{ description: "Servicio", quantity: 1, unit_price: 1000 }]);
      const [line] = await lines(id);
      const lineId = (
        await db.superuser<{ id: string }>("select id from public.invoice_lines where invoice_id = $1", [id])
      )[0]?.id as string;
      expect(line).toBeDefined();
      const as = (sql: string, params: Param[] = []) =>
        asRole(db, "authenticated", tenant[role].claims, sql, params);
      for (const column of INVOICE_COMPUTED) {
        expect(
          await sqlState(
            as(`update public.invoices set ${column} = ${valueFor(column)} where id = $1`, [id]),
          ),
          column,
        ).toBe("42501");
        expect(
          await sqlState(
            as(
              `insert into public.invoices (org_id, company_id, number, ${column}) values ($1, $2, $3, ${valueFor(column)})`,
              [tenant.org.id, tenant.company.id, nextNumber()],
            ),
          ),
          column,
        ).toBe("42501");
      }
      for (const column of LINE_COMPUTED) {
        expect(
          await sqlState(
            as(`update public.invoice_lines set ${column} = ${valueFor(column)} where id = $1`, [lineId]),
          ),
          column,
        ).toBe("42501");
        expect(
          await sqlState(
            as(
              `insert into public.invoice_lines (invoice_id, org_id, position, description, quantity, unit_price, ${column})
             values ($1, $2, 2, 'Otra', 1, 1, ${valueFor(column)})`,
              [id, tenant.org.id],
            ),
          ),
          column,
        ).toBe("42501");
      }
    },
  );

  it("anyone else's write (the service's, a superuser's) is computed over: the totals always equal the lines", async () => {
    const id = await draft({}, [
      { description: "Servicio", quantity: 2, unit_price: 50_000, taxes: [{ code: "01", percent: 19 }] },
    ]);
    const before = await totals(id);
    await db.superuser(
      `update public.invoices set subtotal = 1, tax_total = 2, total = 3, tax_exclusive_amount = 4,
         tax_inclusive_amount = 5, net_payable_amount = 6, tax_totals = '[]' where id = $1`,
      [id],
    );
    await db.superuser(
      "update public.invoice_lines set line_extension = 7, tax_amount = 8, tax_subtotals = '[]' where invoice_id = $1",
      [id],
    );
    expect(await totals(id)).toEqual(before);
    expect(await lines(id)).toMatchObject([{ line_extension: "100000.00", tax_amount: "19000.00" }]);
    expect(await invoiceJson(id, "tax_totals")).toMatchObject([{ code: "01", tax_amount: 19000 }]);
    // a line written with amounts of its own: they are computed over too
    await db.superuser(
      `insert into public.invoice_lines (invoice_id, org_id, position, description, quantity, unit_price,
         line_extension, tax_amount) values ($1, $2, 2, 'Otra', 1, 1000, 5, 5)`,
      [id, tenant.org.id],
    );
    expect(await totals(id)).toMatchObject({
      subtotal: "101000.00",
      tax_total: "19000.00",
      total: "120000.00",
    });
  });

  it("every draft's amounts, whatever wrote them, are what the computing functions give for its inputs", async () => {
    await draft({ currency: "EUR", exchange_rate: 4321.5, exchange_rate_date: "2026-01-02" }, [
      { description: "Uno", quantity: 3, unit_price: 10.01, taxes: [{ code: "01", percent: 19 }] },
    ]);
    await draft(
      { allowance_charges: [{ charge: false, percent: 3 }], withholdings: [{ code: "06", percent: 2.5 }] },
      [
        { description: "Dos", quantity: 1.5, unit_price: 999.99, taxes: [{ code: "04", percent: 8 }] },
        {
          description: "Tres",
          quantity: 2,
          unit_price: 0.5,
          allowance_charges: [{ charge: true, amount: 0.01 }],
        },
      ],
    );
    // the guarantee the pre-send check used to verify, over every draft of this database
    const [row] = await db.superuser<{ wrong: number; seen: number }>(
      `select count(*) filter (where (i.subtotal, i.tax_total, i.total) is distinct from
                                     ((d ->> 'line_extension_amount')::numeric, (d ->> 'tax_total')::numeric,
                                      (d ->> 'payable_amount')::numeric))::int as wrong,
              count(*)::int as seen
         from public.invoices i
         cross join lateral (
           select einv_private.document_amounts(
                    coalesce((select jsonb_agg(einv_private.line_amounts(l.quantity, l.unit_price, l.taxes,
                                                 l.allowance_charges, coalesce(i.exchange_rate, 1), 'line'))
                                from public.invoice_lines l where l.invoice_id = i.id), '[]'),
                    i.allowance_charges, i.withholdings, i.prepayments, coalesce(i.exchange_rate, 1), 'invoice') as d) x
        where i.status = 'pendiente'`,
    );
    expect(row?.seen).toBeGreaterThan(2);
    expect(row?.wrong).toBe(0);
  });
});

/** What a refused write answers: its SQLSTATE, sentence, field (DETAIL) and hint. */
async function refusal(work: Promise<unknown>): Promise<Json> {
  try {
    await work;
  } catch (error) {
    const { code, message, detail, hint } = error as Json;
    return { code, message, detail, hint };
  }
  throw new Error("expected the write to be refused");
}

describe("inputs out of their bounds are refused, naming the field", () => {
  const line = (extra: Json) => ({ description: "Artículo", quantity: 1, unit_price: 1000, ...extra });
  const LINES: [string, Json, string][] = [
    ["taxes", { taxes: { code: "01" } }, "must be a list of at most 10 taxes"],
    ["taxes", { taxes: Array.from({ length: 11 }, () => ({ code: "01", percent: 19 })) }, "at most 10"],
    ["taxes[0]", { taxes: ["IVA"] }, "must be an object"],
    ["taxes[0].rate", { taxes: [{ code: "01", rate: 19 }] }, "is not a field of a tax"],
    ["taxes[0].code", { taxes: [{ code: "XX", percent: 19 }] }, "must be one of DIAN's taxes"],
    ["taxes[0].code", { taxes: [{ code: "06", percent: 4 }] }, "must be one of DIAN's taxes"], // a withholding
    [
      "taxes[1].code",
      {
        taxes: [
          { code: "01", percent: 19 },
          { code: "01", percent: 5 },
        ],
      },
      "one tax of a scheme per line (FAX01)",
    ],
    ["taxes[0]", { taxes: [{ code: "01" }] }, "needs a percent or a per_unit_amount"],
    [
      "taxes[0].percent",
      { taxes: [{ code: "01", percent: 12 }] },
      "is not a rate of IVA (01): [0, 5, 16, 19]",
    ],
    ["taxes[0].percent", { taxes: [{ code: "04", percent: 19 }] }, "is not a rate of INC (04)"],
    [
      "taxes[0].percent",
      { taxes: [{ code: "03", percent: "abc" }] },
      "must be a number from 0 and up to 100",
    ],
    ["taxes[0].percent", { taxes: [{ code: "03", percent: 100.5 }] }, "up to 100"],
    ["taxes[0].percent", { taxes: [{ code: "03", percent: 0.4141 }] }, "at most 3 decimals"],
    [
      "taxes[0].per_unit_amount",
      { taxes: [{ code: "01", per_unit_amount: 70 }] },
      "is a percentage: give percent",
    ],
    [
      "taxes[0].percent",
      { taxes: [{ code: "22", percent: 19 }] },
      "is charged per unit: give per_unit_amount",
    ],
    ["taxes[0].per_unit_amount", { taxes: [{ code: "22", per_unit_amount: 0 }] }, "must be a number above 0"],
    ["taxes[0].per_unit_amount", { taxes: [{ code: "22", per_unit_amount: 66.005 }] }, "at most 2 decimals"],
    [
      "taxes[0].measure_unit_code",
      { taxes: [{ code: "34", per_unit_amount: 35, measure_unit_code: "ml" }] },
      "unit code",
    ],
    [
      "allowance_charges[0].charge",
      { allowance_charges: [{ percent: 10 }] },
      "must be true (a charge) or false",
    ],
    [
      "allowance_charges[0].reason_code",
      { allowance_charges: [{ charge: true, reason_code: "00", percent: 5 }] },
      "is for discounts",
    ],
    [
      "allowance_charges[0].reason_code",
      { allowance_charges: [{ charge: false, reason_code: "05", percent: 5 }] },
      "00 (descuento no condicionado) or 01",
    ],
    [
      "allowance_charges[0]",
      { allowance_charges: [{ charge: false, percent: 5, amount: 10 }] },
      "needs a percent or an amount",
    ],
    [
      "allowance_charges[0].amount",
      { allowance_charges: [{ charge: false, amount: 0 }] },
      "must be a number above 0",
    ],
    ["allowance_charges[0].percent", { allowance_charges: [{ charge: false, percent: 101 }] }, "up to 100"],
    [
      "allowance_charges[0].reason",
      { allowance_charges: [{ charge: false, percent: 1, reason: "x".repeat(201) }] },
      "1 to 200 characters",
    ],
    [
      "allowance_charges",
      { allowance_charges: Array.from({ length: 11 }, () => ({ charge: true, amount: 1 })) },
      "at most 10",
    ],
    [
      "allowance_charges",
      { allowance_charges: [{ charge: false, amount: 1000.01 }] },
      "a line's amount must be from 0",
    ],
    [
      "quantity",
      { quantity: 1_000_000, unit_price: 1_000_000 },
      "1,000,000,000,000 or more cannot be processed",
    ],
    ["unit_price", { unit_price: 1.1234567 }, "has at most 6 decimals"],
  ];

  it.each(LINES)("a line's %s: %j", async (field, extra, sentence) => {
    const id = await draft({}, []);
    const refused = await refusal(writeLines(id, [line(extra)]));
    expect(refused).toMatchObject({ code: "23514", detail: field, hint: "validation_failed" });
    expect(refused.message).toContain(`invoice line 1: ${field} `);
    expect(refused.message).toContain(sentence);
  });

  const INVOICES: [string, Json, string][] = [
    [
      "withholdings[0].code",
      { withholdings: [{ code: "01", percent: 19 }] },
      "must be 05 (ReteIVA), 06 (ReteFuente) or 07",
    ],
    [
      "withholdings[1].code",
      {
        withholdings: [
          { code: "06", percent: 4 },
          { code: "06", percent: 2.5 },
        ],
      },
      "withheld once per document",
    ],
    [
      "withholdings[0].percent",
      { withholdings: [{ code: "05", percent: 10 }] },
      "is not a rate of ReteIVA (05): [15]",
    ],
    ["withholdings[0].percent", { withholdings: [{ code: "06", percent: 0 }] }, "above 0"],
    [
      "withholdings[0].base",
      { withholdings: [{ code: "06", percent: 4, base: 100 }] },
      "is not a field of a withholding",
    ],
    [
      "prepayments[0].received_date",
      { prepayments: [{ amount: 10, received_date: "2024-02-30" }] },
      "must be a date",
    ],
    [
      "prepayments[0].amount",
      { prepayments: [{ amount: -10, received_date: "2024-02-01" }] },
      "must be a number above 0",
    ],
    [
      "prepayments[0].reference",
      { prepayments: [{ amount: 10, received_date: "2024-02-01", reference: "x".repeat(61) }] },
      "1 to 60",
    ],
    [
      "prepayments[0].paid_date",
      { prepayments: [{ amount: 10, received_date: "2024-02-01", paid_date: "2024-02-01" }] },
      "is not a field of an advance",
    ],
    [
      "allowance_charges[0].amount",
      { allowance_charges: [{ charge: true, amount: 1e12 }] },
      "below 1000000000000",
    ],
    [
      "withholdings",
      { withholdings: [1, 2, 3, 4].map(() => ({ code: "06", percent: 1 })) },
      "at most 3 withholdings",
    ],
    [
      "prepayments",
      { prepayments: Array.from({ length: 21 }, () => ({ amount: 1, received_date: "2024-01-01" })) },
      "at most 20",
    ],
    [
      "allowance_charges",
      { allowance_charges: Array.from({ length: 21 }, () => ({ charge: true, amount: 1 })) },
      "at most 20",
    ],
  ];

  it.each(INVOICES)("the invoice's %s: %j", async (field, invoice, sentence) => {
    const refused = await refusal(draft(invoice, []));
    expect(refused).toMatchObject({ code: "23514", detail: field, hint: "validation_failed" });
    expect(refused.message).toContain(`invoice: ${field} `);
    expect(refused.message).toContain(sentence);
  });

  it("each column's code and each rule between columns, by the table's own checks (23514)", async () => {
    for (const [invoice, constraint] of [
      [{ currency: "USD" }, "invoices_exchange_rate_with_currency"],
      [{ exchange_rate: 4000, exchange_rate_date: "2024-01-01" }, "invoices_exchange_rate_with_currency"],
      [
        { currency: "USD", exchange_rate: 0, exchange_rate_date: "2024-01-01" },
        "invoices_exchange_rate_check",
      ],
      [{ payment_form: "2" }, "invoices_credit_needs_due_date"],
      [{ payment_method: "99" }, "invoices_payment_method_check"],
      [{ buyer_id_type: "99" }, "invoices_buyer_id_type_check"],
      [{ buyer_person_type: "3" }, "invoices_buyer_person_type_check"],
      [{ buyer_fiscal_responsibilities: ["O-48"] }, "invoices_buyer_fiscal_responsibilities_check"],
      [{ buyer_tax_scheme: "48" }, "invoices_buyer_tax_scheme_check"],
      [{ buyer_city_code: "05001", buyer_department_code: "11" }, "invoices_buyer_city_in_department"],
    ] as const) {
      const refused = await refusal(draft(invoice, []));
      expect(refused.code, JSON.stringify(invoice)).toBe("23514");
      expect(refused.message, JSON.stringify(invoice)).toContain(constraint);
    }
  });
});

describe("what only /transmit can refuse, once the draft is whole", () => {
  const problems = async (id: string) =>
    (
      await db.superuser<{ problems: string[] }>("select problems from public.invoices where id = $1", [id])
    )[0]?.problems;

  it("is written in steps without a refusal, and its payload lists the problems", async () => {
    // a discount written before the lines it discounts, and an advance above the total
    const id = await draft(
      {
        allowance_charges: [{ charge: false, amount: 5000 }],
        prepayments: [{ amount: 2000, received_date: "2026-11-01" }],
        withholdings: [{ code: "05", percent: 15 }],
      },
      [],
    );
    expect(await totals(id)).toMatchObject({ total: "-5000.00" });
    expect(await problems(id)).toEqual([
      "allowance_charges: the invoice's discounts (5000.00) exceed its amount with taxes and charges (0.00)",
      "withholdings: ReteIVA (05) withholds part of the IVA, and this invoice has no IVA to withhold from",
    ]);
    await writeLines(id, [{ description: "Excluido", quantity: 1, unit_price: 6000 }]);
    expect(await problems(id)).toEqual([
      "prepayments, withholdings: the advances (2000.00) and withholdings (0.00) exceed the payable amount (1000.00)",
      "withholdings: ReteIVA (05) withholds part of the IVA, and this invoice has no IVA to withhold from",
    ]);
    await asOperador(`update public.invoices set prepayments = '[]', withholdings = '[]' where id = $1`, [
      id,
    ]);
    expect(await problems(id)).toEqual([]);
    const [payload] = await db.superuser<{ problems: string[] }>(
      "select einv_private.invoice_payload($1, '{}') -> 'problems' as problems",
      [id],
    );
    expect(payload?.problems).toEqual([]);
  });

  it("DIAN's final consumer is a natural person, not responsible for taxes", async () => {
    const id = await draft(
      { buyer_id_number: "222222222222", buyer_name: "Consumidor final", buyer_tax_scheme: "01" },
      [],
    );
    expect(await problems(id)).toEqual([
      "the final consumer 222222222222 is a natural person (buyer_person_type 2) not responsible for taxes (buyer_fiscal_responsibilities R-99-PN, buyer_tax_scheme ZZ)",
    ]);
  });

  it("a buyer's person type, when not given, is read as a company for a NIT and a person otherwise", async () => {
    const nit = await draft({ buyer_id_type: "31" }, []);
    const person = await draft({ buyer_id_type: "13" }, []);
    const professional = await draft({ buyer_id_type: "31", buyer_person_type: "2" }, []);
    const read = (id: string) =>
      db.superuser<{ given: string | null; read: string }>(
        `select buyer_person_type as given, einv_private.invoice_payload(id, '{}') ->> 'buyer_person_type' as read
           from public.invoices where id = $1`,
        [id],
      );
    expect((await Promise.all([nit, person, professional].map(read))).flat()).toEqual([
      { given: null, read: "1" },
      { given: null, read: "2" },
      { given: "2", read: "2" },
    ]);
    // read again when the identification changes: a NIT's buyer later identified as a person
    await asOperador(
      "update public.invoices set buyer_id_type = '13', buyer_id_number = '222222222222' where id = $1",
      [nit],
    );
    expect(await read(nit)).toEqual([{ given: null, read: "2" }]);
    expect(await problems(nit)).toEqual([]);
  });
});

describe("a 1,000-line invoice", () => {
  it("is computed in one pass: each line once, its invoice once per statement (O(n), not O(n²))", async () => {
    const id = await draft({}, []);
    const rows = Array.from({ length: 1000 }, (_, i) => ({
      invoice_id: id,
      org_id: tenant.org.id,
      position: i + 1,
      description: `Artículo ${i + 1}`,
      quantity: 1 + (i % 7),
      unit_price: 1000 + i,
      taxes: [{ code: "01", percent: i % 2 === 0 ? 19 : 5 }],
    }));
    // in one transaction, with function calls counted (pg_stat_get_xact_function_calls)
    const calls = await db.client.transaction(async (session) => {
      await session.query("set local track_functions = 'all'");
      await session.query(
        "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
        [JSON.stringify(tenant.operador.claims)],
      );
      const started = performance.now();
      await session.query(
        `insert into public.invoice_lines (invoice_id, org_id, position, description, quantity, unit_price, taxes)
         select invoice_id, org_id, position, description, quantity, unit_price, taxes
           from jsonb_populate_recordset(null::public.invoice_lines, $1::text::jsonb)`,
        [JSON.stringify(rows)],
      );
      const took = performance.now() - started;
      await session.query("reset role");
      const [counted] = await session.query<{ lines: number; documents: number }>(
        `select pg_stat_get_xact_function_calls('einv_private.line_amounts'::regproc)::int as lines,
                pg_stat_get_xact_function_calls('einv_private.document_amounts'::regproc)::int as documents`,
      );
      return { ...counted, took };
    });
    console.log(`1,000 lines inserted and computed in ${calls.took.toFixed(0)} ms`);
    expect({ lines: calls.lines, documents: calls.documents }).toEqual({ lines: 1000, documents: 1 });
    const [sum] = await db.superuser<{ lines: string; invoice: string }>(
      `select sum(l.line_extension + l.tax_amount)::text as lines, max(i.total)::text as invoice
         from public.invoice_lines l join public.invoices i on i.id = l.invoice_id where i.id = $1`,
      [id],
    );
    expect(sum?.invoice).toBe(sum?.lines);
  });
});
