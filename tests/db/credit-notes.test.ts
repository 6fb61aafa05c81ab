/**
 * Credit notes on the real database: what the notes of one invoice may credit, and the numbering of
 * a company's notes, both under concurrency; and who may see and write them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asRole, createTestDatabase, sqlState, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type LineInput, type Tenant } from "../../devkit/factories.ts";
import { connectPostgres, type SqlClient } from "../../shared/db/sql-client.ts";
import type { CreditedLine } from "../../shared/kernel/rows.ts";
import type { Db } from "../../shared/ports/db/port.ts";
import { createTransports, TRANSPORTS, type Transports } from "../support/transports.ts";

let db: TestDatabase;
let pool: SqlClient;
let transports: Transports["db"];
let tenant: Tenant;

beforeAll(async () => {
  db = await createTestDatabase();
  // as many connections as concurrent callers, so the database, not the pool, decides the order
  pool = db.url ? await connectPostgres(db.url, { max: 20 }) : db.client;
  // the stand-in of PostgREST runs on the same pool, so each transport has its 20 connections
  transports = (await createTransports(pool, { name: "credit-notes" })).db;
  tenant = await createTenant(db);
});
afterAll(async () => {
  if (pool !== db.client) await pool.close();
  await db?.close();
});

const FIVE_LINES: LineInput[] = [10_000, 20_000, 30_000, 40_000, 50_000].map((unitPrice, i) => ({
  description: `Artículo ${i + 1}`,
  quantity: 1,
  unitPrice,
  taxRate: 19,
}));

/** A note for `lines`: ids are whole lines, objects parts of them; null is everything left. */
const create = (
  invoiceId: string,
  lines: (string | CreditedLine)[] | null,
  concept = "1",
  api: Db = transports.postgres,
) =>
  api.asService().call("einv_credit_note_create", {
    p_org_id: tenant.org.id,
    p_invoice_id: invoiceId,
    p_concept_code: concept,
    p_reason: "Prueba de concurrencia",
    p_lines:
      lines === null ? null : lines.map((line) => (typeof line === "string" ? { line_id: line } : line)),
    p_actor_id: tenant.operador.id,
    p_lease_seconds: 60,
    p_issued_at: new Date().toISOString(),
  });

describe.each(TRANSPORTS)("concurrent credit notes through the %s transport", (name) => {
  it("20 at once against one invoice never credit a line twice nor more than the invoice", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, {
      status: "transmitida",
      lines: FIVE_LINES,
    });
    const ids = invoice.lineIds;
    // overlapping requests: single lines, pairs, and "everything left"
    const requests = Array.from({ length: 20 }, (_, i) =>
      i % 5 === 4 ? null : [ids[i % 5] as string, ids[(i + 1) % 5] as string].slice(0, 1 + (i % 2)),
    );
    const outcomes = await Promise.allSettled(
      requests.map((lines, i) => create(invoice.id, lines, i === 9 ? "2" : "1", transports[name])),
    );
    const refused = outcomes.filter((o) => o.status === "rejected");
    for (const o of refused)
      expect((o as PromiseRejectedResult).reason).toMatchObject({ code: "business_rule" });
    expect(outcomes.filter((o) => o.status === "fulfilled").length).toBeGreaterThan(0);

    const [totals] = await db.superuser<{
      credited: string;
      invoice: string;
      lines: number;
      distinct: number;
    }>(
      `select coalesce(sum(l.line_extension + l.tax_amount), 0)::text as credited,
              (select total::text from invoices where id = $1) as invoice,
              count(*)::int as lines, count(distinct l.invoice_line_id)::int as distinct
         from credit_note_lines l join credit_notes n on n.id = l.credit_note_id where n.invoice_id = $1`,
      [invoice.id],
    );
    expect(totals?.lines).toBe(totals?.distinct);
    expect(Number(totals?.credited)).toBeLessThanOrEqual(Number(totals?.invoice));
    // the notes' own totals agree with their lines
    const mismatched = await db.superuser(
      `select n.id from credit_notes n join credit_note_lines l on l.credit_note_id = n.id
        where n.invoice_id = $1 group by n.id, n.total having n.total <> sum(l.line_extension + l.tax_amount)`,
      [invoice.id],
    );
    expect(mismatched).toEqual([]);
  });

  it("20 at once on a line with IVA, bags per unit and a discount: never more of any tax, the last takes each to the cent", async () => {
    // 10 × 5.000 − 5 % = 47.500; IVA 19 % 9.025; bags 70 each, 700
    const invoice = await createInvoice(db, tenant.org, tenant.company, {
      status: "transmitida",
      lines: [
        {
          description: "Caja con bolsa",
          quantity: 10,
          unitPrice: 5_000,
          taxRate: 0,
          taxes: [
            { code: "01", percent: 19 },
            { code: "22", per_unit_amount: 70 },
          ],
          allowanceCharges: [{ charge: false, reason_code: "00", percent: 5 }],
        },
      ],
    });
    const line = invoice.lineIds[0] as string;
    // returns of 1 or 2 units and everything left, racing: 2.5 times the line is asked for
    const asks = Array.from({ length: 20 }, (_, i) =>
      i % 7 === 6 ? { line_id: line } : { line_id: line, quantity: String(1 + (i % 2)) },
    );
    const outcomes = await Promise.allSettled(
      asks.map((ask) => create(invoice.id, [ask], "1", transports[name])),
    );
    for (const o of outcomes.filter((o) => o.status === "rejected"))
      expect((o as PromiseRejectedResult).reason).toMatchObject({ code: "business_rule" });
    const per = async () =>
      db.superuser<{ code: string; credited: string }>(
        `select t ->> 'code' as code, sum((t ->> 'tax_amount')::numeric)::text as credited
           from credit_note_lines c, jsonb_array_elements(c.tax_subtotals) t
          where c.invoice_line_id = $1 and c.released_at is null group by 1 order by 1`,
        [line],
      );
    const [totals] = await db.superuser<{ units: string; base: string }>(
      `select trim_scale(sum(credited_quantity))::text as units, sum(line_extension)::text as base
         from credit_note_lines where invoice_line_id = $1 and released_at is null`,
      [line],
    );
    // whatever won, the line's 10 units and 47.500 of base are all credited (an "everything left"
    // is among the asks, or the returns took every unit), and each tax to the cent, never a cent more
    expect(totals).toEqual({ units: "10", base: "47500.00" });
    expect(await per()).toEqual([
      { code: "01", credited: "9025.00" },
      { code: "22", credited: "700.00" },
    ]);
  });

  it("20 partial notes at once on one line: exactly those that fit stand, in units and in base", async () => {
    // 10 units of 5.000: returns of 1 to 3 units and discounts of 3.000 to 9.000, asking 2.5 times the line
    const invoice = await createInvoice(db, tenant.org, tenant.company, {
      status: "transmitida",
      lines: [{ description: "Caja", quantity: 10, unitPrice: 5_000, taxRate: 19 }],
    });
    const line = invoice.lineIds[0] as string;
    const asks = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0
        ? {
            concept: "1",
            units: 1 + (i % 3),
            base: 5_000 * (1 + (i % 3)),
            part: { quantity: String(1 + (i % 3)) },
          }
        : {
            concept: "5",
            units: 0,
            base: 3_000 + 1_000 * (i % 7),
            part: { amount: `${3_000 + 1_000 * (i % 7)}.00` },
          },
    );
    expect(asks.reduce((sum, a) => sum + a.base, 0)).toBeGreaterThan(100_000);
    const outcomes = await Promise.allSettled(
      asks.map((a) => create(invoice.id, [{ line_id: line, ...a.part }], a.concept, transports[name])),
    );

    const made = asks.filter((_, i) => outcomes[i]?.status === "fulfilled");
    const units = made.reduce((sum, a) => sum + a.units, 0);
    const base = made.reduce((sum, a) => sum + a.base, 0);
    expect(units).toBeLessThanOrEqual(10);
    expect(base).toBeLessThanOrEqual(50_000);
    // each refused note asked for more than was left even at the end: nothing that fit was refused
    for (const [i, outcome] of outcomes.entries()) {
      if (outcome.status === "fulfilled") continue;
      const ask = asks[i] as (typeof asks)[number];
      expect(outcome.reason).toMatchObject({ code: "business_rule" });
      expect(String((outcome.reason as Error).message)).toContain(line);
      expect(ask.units > 10 - units || ask.base > 50_000 - base, `ask ${i} would have fit`).toBe(true);
    }
    // the stored lines are exactly the notes made, each with its tax at 19 %, rounded to the cent
    const [stored] = await db.superuser<{ notes: number; units: string; base: string; off: number }>(
      `select count(distinct n.id)::int as notes, sum(l.credited_quantity)::text as units,
              sum(l.line_extension)::text as base,
              count(*) filter (where l.tax_amount <> round(l.line_extension * 0.19, 2))::int as off
         from credit_note_lines l join credit_notes n on n.id = l.credit_note_id where n.invoice_id = $1`,
      [invoice.id],
    );
    expect(stored).toEqual({ notes: made.length, units: `${units}.000000`, base: `${base}.00`, off: 0 });
  });

  it("what stands never exceeds the invoice line, whoever writes", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const line = invoice.lineIds[0] as string; // 2 × 50.000
    const { document_id } = await create(
      invoice.id,
      [{ line_id: line, quantity: "1" }],
      "1",
      transports[name],
    );
    // another line like the note's, taking `units` and `base` of the invoice line
    let position = 1;
    const add = (units: string, base: string) =>
      db.superuser(
        `insert into credit_note_lines (credit_note_id, org_id, invoice_line_id, position, description,
           unit_code, quantity, unit_price, line_extension, tax_amount, credited_quantity)
         select credit_note_id, org_id, invoice_line_id, $2, description, unit_code, 1, $4, $4, 0, $3
           from credit_note_lines where credit_note_id = $1 and position = 1`,
        [document_id, ++position, units, base],
      );
    await add("1", "50000.00"); // the other unit: the line is now credited in full
    expect(await sqlState(add("0.000001", "0.00"))).toBe("P0001");
    expect(await sqlState(add("0", "0.01"))).toBe("P0001");
  });

  it("20 at once for one company get consecutive numbers, no gaps, no duplicates", async () => {
    const company = await createTenant(db);
    tenant = company;
    const invoices = await Promise.all(
      Array.from({ length: 20 }, () =>
        createInvoice(db, company.org, company.company, { status: "transmitida" }),
      ),
    );
    // a refused note in the middle takes no number
    const results = await Promise.allSettled([
      ...invoices.map((inv) => create(inv.id, null, "1", transports[name])),
      create(invoices[0]?.id ?? "", [crypto.randomUUID()], "1", transports[name]),
    ]);
    expect(results.filter((r) => r.status === "rejected")).toHaveLength(1);
    const numbers = await db.superuser<{ number: string }>(
      "select number from credit_notes where company_id = $1 order by number",
      [company.company.id],
    );
    expect(numbers.map((n) => Number(n.number.slice(2))).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });
});

describe("what the database takes as lines to credit, whoever calls it", () => {
  it("refuses a malformed part, a form its concept does not take, and a line twice; creates nothing", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const line = invoice.lineIds[0] as string;
    for (const [lines, concept] of [
      [[{ line_id: line, quantity: "0" }], "1"],
      [[{ line_id: line, quantity: "1.1234567" }], "1"],
      [[{ line_id: line, quantity: "-1" }], "1"],
      [[{ line_id: line, amount: "1.001" }], "3"],
      [[{ line_id: line, amount: "10.00" }], "1"],
      [[{ line_id: line, quantity: "1" }], "4"],
      [[{ line_id: line, quantity: "1" }], "2"],
      [[{ line_id: line, quantity: "1", amount: "10.00" }], "1"],
      [[{ line_id: line }, { line_id: line.toUpperCase(), quantity: "1" }], "1"],
      [[{ line_id: "not-a-uuid" }], "1"],
      [[], "1"],
    ] as const) {
      await expect(create(invoice.id, [...lines], concept), JSON.stringify(lines)).rejects.toMatchObject({
        code: "business_rule",
        message: expect.stringMatching(/^The (line .+|list of lines) cannot be credited as asked/),
      });
    }
    const notes = await db.superuser("select 1 from credit_notes where invoice_id = $1", [invoice.id]);
    expect(notes).toEqual([]);
  });
});

describe("who sees and writes credit notes", () => {
  let mine: Tenant;
  let noteId = "";
  beforeAll(async () => {
    mine = await createTenant(db);
    tenant = mine;
    const invoice = await createInvoice(db, mine.org, mine.company, { status: "transmitida" });
    noteId = String((await create(invoice.id, null)).document_id);
  });

  it("members of the org read its notes and their lines; a member of another org sees none", async () => {
    const stranger = await createTenant(db);
    for (const role of ["admin", "operador", "lector"] as const) {
      const rows = await asRole(
        db,
        "authenticated",
        mine[role].claims,
        "select id from credit_notes where id = $1",
        [noteId],
      );
      expect(rows).toHaveLength(1);
      const lines = await asRole(
        db,
        "authenticated",
        mine[role].claims,
        "select id from credit_note_lines where credit_note_id = $1",
        [noteId],
      );
      expect(lines.length).toBeGreaterThan(0);
    }
    expect(
      await asRole(db, "authenticated", stranger.admin.claims, "select id from credit_notes where id = $1", [
        noteId,
      ]),
    ).toEqual([]);
  });

  it("no member can write a note or its lines, nor change its fiscal state", async () => {
    for (const sql of [
      `insert into credit_notes (org_id, company_id, invoice_id, number, issue_date, issue_time, concept_code,
         reason, currency, subtotal, tax_total, total)
       select org_id, company_id, invoice_id, 'NC999', issue_date, issue_time, '1', 'x', 'COP', 0, 0, 0
         from credit_notes where id = $1`,
      "update credit_notes set status = 'emitida', authority_code = 'x' where id = $1",
      "update credit_notes set reason = 'otra' where id = $1",
      "delete from credit_notes where id = $1",
      "delete from credit_note_lines where credit_note_id = $1",
    ]) {
      expect(await sqlState(asRole(db, "authenticated", mine.admin.claims, sql, [noteId])), sql).toBe(
        "42501",
      );
    }
  });

  it("an admin sets the company's software PIN but no member can read it back", async () => {
    const set = await asRole(
      db,
      "authenticated",
      mine.admin.claims,
      "update companies set software_pin = '99999' where id = $1 returning id",
      [mine.company.id],
    );
    expect(set).toHaveLength(1);
    for (const role of ["admin", "operador", "lector"] as const) {
      const read = asRole(
        db,
        "authenticated",
        mine[role].claims,
        "select software_pin from companies where id = $1",
        [mine.company.id],
      );
      expect(await sqlState(read)).toBe("42501");
    }
  });

  it("a note's prefix is letters only, so it can never run into its consecutive number", async () => {
    const set = (prefix: string) =>
      asRole(
        db,
        "authenticated",
        mine.admin.claims,
        "update companies set credit_note_prefix = $1 where id = $2 returning id",
        [prefix, mine.company.id],
      );
    expect(await set("NCR")).toHaveLength(1);
    expect(await sqlState(set("NC1"))).toBe("23514");
    await set("NC");
  });

  it("what a note says never changes, even for the service", async () => {
    expect(
      await sqlState(db.superuser("update credit_notes set total = total + 1 where id = $1", [noteId])),
    ).toBe("P0001");
    expect(await sqlState(db.superuser("delete from credit_notes where id = $1", [noteId]))).toBe("P0001");
    // a credited line changes in nothing; it can only be released, once
    const line = "select id from credit_note_lines where credit_note_id = $1 limit 1";
    expect(
      await sqlState(
        db.superuser(`update credit_note_lines set quantity = 9 where id = (${line})`, [noteId]),
      ),
    ).toBe("P0001");
    expect(await sqlState(db.superuser(`delete from credit_note_lines where id = (${line})`, [noteId]))).toBe(
      "P0001",
    );
  });
});
