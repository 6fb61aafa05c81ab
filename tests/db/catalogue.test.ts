/**
 * The TypeScript side of the database API against the database itself: every `public.einv_*`
 * function is in shared/db/catalogue.ts with the same argument names, in order, and granted to
 * exactly the role listed there; and every kind of fiscal document's table carries the lifecycle
 * block (`einv_private.lifecycle`) column for column, so the one lifecycle works on each.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CATALOGUE } from "../../shared/db/catalogue.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

interface ProcRow {
  name: string;
  args: string[];
  roles: string[];
}

describe("the database API catalogue", () => {
  it("lists every einv_ function with its argument names and its one grantee, and nothing else", async () => {
    const rows = await db.superuser<ProcRow>(
      `select p.proname as name, coalesce(p.proargnames, '{}') as args,
              array(select r from unnest(array['anon', 'authenticated', 'service_role']) r
                     where has_function_privilege(r, p.oid, 'EXECUTE')) as roles
         from pg_proc p
        where p.pronamespace = 'public'::regnamespace and p.proname like 'einv\\_%'
        order by 1`,
    );
    const inDatabase = Object.fromEntries(rows.map((r) => [r.name, { role: r.roles, args: r.args }]));
    const inCode = Object.fromEntries(
      Object.entries(CATALOGUE)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([name, f]) => [name, { role: [f.role], args: [...f.args] }]),
    );
    expect(inDatabase).toEqual(inCode);
  });
});

describe("the lifecycle block", () => {
  it("is on every registered kind's table with the type's names and types, so the lifecycle SQL fits each", async () => {
    const kinds = await db.superuser<{ kind: string; table: string }>(
      "select kind, content_table::text as table from einv_private.document_kinds order by kind",
    );
    expect(kinds.map((k) => k.kind)).toContain("invoice");
    const block = await db.superuser<{ name: string; type: string }>(
      `select a.attname as name, format_type(a.atttypid, a.atttypmod) as type
         from pg_attribute a
        where a.attrelid = 'einv_private.lifecycle'::regclass and a.attnum > 0 and not a.attisdropped
        order by a.attnum`,
    );
    expect(block.map((c) => c.name)).toContain("lease_until");
    for (const { table } of kinds) {
      const columns = await db.superuser<{ name: string; type: string }>(
        `select a.attname as name, format_type(a.atttypid, a.atttypmod) as type
           from pg_attribute a
          where a.attrelid = $1::regclass and a.attnum > 0 and not a.attisdropped`,
        [table],
      );
      const byName = new Map(columns.map((c) => [c.name, c.type]));
      expect(block.map((c) => [table, c.name, byName.get(c.name)])).toEqual(
        block.map((c) => [table, c.name, c.type]),
      );
      expect(["id", "org_id", "company_id"].every((c) => byName.has(c))).toBe(true);
    }
  });

  it("finds a kind's table and accepted word in the registry, and refuses a kind not registered", async () => {
    const [row] = await db.superuser<{ table: string; accepted: string }>(
      "select einv_private.kind_table('invoice') as table, einv_private.accepted_status('invoice') as accepted",
    );
    expect(row).toEqual({ table: "public.invoices", accepted: "transmitida" });
    await expect(db.superuser("select einv_private.kind_table('receipt')")).rejects.toMatchObject({
      message: "unknown_kind",
    });
  });
});
