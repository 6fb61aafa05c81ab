/**
 * The statement a reconcile run picks open documents with stays cheap as an organization's data
 * grows: on 100,000 invoices, a few of them open, PostgreSQL answers it from the open-documents
 * index, never by reading the whole table. The statement is the run's own
 * (`einv_private.reconcile_pick_sql`), EXPLAINed, not a copy.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTenant } from "../../devkit/factories.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const tenant = await createTenant(db);
  await db.superuser(
    `insert into invoices (org_id, company_id, number, status, environment, attempt_count, submitted_attempt,
                           claimed_at, status_checked_at)
     select $1, $2, 'SETP' || (900000000 + g),
            case when g % 1000 = 0 then 'en_proceso' else 'transmitida' end, 'uat', 1, 1,
            now() - interval '2 hours', now() - (g % 500) * interval '1 minute'
       from generate_series(1, 100000) g`,
    [tenant.org.id, tenant.company.id],
  );
  await db.superuser("analyze invoices");
}, 120_000);
afterAll(() => db?.close());

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

describe("the reconcile run's picking statement", () => {
  it("reads 100,000 invoices through the open-documents index, not a sequential scan", async () => {
    const [row] = await db.superuser<{ sql: string }>(
      "select einv_private.reconcile_pick_sql('public.invoices') as sql",
    );
    const plan = await db.client.transaction(async (s) => {
      await s.query(`prepare pick (double precision, bigint, timestamptz, text, uuid) as ${row?.sql}`);
      const [explained] = await s.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(
        "explain (format json) execute pick (0, 25, now() + interval '1 minute', 'invoice', gen_random_uuid())",
      );
      await s.query("deallocate pick");
      return explained?.["QUERY PLAN"][0].Plan;
    });
    const onInvoices = nodes(plan as PlanNode).filter((n) => n["Relation Name"] === "invoices");
    expect(onInvoices.length).toBeGreaterThan(0);
    expect(onInvoices.filter((n) => n["Node Type"] === "Seq Scan")).toEqual([]);
    expect(onInvoices.some((n) => n["Index Name"] === "invoices_open_idx")).toBe(true);
  });
});
