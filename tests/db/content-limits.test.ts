/**
 * Every column a member can write has a bound, enforced by the database whoever writes it: text
 * lengths, and at most 1,000 lines per invoice. What members write is rendered into PDFs, so an
 * unbounded column is unbounded work for the service (issue: PDF line wrapping). Each limit is
 * tried at its value (accepted) and one past it (refused with a check violation), the way the web
 * app writes drafts: through PostgREST as an operador or admin.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asRole, createTestDatabase, sqlState, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";

let db: TestDatabase;
let tenant: Tenant;
let invoice: Invoice;
beforeAll(async () => {
  db = await createTestDatabase();
  tenant = await createTenant(db);
  invoice = await createInvoice(db, tenant.org, tenant.company);
});
afterAll(() => db?.close());

const CHECK_VIOLATION = "23514";

/** Column → the longest text the database accepts. */
const INVOICE_LIMITS = {
  notes: 5000,
  buyer_name: 450,
  buyer_address: 300,
  buyer_email: 320,
  buyer_phone: 50,
  buyer_id_number: 20,
  buyer_check_digit: 1,
  buyer_city_name: 100,
  buyer_department_name: 100,
};
const LINE_LIMITS = { description: 1000, code: 60, unit_code: 10 };
const COMPANY_LIMITS = {
  legal_name: 450,
  trade_name: 450,
  address: 300,
  city_name: 100,
  department_name: 100,
  email: 320,
  phone: 50,
  resolution_number: 50,
  technical_key: 200,
};

function update(table: string, column: string, value: string, id: string, as: "operador" | "admin") {
  return asRole(
    db,
    "authenticated",
    tenant[as].claims,
    `update public.${table} set ${column} = $1 where id = $2 returning id`,
    [value, id],
  );
}

describe.each([
  ["invoices", INVOICE_LIMITS, () => invoice.id, "operador"],
  ["invoice_lines", LINE_LIMITS, () => invoice.lineIds[0] ?? "", "operador"],
  ["companies", COMPANY_LIMITS, () => tenant.company.id, "admin"],
] as const)("%s", (table, limits, id, as) => {
  it.each(Object.entries(limits))(
    "%s: %i characters are accepted, one more is refused",
    async (column, limit) => {
      expect(await update(table, column, "x".repeat(limit), id(), as)).toHaveLength(1);
      expect(await sqlState(update(table, column, "x".repeat(limit + 1), id(), as))).toBe(CHECK_VIOLATION);
    },
  );
});

describe("lines per invoice", () => {
  it("positions run from 1 to 1000, one line each, so an invoice has at most 1,000 lines", async () => {
    const insert = (position: number) =>
      asRole(
        db,
        "authenticated",
        tenant.operador.claims,
        `insert into public.invoice_lines (invoice_id, org_id, position, description, quantity, unit_price)
           values ($1, $2, $3, 'Artículo', 1, 1000) returning id`,
        [invoice.id, tenant.org.id, position],
      );
    expect(await insert(1000)).toHaveLength(1);
    expect(await sqlState(insert(1001))).toBe(CHECK_VIOLATION);
    expect(await sqlState(insert(0))).toBe(CHECK_VIOLATION);
  });

  it("a line's quantity and price are numbers: 'NaN', which PostgreSQL orders above every number, is refused as what it is", async () => {
    const set = (column: "quantity" | "unit_price", value: string) =>
      asRole(
        db,
        "authenticated",
        tenant.operador.claims,
        `update public.invoice_lines set ${column} = $1::numeric where id = $2 returning id`,
        [value, invoice.lineIds[0] ?? ""],
      );
    for (const column of ["quantity", "unit_price"] as const) {
      const refusal = await set(column, "NaN").then(
        () => undefined,
        (error: unknown) => error as { code?: string; detail?: string; message?: string },
      );
      expect([refusal?.code, refusal?.detail]).toEqual([CHECK_VIOLATION, column]);
      expect(refusal?.message).toMatch(
        new RegExp(`^invoice line 1: ${column} must be a number .*, not NaN$`),
      );
    }
    expect(await sqlState(set("quantity", "0"))).toBe(CHECK_VIOLATION);
    expect(await set("quantity", "2.5")).toHaveLength(1);
  });

  it("a company lists 1 to 5 fiscal responsibilities, only of the five DIAN accepts (FAJ26)", async () => {
    const set = (codes: string[]) =>
      asRole(
        db,
        "authenticated",
        tenant.admin.claims,
        "update public.companies set fiscal_responsibilities = $1::text[] where id = $2 returning id",
        [`{${codes.join(",")}}`, tenant.company.id],
      );
    expect(await set(["O-13", "O-15", "O-23", "O-47", "R-99-PN"])).toHaveLength(1);
    expect(await sqlState(set(["O-13", "O-15", "O-23", "O-47", "R-99-PN", "O-13"]))).toBe(CHECK_VIOLATION);
    expect(await sqlState(set(["O-48"]))).toBe(CHECK_VIOLATION); // on the RUT, refused by DIAN
    expect(await sqlState(set([]))).toBe(CHECK_VIOLATION);
  });
});

/** How a check constraint that bounds a column reads in pg_get_constraintdef. */
const BOUNDED = String.raw`length\(|~ '\^.*\$'|= ANY|cardinality\(`;

describe("the catalogue", () => {
  it("every text column members may write is bounded by a check, so a new one cannot be forgotten", async () => {
    // bounded: a length limit, an anchored pattern, a list of values, or an array's cardinality
    const unchecked = await db.superuser<{ column: string }>(
      `select distinct p.table_name || '.' || p.column_name as column
         from information_schema.column_privileges p
         join information_schema.columns c using (table_schema, table_name, column_name)
         join pg_attribute a on a.attrelid = format('%I.%I', p.table_schema, p.table_name)::regclass
                            and a.attname = p.column_name
        where p.grantee = 'authenticated' and p.table_schema = 'public'
          and p.privilege_type in ('INSERT', 'UPDATE')
          and c.data_type in ('text', 'ARRAY', 'character varying', 'jsonb')
          and not exists (select 1 from pg_constraint k
                           where k.conrelid = a.attrelid and k.contype = 'c' and a.attnum = any (k.conkey)
                             and pg_get_constraintdef(k.oid) ~ $1)
        order by 1`,
      [BOUNDED],
    );
    expect(unchecked.map((r) => r.column)).toEqual([]);
  });
});
