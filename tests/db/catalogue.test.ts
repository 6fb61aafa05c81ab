/**
 * The TypeScript side of the database API against the database itself: every `public.einv_*`
 * function is in shared/ports/db/catalogue.ts with the same argument names, in order, and granted to
 * exactly the role listed there; and every kind of fiscal document's table carries the lifecycle
 * block (`einv_private.lifecycle`) column for column, so the one lifecycle works on each.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { CATALOGUE } from "../../shared/ports/db/catalogue.ts";

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

describe("the lifecycle's entry points, compiled from the registry", () => {
  it("reach a kind registered later, with static SQL on its table, and stop at it once it is gone", async () => {
    const orgId = "00000000-0000-4000-8000-0000000000a1";
    const receiptId = "00000000-0000-4000-8000-0000000000a2";
    const life =
      "status, authority_code, qr_text, provider_reference, environment, last_message, last_code, authority_message, authority_rules, attempt_count, submitted_attempt, refused_attempt, lease_until, issuer_snapshot, issue_date, issue_time, claimed_at, transmitted_at, status_checked_at";
    await db.client.exec(`
      create table public.test_receipts as
        select id, org_id, company_id, ${life} from public.invoices where false;
      create function einv_private.test_receipt_payload(p_id uuid, p_issuer jsonb) returns jsonb
      language sql stable set search_path = '' as $$ select jsonb_build_object('receipt', p_id) $$;
      insert into public.test_receipts (id, org_id, company_id, status, attempt_count)
        values ('${receiptId}', '${orgId}', gen_random_uuid(), 'pendiente', 0);
      insert into einv_private.document_kinds (kind, content_table, accepted_status, payload)
        values ('test_receipt', 'public.test_receipts', 'aceptado', 'einv_private.test_receipt_payload');`);
    try {
      const generated = await db.superuser<{ source: string }>(
        "select prosrc as source from pg_proc where oid = 'einv_private.read_documents'::regproc",
      );
      expect(generated[0]?.source).toContain("from public.test_receipts d");
      expect(generated[0]?.source).not.toContain("execute");

      await db.client.exec(`do $$ declare _life einv_private.lifecycle; begin
        select d.life into _life
          from einv_private.read_documents('test_receipt', '${orgId}', array['${receiptId}'::uuid], true) d;
        _life.status := 'en_proceso';
        perform einv_private.write_lifecycle('test_receipt', '${receiptId}', _life);
      end $$`);
      const [row] = await db.superuser<{ status: string; payload: unknown; other_org: number }>(
        `select (select (d.life).status from einv_private.read_documents('test_receipt', $2, array[$1::uuid], false) d) as status,
                einv_private.document_payload('test_receipt', $1, null, '{}') as payload,
                (select count(*)::int from einv_private.read_documents('test_receipt', gen_random_uuid(), array[$1::uuid], false)) as other_org`,
        [receiptId, orgId],
      );
      expect(row).toEqual({ status: "en_proceso", payload: { receipt: receiptId }, other_org: 0 });
    } finally {
      await db.client.exec(`
        delete from einv_private.document_kinds where kind = 'test_receipt';
        drop table public.test_receipts;
        drop function einv_private.test_receipt_payload(uuid, jsonb);`);
    }
    for (const call of [
      "select * from einv_private.read_documents('test_receipt', gen_random_uuid(), array[gen_random_uuid()], false)",
      "select einv_private.document_payload('test_receipt', gen_random_uuid(), gen_random_uuid(), null)",
    ]) {
      await expect(db.superuser(call)).rejects.toMatchObject({ message: "unknown_kind" });
    }
    const invoices = await db.superuser<{ n: number }>(
      "select count(*)::int as n from einv_private.read_documents('invoice', gen_random_uuid(), array[gen_random_uuid()], false)",
    );
    expect(invoices).toEqual([{ n: 0 }]);
  });
});
