/**
 * The tax of partial credit notes on the real database. Per invoice line, the tax the notes that
 * stand carry never exceeds the line's tax, and the note that takes the last of a line's base takes
 * exactly the tax left of it, so a line split over many notes is credited to the cent, never a
 * cent more (the invoice's total) nor a cent less (IVA that could never be cancelled). Each part
 * stays within a cent of its base at the line's rate.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, sqlState, type TestDatabase } from "../../devkit/database.ts";
import {
  createInvoice,
  createTenant,
  type LineInput,
  setInvoiceStatus,
  type Tenant,
} from "../../devkit/factories.ts";

let db: TestDatabase;
let tenant: Tenant;
beforeAll(async () => {
  db = await createTestDatabase();
  tenant = await createTenant(db);
});
afterAll(() => db?.close());

type Part = { quantity: string } | { amount: string } | Record<string, never>;

/** A note for one part of `line` (no part: what is left of it); answers the note's id. */
async function credit(invoiceId: string, line: string, part: Part, concept = "1"): Promise<string> {
  const [row] = await db.superuser<{ id: string }>(
    `select public.einv_credit_note_create($1, $2, $3, 'Prueba', $4::text::jsonb, $5, 60, now()) ->> 'document_id' as id`,
    [tenant.org.id, invoiceId, concept, JSON.stringify([{ line_id: line, ...part }]), tenant.operador.id],
  );
  return row?.id as string;
}

const transmitted = (line: LineInput) =>
  createInvoice(db, tenant.org, tenant.company, { status: "transmitida", lines: [line] });

interface Sums {
  invoice_total: string;
  invoice_tax: string;
  credited_total: string;
  credited_tax: string;
}

/** The invoice's total and tax, and what its notes that stand credit of them. */
async function sums(invoiceId: string): Promise<Sums> {
  const [row] = await db.superuser<Sums>(
    `select i.total::text as invoice_total, i.tax_total::text as invoice_tax,
            coalesce(sum(n.total), 0)::text as credited_total, coalesce(sum(n.tax_total), 0)::text as credited_tax
       from invoices i left join credit_notes n on n.invoice_id = i.id and n.status <> 'descartada'
      where i.id = $1 group by i.id`,
    [invoiceId],
  );
  return row as Sums;
}

/** Each standing part's base and tax, in the order the notes were made. */
const parts = (line: string) =>
  db.superuser<{ base: string; tax: string }>(
    `select c.line_extension::text as base, c.tax_amount::text as tax
       from credit_note_lines c join credit_notes n on n.id = c.credit_note_id
      where c.invoice_line_id = $1 and c.released_at is null order by n.created_at`,
    [line],
  );

/** |tax − base × rate| in cents, for every part. */
const offByCents = (rows: { base: string; tax: string }[], rate: number) =>
  rows.map((r) => Math.abs(Math.round(Number(r.tax) * 100) - Number(r.base) * rate));

describe("a line credited in parts", () => {
  it("two returns of 1 of 2 units at 0,50 (19 %) credit the invoice's 1,19, not 1,20", async () => {
    const invoice = await transmitted({ description: "Tornillo", quantity: 2, unitPrice: 0.5, taxRate: 19 });
    const [line] = invoice.lineIds as [string];
    await credit(invoice.id, line, { quantity: "1" });
    await credit(invoice.id, line, { quantity: "1" });
    // 19 % of 0,50 is 0,095 each: the first rounds up, the second takes the 0,09 left
    expect(await parts(line)).toEqual([
      { base: "0.50", tax: "0.10" },
      { base: "0.50", tax: "0.09" },
    ]);
    const s = await sums(invoice.id);
    expect(s).toEqual({ ...s, credited_total: "1.19", credited_tax: "0.19" });
    expect(s.credited_total).toBe(s.invoice_total);
  });

  it("two discounts of 0,50 on a line of 1,00 (19 %) credit its 0,19 of tax, not 0,20", async () => {
    const invoice = await transmitted({ description: "Tornillo", quantity: 1, unitPrice: 1, taxRate: 19 });
    const [line] = invoice.lineIds as [string];
    await credit(invoice.id, line, { amount: "0.50" }, "3");
    await credit(invoice.id, line, { amount: "0.50" }, "3");
    const s = await sums(invoice.id);
    expect(s).toEqual({ ...s, credited_total: "1.19", credited_tax: "0.19", invoice_total: "1.19" });
  });

  it("10 returns of 1 of 10 units at 33.333,33 credit all 63.333,33 of IVA; then nothing is left", async () => {
    const invoice = await transmitted({
      description: "Licencia",
      quantity: 10,
      unitPrice: 33_333.33,
      taxRate: 19,
    });
    const [line] = invoice.lineIds as [string];
    for (let i = 0; i < 10; i++) await credit(invoice.id, line, { quantity: "1" });
    const s = await sums(invoice.id);
    expect(s).toEqual({ ...s, credited_tax: "63333.33", credited_total: s.invoice_total });
    expect(s.invoice_tax).toBe("63333.33");
    // each unit's 6.333,3327 of tax is credited as 6.333,33 or 6.333,34
    expect(Math.max(...offByCents(await parts(line), 19))).toBeLessThan(1);
    await expect(
      db.superuser("select public.einv_credit_note_create($1, $2, '2', 'Anulación', null, $3, 60, now())", [
        tenant.org.id,
        invoice.id,
        tenant.operador.id,
      ]),
    ).rejects.toThrow(/nothing_left_to_credit/);
  });

  it("33 discounts of 0,03 and the rest of a 1,00 line: never more tax than the line, each part within a cent", async () => {
    const invoice = await transmitted({ description: "Arandela", quantity: 1, unitPrice: 1, taxRate: 19 });
    const [line] = invoice.lineIds as [string];
    // rounded alone, each 0,03 would carry 0,01 (of 0,0057): 0,33 of tax on 0,99, above the line's 0,19
    for (let i = 0; i < 33; i++) {
      await credit(invoice.id, line, { amount: "0.03" }, "3");
      const s = await sums(invoice.id);
      expect(Number(s.credited_tax)).toBeLessThanOrEqual(0.19);
    }
    await credit(invoice.id, line, {}, "3");
    const rows = await parts(line);
    expect(rows.at(-1)).toEqual({ base: "0.01", tax: "0.00" });
    expect(Math.max(...offByCents(rows, 19))).toBeLessThan(1);
    const s = await sums(invoice.id);
    expect(s).toEqual({ ...s, credited_tax: "0.19", credited_total: "1.19", invoice_total: "1.19" });
  });
});

describe("a line credited in parts, one of them rejected and replaced", () => {
  it("never carries negative tax nor more than the line's, and the last part takes what is left", async () => {
    const invoice = await transmitted({ description: "Cinta", quantity: 3, unitPrice: 1, taxRate: 19 });
    const [line] = invoice.lineIds as [string];
    await credit(invoice.id, line, { amount: "0.50" }, "3"); // 0,10 (0,095 rounded up)
    const rejected = await credit(invoice.id, line, { amount: "0.50" }, "3"); // 0,09: 0,19 in all
    await credit(invoice.id, line, { amount: "0.50" }, "3"); // 0,10: 0,29 in all
    // the authority rejects the second: 1,00 of base stands with 0,20 of tax, above 19 % of it
    await db.superuser(
      `select public.einv_document_record($1, 'credit_note', $2, 1,
         jsonb_build_object('status', 'error', 'message', 'Rechazada', 'submitted_attempt', 1, 'definite', true))`,
      [tenant.org.id, rejected],
    );
    // a cent more of base is still 0,19 at 19 %, already exceeded: this part carries no tax
    await credit(invoice.id, line, { amount: "0.01" }, "3");
    expect(await parts(line)).toEqual([
      { base: "0.50", tax: "0.10" },
      { base: "0.50", tax: "0.10" },
      { base: "0.01", tax: "0.00" },
    ]);
    await credit(invoice.id, line, {}, "3");
    expect((await parts(line)).at(-1)).toEqual({ base: "1.99", tax: "0.37" });
    const s = await sums(invoice.id);
    expect(s).toEqual({ ...s, credited_tax: "0.57", credited_total: s.invoice_total });
  });
});

it("what stands never carries more tax than the invoice line, whoever writes", async () => {
  const invoice = await transmitted({ description: "Caja", quantity: 2, unitPrice: 0.5, taxRate: 19 });
  const [line] = invoice.lineIds as [string];
  const note = await credit(invoice.id, line, { quantity: "1" }); // 0,50 with 0,10 of tax
  // a line like the note's, crediting no units and no base but `tax` of IVA
  const add = (position: number, tax: string) =>
    db.superuser(
      `insert into credit_note_lines (credit_note_id, org_id, invoice_line_id, position, description,
         unit_code, quantity, unit_price, line_extension, tax_subtotals, tax_amount, credited_quantity)
       select credit_note_id, org_id, invoice_line_id, $2, description, unit_code, 1, 0, 0,
              jsonb_build_array(jsonb_build_object('code', '01', 'percent', 19, 'taxable_amount', 0,
                                                   'tax_amount', $3::numeric)), $3::numeric, 0
         from credit_note_lines where credit_note_id = $1 and position = 1`,
      [note, position, tax],
    );
  await add(2, "0.09"); // the line's 0,19 in all
  expect(await sqlState(add(3, "0.01"))).toBe("P0001");
});

/** Each part a line's notes that stand took: base, units, and of each tax its code and amount. */
const partsByTax = (line: string) =>
  db.superuser<{ quantity: string; unit_code: string; base: string; units: string; taxes: string }>(
    `select trim_scale(c.quantity)::text as quantity, c.unit_code, c.line_extension::text as base,
            trim_scale(c.credited_quantity)::text as units,
            (select string_agg((t ->> 'code') || ':' || (t ->> 'tax_amount'), ' ' order by t ->> 'code')
               from jsonb_array_elements(c.tax_subtotals) t) as taxes
       from credit_note_lines c join credit_notes n on n.id = c.credit_note_id
      where c.invoice_line_id = $1 and c.released_at is null order by n.created_at`,
    [line],
  );

describe("a line with several taxes and a discount", () => {
  it("is credited in parts to the cent: each part its share of the discount, each tax rounded on what is credited", async () => {
    // 10 × 1.000 − 10 % = 9.000; IVA 19 % 1.710; bags (INC 22) 70 each, 700: a line of 11.410
    const invoice = await createInvoice(db, tenant.org, tenant.company, {
      status: "transmitida",
      lines: [
        {
          description: "Caja con bolsa",
          quantity: 10,
          unitPrice: 1000,
          taxRate: 0,
          taxes: [
            { code: "01", percent: 19 },
            { code: "22", per_unit_amount: 70 },
          ],
          allowanceCharges: [{ charge: false, reason_code: "00", percent: 10 }],
        },
      ],
    });
    const [line] = invoice.lineIds as [string];
    // 3 units back: 3.000 − 300 of discount = 2.700, IVA 513, their 3 bags 210
    const first = await credit(invoice.id, line, { quantity: "3" });
    const [returned] = await db.superuser<{ price: string; allowances: unknown }>(
      "select unit_price::text as price, allowance_charge_amounts as allowances from credit_note_lines where credit_note_id = $1",
      [first],
    );
    expect(returned).toEqual({
      price: "1000.00",
      allowances: [
        {
          id: 1,
          charge: false,
          reason_code: "00",
          reason: null,
          percent: 10,
          base_amount: 3000,
          amount: 300,
        },
      ],
    });
    // a rebate of 1.000,50 of base: 19 % of all 3.700,50 credited is 703,10, less the 513 credited;
    // no bags come back with it
    await credit(invoice.id, line, { amount: "1000.50" }, "3");
    // the rest: 7 units no longer worth 7 × 1.000 − 10 %, so one unit of the 5.299,50 left; it takes
    // every tax's rest
    await credit(invoice.id, line, {}, "3");
    expect(await partsByTax(line)).toEqual([
      { quantity: "3", unit_code: "94", base: "2700.00", units: "3", taxes: "01:513.00 22:210.00" },
      { quantity: "1", unit_code: "94", base: "1000.50", units: "0", taxes: "01:190.10" },
      { quantity: "1", unit_code: "94", base: "5299.50", units: "7", taxes: "01:1006.90 22:490.00" },
    ]);
    const s = await sums(invoice.id);
    expect(s).toEqual({
      ...s,
      invoice_total: "11410.00",
      credited_total: "11410.00",
      credited_tax: "2410.00",
    });
    // each note's own totals per scheme and rate
    const [note] = await db.superuser<{ tax_totals: unknown; total: string }>(
      "select tax_totals, total::text from credit_notes where id = $1",
      [first],
    );
    expect(note).toEqual({
      total: "3423.00",
      tax_totals: [
        {
          code: "01",
          name: "IVA",
          tax_amount: 513,
          subtotals: [{ percent: 19, taxable_amount: 2700, tax_amount: 513 }],
        },
        {
          code: "22",
          name: "Bolsas",
          tax_amount: 210,
          subtotals: [
            { per_unit_amount: 70, per_quantity: 1, measure_unit_code: "NIU", measure: 3, tax_amount: 210 },
          ],
        },
      ],
    });
  });

  it("never takes more of one tax than the line has, whoever writes", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, {
      status: "transmitida",
      lines: [
        {
          description: "Bolsa",
          quantity: 2,
          unitPrice: 100,
          taxRate: 0,
          taxes: [
            { code: "01", percent: 19 },
            { code: "22", per_unit_amount: 70 },
          ],
        },
      ],
    });
    const [line] = invoice.lineIds as [string];
    const note = await credit(invoice.id, line, { quantity: "1" }); // 100, IVA 19, bags 70
    // a part crediting 71 of bags and nothing else: within the line's total tax (38 + 140), above its bags
    const add = (bags: string) =>
      db.superuser(
        `insert into credit_note_lines (credit_note_id, org_id, invoice_line_id, position, description,
           unit_code, quantity, unit_price, line_extension, tax_subtotals, tax_amount, credited_quantity)
         select credit_note_id, org_id, invoice_line_id, 2, description, unit_code, 1, 0, 0,
                jsonb_build_array(jsonb_build_object('code', '22', 'tax_amount', $2::numeric)), $2::numeric, 0
           from credit_note_lines where credit_note_id = $1 and position = 1`,
        [note, bags],
      );
    expect(await sqlState(add("71.00"))).toBe("P0001");
    await add("70.00"); // the line's other bag: 140 in all
  });
});

describe("an invoice in another currency", () => {
  it("is credited in pesos from its pesos, and in dollars beside them", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, {
      lines: [{ description: "Café especial", quantity: 1, unitPrice: 226.98, taxRate: 19 }],
    });
    await db.superuser(
      "update invoices set currency = 'USD', exchange_rate = 3919.109578, exchange_rate_date = '2024-01-30' where id = $1",
      [invoice.id],
    );
    await setInvoiceStatus(db, invoice.id, "transmitida");
    const [line] = invoice.lineIds as [string];
    // 100 dollars of price adjustment: 391.910,96 pesos (100 × 3919.109578), IVA 74.463,08
    const adjustment = await credit(invoice.id, line, { amount: "100" }, "4");
    await credit(invoice.id, line, {}, "4");
    expect(await partsByTax(line)).toEqual([
      { quantity: "1", unit_code: "94", base: "391910.96", units: "0", taxes: "01:74463.08" },
      { quantity: "1", unit_code: "94", base: "497648.53", units: "1", taxes: "01:94553.22" },
    ]);
    const s = await sums(invoice.id);
    expect(s).toEqual({ ...s, invoice_total: "1058575.79", credited_total: "1058575.79" });
    const [note] = await db.superuser<{ currency: string; rate: string; deal: Record<string, unknown> }>(
      "select currency, exchange_rate::text as rate, currency_totals as deal from credit_notes where id = $1",
      [adjustment],
    );
    expect(note).toMatchObject({
      currency: "USD",
      rate: "3919.109578",
      deal: { line_extension_amount: 100, tax_total: 19, payable_amount: 119 },
    });
  });
});

describe("an invoice with discounts or charges of its own", () => {
  it("is credited whole, by an annulment that takes them as they were", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, {
      lines: [{ description: "Menú", quantity: 2, unitPrice: 25_000, taxRate: 8, taxCode: "04" }],
    });
    await db.superuser(
      `update invoices set allowance_charges = '[{"charge": true, "reason": "Propina", "percent": 10}]' where id = $1`,
      [invoice.id],
    );
    await setInvoiceStatus(db, invoice.id, "transmitida");
    const [line] = invoice.lineIds as [string];
    await expect(credit(invoice.id, line, { quantity: "1" })).rejects.toThrow(
      /document_allowances_need_annulment/,
    );
    await db.superuser(
      "select public.einv_credit_note_create($1, $2, '2', 'Anulación', null, $3, 60, now())",
      [tenant.org.id, invoice.id, tenant.operador.id],
    );
    // 50.000 + INC 4.000 + the 5.000 tip = the invoice's 59.000
    const s = await sums(invoice.id);
    expect(s).toEqual({ ...s, invoice_total: "59000.00", credited_total: "59000.00" });
    const [note] = await db.superuser<{ charges: string; allowances: unknown }>(
      `select charge_total_amount::text as charges, allowance_charge_amounts as allowances
         from credit_notes where invoice_id = $1`,
      [invoice.id],
    );
    expect(note).toEqual({
      charges: "5000.00",
      allowances: [
        {
          id: 1,
          charge: true,
          reason_code: null,
          reason: "Propina",
          percent: null,
          base_amount: 50000,
          amount: 5000,
        },
      ],
    });
  });
});
