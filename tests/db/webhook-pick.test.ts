/**
 * What a drain reads stays cheap however long the outbox's history: with 100,000 deliveries done
 * and a thousand waiting for later, PostgreSQL answers the drain's picking statement — the function's
 * own (`einv_private.webhook_due_sql`), EXPLAINed, not a copy — from the pending-deliveries indexes,
 * never by reading the table; and the outbox's pruning reads it by time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTenant, type Tenant } from "../../devkit/factories.ts";

let db: TestDatabase;
let tenant: Tenant;
beforeAll(async () => {
  db = await createTestDatabase();
  tenant = await createTenant(db);
  const [endpoint] = await db.superuser<{ id: string }>(
    `insert into public.webhook_endpoints (org_id, url, secret_ciphertext, secret_key_id)
     values ($1, 'https://hooks.example.test/in', 'v1:a:b', '0123456789abcdef') returning id::text`,
    [tenant.org.id],
  );
  await db.superuser(
    `insert into einv_private.outbox (org_id, kind, document_id, status, code, occurred_at, sequence)
     select $1, 'invoice', gen_random_uuid(), 'transmitida', 'accepted', now() - (g % 600) * interval '1 minute', 1
       from generate_series(1, 101025) g`,
    [tenant.org.id],
  );
  // all done but the last 1,025: a thousand waiting for later, 25 due now
  await db.superuser(
    `insert into einv_private.webhook_deliveries (endpoint_id, event_id, org_id, document_id, state, attempts,
                                                  next_attempt_at, finished_at)
     select $1, o.id, o.org_id, o.document_id,
            case when o.id <= 100000 then 'delivered' else 'pending' end, 1,
            case when o.id <= 101000 then now() + interval '1 hour' else now() - interval '1 second' end,
            case when o.id <= 100000 then now() end
       from einv_private.outbox o`,
    [endpoint?.id ?? ""],
  );
  await db.superuser("analyze einv_private.outbox");
  await db.superuser("analyze einv_private.webhook_deliveries");
}, 120_000);
afterAll(() => db?.close());

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}
const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

/**
 * The statement's plan for these arguments: `custom` as dynamic SQL is planned, `generic` as a
 * cached statement ends up planned (PL/pgSQL keeps a static statement's plan, and after five calls
 * uses the generic one when it costs no more: PostgreSQL's plancache.c, choose_custom_plan).
 */
async function explained(
  sql: string,
  types: string,
  args: string,
  mode: "custom" | "generic" = "custom",
): Promise<PlanNode[]> {
  const plan = await db.client.transaction(async (s) => {
    await s.query(`set local plan_cache_mode = force_${mode}_plan`);
    await s.query(`prepare pick (${types}) as ${sql}`);
    const [row] = await s.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(
      `explain (format json) execute pick (${args})`,
    );
    await s.query("deallocate pick");
    return row?.["QUERY PLAN"][0].Plan;
  });
  return nodes(plan as PlanNode);
}

describe("a drain's picking statement", () => {
  it.each([
    ["every org's", false, "null", "webhook_deliveries_due_idx", "custom"],
    ["one org's", true, "'$ORG'", "webhook_deliveries_org_due_idx", "custom"],
    ["every org's", false, "null", "webhook_deliveries_due_idx", "generic"],
    ["one org's", true, "'$ORG'", "webhook_deliveries_org_due_idx", "generic"],
  ] as const)(
    "(%s, %s plan) reads the pending-deliveries indexes, not the table",
    async (_, byOrg, org, index, mode) => {
      // a literal: a boolean parameter would arrive as text
      const [row] = await db.superuser<{ sql: string }>(
        `select einv_private.webhook_due_sql(${byOrg}) as sql`,
      );
      const plan = await explained(
        row?.sql ?? "",
        "uuid, integer",
        `${org.replace("$ORG", tenant.org.id)}, 25`,
        mode,
      );
      const onDeliveries = plan.filter((n) => n["Relation Name"] === "webhook_deliveries");
      expect(onDeliveries.length).toBeGreaterThan(0);
      expect(onDeliveries.filter((n) => n["Node Type"] === "Seq Scan")).toEqual([]);
      expect(onDeliveries.some((n) => n["Index Name"] === index)).toBe(true);
    },
  );

  it("takes the 25 due, and nothing of the history", async () => {
    const picked = await db.superuser<{ n: number }>(
      "select jsonb_array_length(public.einv_webhook_pick($1, 100, 60)) as n",
      [tenant.org.id],
    );
    expect(picked[0]?.n).toBe(25);
  });
});

describe("the outbox's pruning", () => {
  it("finds what is old by time, not by reading the table", async () => {
    const plan = await explained(
      `select x.id from einv_private.outbox x where x.occurred_at < now() - make_interval(days => $1)
        order by x.occurred_at limit $2`,
      "integer, integer",
      "7, 50000",
    );
    expect(plan.filter((n) => n["Node Type"] === "Seq Scan")).toEqual([]);
    expect(plan.some((n) => n["Index Name"] === "outbox_occurred_at_idx")).toBe(true);
  });
});
