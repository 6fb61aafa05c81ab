/**
 * Debit notes on the real database: their lines computed by the amounts module as an invoice's, the
 * numbering of a company's notes under concurrency (20 at once on one invoice; a debit and a credit
 * note racing on one invoice), what the database refuses, and who may see and write them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asRole, createTestDatabase, sqlState, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Tenant } from "../../devkit/factories.ts";
import { connectPostgres, type SqlClient } from "../../shared/db/sql-client.ts";
import type { ClaimEntry, DebitedLine } from "../../shared/kernel/rows.ts";
import type { Db } from "../../shared/ports/db/port.ts";
import { createTransports, TRANSPORTS, type Transports } from "../support/transports.ts";

let db: TestDatabase;
let pool: SqlClient;
let transports: Transports["db"];

beforeAll(async () => {
  db = await createTestDatabase();
  // as many connections as concurrent callers, so the database, not the pool, decides the order
  pool = db.url ? await connectPostgres(db.url, { max: 22 }) : db.client;
  transports = (await createTransports(pool, { name: "debit-notes" })).db;
});
afterAll(async () => {
  if (pool !== db.client) await pool.close();
  await db?.close();
});

const INTEREST: DebitedLine = { description: "Intereses de mora", quantity: "1", unit_price: "47600" };

const debit = async (
  tenant: Tenant,
  invoiceId: string,
  lines: unknown[] = [INTEREST],
  api: Db = transports.postgres,
  concept = "1",
) =>
  (await api.asService().call("einv_debit_note_create", {
    p_org_id: tenant.org.id,
    p_invoice_id: invoiceId,
    p_concept_code: concept,
    p_reason: "Cargo adicional",
    p_lines: lines as DebitedLine[],
    p_actor_id: tenant.operador.id,
    p_lease_seconds: 60,
    p_issued_at: new Date().toISOString(),
  })) as Exclude<ClaimEntry<"debit_note">, { action: "skip" }>;

const credit = (tenant: Tenant, invoiceId: string, api: Db) =>
  api.asService().call("einv_credit_note_create", {
    p_org_id: tenant.org.id,
    p_invoice_id: invoiceId,
    p_concept_code: "2",
    p_reason: "Anulación",
    p_lines: null,
    p_actor_id: tenant.operador.id,
    p_lease_seconds: 60,
    p_issued_at: new Date().toISOString(),
  });

const numbers = async (table: "debit_notes" | "credit_notes", companyId: string) =>
  (
    await db.superuser<{ number: string }>(`select number from ${table} where company_id = $1`, [companyId])
  ).map((r) => r.number);

describe.each(TRANSPORTS)("concurrent debit notes through the %s transport", (name) => {
  it("20 at once on one invoice take 20 distinct consecutive numbers, ND1 to ND20, no gap, no twin", async () => {
    const tenant = await createTenant(db);
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => debit(tenant, invoice.id, [INTEREST], transports[name])),
    );
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    const taken = await numbers("debit_notes", tenant.company.id);
    expect(new Set(taken).size).toBe(20);
    expect(taken.map((n) => Number(n.slice(2))).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    // every note answered its own claim, with its own number
    const claimed = results.map((r) => (r as PromiseFulfilledResult<{ document: { number: string } }>).value);
    expect(new Set(claimed.map((c) => c.document.number)).size).toBe(20);
  });

  it("a debit note and a credit note racing on one invoice both stand, each with its own number", async () => {
    const tenant = await createTenant(db);
    const invoices = await Promise.all(
      Array.from({ length: 5 }, () =>
        createInvoice(db, tenant.org, tenant.company, { status: "transmitida" }),
      ),
    );
    const results = await Promise.allSettled(
      invoices.flatMap((inv) => [
        debit(tenant, inv.id, [INTEREST], transports[name]),
        credit(tenant, inv.id, transports[name]),
      ]),
    );
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    expect((await numbers("debit_notes", tenant.company.id)).sort()).toEqual(
      ["ND1", "ND2", "ND3", "ND4", "ND5"].sort(),
    );
    expect((await numbers("credit_notes", tenant.company.id)).sort()).toEqual(
      ["NC1", "NC2", "NC3", "NC4", "NC5"].sort(),
    );
    const [counts] = await db.superuser<{ debits: number; credits: number }>(
      `select (select count(*)::int from debit_notes
                where invoice_id = any (string_to_array($1, ',')::uuid[]) and status = 'en_proceso') as debits,
              (select count(*)::int from credit_notes
                where invoice_id = any (string_to_array($1, ',')::uuid[]) and status = 'en_proceso') as credits`,
      [invoices.map((i) => i.id).join(",")],
    );
    expect(counts).toEqual({ debits: 5, credits: 5 });
  });
});

describe("what a debit note charges, computed as an invoice line", () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await createTenant(db);
  });

  it("a line with IVA and a discount, another with IVA and per-unit bags: each tax to the cent, the totals DIAN's", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const entry = await debit(tenant, invoice.id, [
      {
        description: "Ajuste de precio: 10 unidades",
        quantity: "10",
        unit_price: "1500",
        taxes: [{ code: "01", percent: 19 }],
        allowance_charges: [{ charge: false, reason_code: "00", percent: 10 }],
      },
      {
        description: "Bolsas de entrega",
        quantity: "3",
        unit_price: "333.33",
        taxes: [
          { code: "01", percent: 19 },
          { code: "22", per_unit_amount: 70 },
        ],
        code: "BOL",
        unit_code: "NIU",
      },
    ]);
    const doc = entry.document;
    // line 1: 10 × 1 500 = 15 000 − 10 % = 13 500; IVA 2 565.00
    // line 2: 3 × 333.33 = 999.99; IVA 190.00 (189.9981); bags 3 × 70 = 210.00
    expect(doc.lines.map((l) => [l.line_extension, l.tax_amount])).toEqual([
      [13500, 2565],
      [999.99, 400],
    ]);
    expect({
      subtotal: doc.subtotal,
      tax_total: doc.tax_total,
      total: doc.total,
      tax_exclusive_amount: doc.tax_exclusive_amount,
    }).toEqual({ subtotal: 14499.99, tax_total: 2965, total: 17464.99, tax_exclusive_amount: 14499.99 });
    expect(doc.tax_totals?.map((t) => [t.code, t.tax_amount])).toEqual([
      ["01", 2755],
      ["22", 210],
    ]);
    expect(doc.billing_reference).toMatchObject({ number: invoice.number });
    expect(doc.number).toMatch(/^ND\d+$/);
    const [stored] = await db.superuser<{ taxes: unknown; unit_code: string; code: string }>(
      "select taxes, unit_code, code from debit_note_lines where debit_note_id = $1 and position = 2",
      [doc.id],
    );
    // the request's inputs are kept as written, beside what was computed from them
    expect(stored).toEqual({
      taxes: [
        { code: "01", percent: 19 },
        { code: "22", per_unit_amount: 70 },
      ],
      unit_code: "NIU",
      code: "BOL",
    });
  });

  it("an input the amounts module refuses is validation_failed naming the field under lines, and nothing is created", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const before = await numbers("debit_notes", tenant.company.id);
    await expect(
      debit(tenant, invoice.id, [INTEREST, { ...INTEREST, taxes: [{ code: "01", percent: 18 }] }]),
    ).rejects.toMatchObject({
      code: "validation_failed",
      details: [
        { field: "lines.1.taxes.0.percent", message: expect.stringMatching(/18 is not a rate of IVA/) },
      ],
    });
    await expect(debit(tenant, invoice.id, [{ ...INTEREST, quantity: "0" }])).rejects.toMatchObject({
      code: "validation_failed",
      details: [{ field: "lines.0.quantity" }],
    });
    expect(await numbers("debit_notes", tenant.company.id)).toEqual(before);
  });

  it("refuses what the HTTP API never lets through, and a note that charges nothing: 422, nothing created", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    for (const lines of [[], [{ ...INTEREST, colour: "red" }], [{ quantity: "1", unit_price: "1" }], ["x"]]) {
      await expect(debit(tenant, invoice.id, lines), JSON.stringify(lines)).rejects.toMatchObject({
        code: "business_rule",
      });
    }
    await expect(debit(tenant, invoice.id, [{ ...INTEREST, unit_price: "0" }])).rejects.toMatchObject({
      code: "business_rule",
      message: expect.stringMatching(/come to nothing/),
    });
    await expect(debit(tenant, invoice.id, [INTEREST], transports.postgres, "5")).rejects.toMatchObject({
      code: "business_rule",
    });
  });

  it("only a transmitted invoice takes one: 409 for a draft or one in error, 404 for another org's", async () => {
    for (const status of ["pendiente", "error"] as const) {
      const invoice = await createInvoice(db, tenant.org, tenant.company, { status });
      await expect(debit(tenant, invoice.id)).rejects.toMatchObject({
        code: "invalid_state",
        message: `A debit note is issued only for an invoice the authority accepted (transmitida); this one is ${status}.`,
      });
    }
    const other = await createTenant(db);
    const theirs = await createInvoice(db, other.org, other.company, { status: "transmitida" });
    await expect(debit(tenant, theirs.id)).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("who sees and writes debit notes", () => {
  let mine: Tenant;
  let noteId = "";
  beforeAll(async () => {
    mine = await createTenant(db);
    const invoice = await createInvoice(db, mine.org, mine.company, { status: "transmitida" });
    noteId = String((await debit(mine, invoice.id)).document_id);
  });

  it("members of the org read its notes and their lines; a member of another org sees none", async () => {
    const stranger = await createTenant(db);
    for (const role of ["admin", "operador", "lector"] as const) {
      const read = (sql: string) => asRole(db, "authenticated", mine[role].claims, sql, [noteId]);
      expect(await read("select id from debit_notes where id = $1")).toHaveLength(1);
      expect(await read("select id from debit_note_lines where debit_note_id = $1")).toHaveLength(1);
    }
    expect(
      await asRole(db, "authenticated", stranger.admin.claims, "select id from debit_notes where id = $1", [
        noteId,
      ]),
    ).toEqual([]);
  });

  it("no member can write a note or its lines, nor change its fiscal state", async () => {
    for (const sql of [
      `insert into debit_notes (org_id, company_id, invoice_id, number, issue_date, issue_time, concept_code,
         reason, currency, subtotal, tax_total, total)
       select org_id, company_id, invoice_id, 'ND999', issue_date, issue_time, '1', 'x', 'COP', 1, 0, 1
         from debit_notes where id = $1`,
      "update debit_notes set status = 'emitida', authority_code = 'x' where id = $1",
      "update debit_notes set reason = 'otra' where id = $1",
      "delete from debit_notes where id = $1",
      "delete from debit_note_lines where debit_note_id = $1",
    ]) {
      expect(await sqlState(asRole(db, "authenticated", mine.admin.claims, sql, [noteId])), sql).toBe(
        "42501",
      );
    }
  });

  it("an admin sets its own prefix, letters only", async () => {
    const set = (prefix: string) =>
      asRole(
        db,
        "authenticated",
        mine.admin.claims,
        "update companies set debit_note_prefix = $1 where id = $2 returning debit_note_prefix",
        [prefix, mine.company.id],
      );
    expect(await set("NDB")).toEqual([{ debit_note_prefix: "NDB" }]);
    expect(await sqlState(set("ND1"))).toBe("23514");
    const invoice = await createInvoice(db, mine.org, mine.company, { status: "transmitida" });
    expect((await debit(mine, invoice.id)).document.number).toMatch(/^NDB\d+$/);
    await set("ND");
  });

  it("what a note says never changes, even for the service", async () => {
    for (const sql of [
      "update debit_notes set total = total + 1 where id = $1",
      "delete from debit_notes where id = $1",
      "update debit_note_lines set quantity = 9 where debit_note_id = $1",
      "delete from debit_note_lines where debit_note_id = $1",
    ]) {
      expect(await sqlState(db.superuser(sql, [noteId])), sql).toBe("P0001");
    }
  });
});
