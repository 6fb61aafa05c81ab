/**
 * One reconcile run (shared/core/reconcile/run.ts) against the real database, with the sandbox
 * provider at the network edge and a clock the test moves: each provider request takes
 * `providerTakes` milliseconds of it. What a run leases, when it stops asking, which provider it
 * slows down, and what it counts as settled.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandboxProvider, type SandboxProvider } from "../../sandbox/provider.ts";
import { PENDING_MARKER } from "../../sandbox/rules.ts";
import { type ReconcileOptions, reconcile } from "../../shared/core/reconcile/run.ts";
import { providersFor } from "../../shared/http/route.ts";
import { createLogger } from "../../shared/log.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { saveCredential } from "../support/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../support/factories.ts";

let db: TestDatabase;
let t: TestApp;
let sandbox: SandboxProvider;
let tenant: Tenant;
/** The run's clock, in milliseconds; far from 0, so a time measured from 0 shows. */
let clock = 0;
let providerTakes = 0;
/** Ids of the documents the provider was asked about, in order. */
let asked: string[] = [];
/** Runs while the provider is being asked about a document, before it answers. */
let whileAsking: (id: string) => Promise<void> = async () => {};
let logs: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  sandbox = createSandboxProvider();
  t = await createTestApp(db, {
    providerFetch: async (input, init) => {
      const request = new Request(input, init);
      const id = new URL(request.url).pathname.split("/").pop() ?? "";
      if (request.method === "GET") {
        asked.push(id);
        await whileAsking(id);
      }
      clock += providerTakes;
      return sandbox.fetch(request);
    },
  });
  tenant = await createTenant(db);
  await saveCredential(t.deps, tenant);
});
afterAll(() => db?.close());
beforeEach(async () => {
  // every run picks whatever is open in the database: nothing is left open by another test
  await db.superuser("update invoices set status = 'error', lease_until = null where status = 'en_proceso'");
  sandbox.reset();
  clock = 1_000_000;
  providerTakes = 0;
  asked = [];
  whileAsking = async () => {};
  logs = [];
});

const OPTIONS: ReconcileOptions = {
  budgetMs: 10_000,
  batchSize: 10,
  graceSeconds: 0,
  concurrency: 1,
  providerTimeoutMs: 1_000,
};

function run(options: Partial<ReconcileOptions> = {}) {
  const serviceDb = t.deps.db.asService();
  return reconcile({
    ctx: {
      serviceDb,
      providers: providersFor(t.deps, serviceDb),
      documents: t.deps.documents,
      log: createLogger("debug", (line) => logs.push(line)),
      now: () => clock,
    },
    options: { ...OPTIONS, ...options },
  });
}

/** Open documents of `owner`, idle for an hour, the first the oldest: a run asks in this order. */
async function openInvoices(count: number, owner: Tenant = tenant): Promise<Invoice[]> {
  const invoices: Invoice[] = [];
  for (let i = 0; i < count; i++) {
    const invoice = await createInvoice(db, owner.org, owner.company, { status: "en_proceso" });
    await db.superuser(
      "update invoices set claimed_at = now() - interval '1 hour' + $2 * interval '1 second' where id = $1",
      [invoice.id, created++],
    );
    invoices.push(invoice);
  }
  return invoices;
}
let created = 0;

const rowOf = async (invoice: Invoice) =>
  (
    await db.superuser<{ status: string; lease_until: Date | null }>(
      "select status, lease_until from invoices where id = $1",
      [invoice.id],
    )
  )[0];
const errorsOf = async (runId: string) =>
  (
    await db.superuser<{ errors: { kind: string; document_id: string; error: string }[] }>(
      "select errors from einv_private.reconcile_runs where id = $1",
      [runId],
    )
  )[0]?.errors;

describe("the lease on what a run picks", () => {
  it("outlives the run's budget and its last query's timeout, and ends soon after", async () => {
    const [invoice] = await openInvoices(1);
    let leaseSeconds = 0;
    whileAsking = async () => {
      const [row] = await db.superuser<{ s: number }>(
        "select extract(epoch from lease_until - now())::float8 as s from invoices where id = $1",
        [invoice?.id],
      );
      leaseSeconds = row?.s ?? 0;
    };
    await run({ budgetMs: 600_000, providerTimeoutMs: 60_000 });
    expect(asked).toEqual([invoice?.id]);
    // budget 600 s + two timeouts of 60 s: another run could take it back only after all of that
    expect(leaseSeconds).toBeGreaterThan(720);
    expect(leaseSeconds).toBeLessThan(780);
  });
});

describe("the deadline", () => {
  it("asks about a picked document only if the answer can come in time, and gives the rest back untouched", async () => {
    const invoices = await openInvoices(4);
    // 10 s budget, 3 s timeout, each answer takes 3.5 s: asked at 0, 3.5 and 7 s (7 + 3 = the deadline)
    providerTakes = 3_500;
    const result = await run({ budgetMs: 10_000, providerTimeoutMs: 3_000 });
    expect(asked).toEqual(invoices.slice(0, 3).map((i) => i.id));
    expect(result).toMatchObject({ picked: 4, settled: 3, still_open: 1, took_ms: 10_500 });
    expect(await rowOf(invoices[3] as Invoice)).toEqual({ status: "en_proceso", lease_until: null });
    // the next run asks about it
    providerTakes = 0;
    const next = await run();
    expect(next).toMatchObject({ picked: 1, settled: 1, still_open: 0, took_ms: 0 });
  });

  it("picks batch after batch while an answer can still come in time, and no batch after that", async () => {
    const invoices = await openInvoices(5);
    // batches of one, each answer takes 4 s of a 10 s budget, 2 s timeout: picked at 0, 4 and 8 s
    providerTakes = 4_000;
    const result = await run({ budgetMs: 10_000, providerTimeoutMs: 2_000, batchSize: 1 });
    expect(asked).toEqual(invoices.slice(0, 3).map((i) => i.id));
    expect(result).toMatchObject({ picked: 3, settled: 3, still_open: 2 });
  });

  it("picks the next batch when the last one was full, until one is short", async () => {
    const invoices = await openInvoices(5);
    const result = await run({ batchSize: 2 });
    expect(asked).toEqual(invoices.map((i) => i.id));
    expect(result).toMatchObject({ picked: 5, settled: 5, still_open: 0 });
  });
});

describe("a provider that answers 429", () => {
  it("is not asked again in the run, while other providers are", async () => {
    const other = await createTenant(db);
    await saveCredential(t.deps, other);
    const limited = await openInvoices(3);
    const [elsewhere] = await openInvoices(1, other);
    sandbox.setKnobs({ failNext: [{ kind: "rate_limited", on: "query", reference: limited[0]?.id }] });
    const result = await run();
    expect(asked).toEqual([limited[0]?.id, elsewhere?.id]);
    expect(result).toMatchObject({ picked: 4, settled: 1, still_open: 3 });
    for (const invoice of limited) {
      expect(await rowOf(invoice)).toEqual({ status: "en_proceso", lease_until: null });
    }
    expect(await errorsOf(result.run_id)).toEqual([
      { kind: "invoice", document_id: limited[0]?.id, error: expect.stringMatching(/\S/) },
    ]);
  });
});

describe("what a run counts as settled", () => {
  it("not a document a transmission took over while the provider was asked: that one is left to it", async () => {
    const [invoice] = await openInvoices(1);
    whileAsking = async (id) => {
      await db.superuser(
        "update invoices set attempt_count = attempt_count + 1, lease_until = now() + interval '1 minute' where id = $1",
        [id],
      );
    };
    const result = await run();
    expect(asked).toEqual([invoice?.id]);
    expect(result).toMatchObject({ picked: 1, settled: 0 });
    expect((await rowOf(invoice as Invoice))?.status).toBe("en_proceso");
  });

  it("not a document the authority is still deciding on, which is recorded and stays open", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, {
      lines: [{ description: `Servicio ${PENDING_MARKER}`, quantity: 1, unitPrice: 100, taxRate: 19 }],
    });
    sandbox.setKnobs({ pendingPolls: 5 });
    const token = await t.token(tenant.operador);
    const sent = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token);
    expect((await sent.json()).results[0].status).toBe("en_proceso");
    const result = await run();
    expect(asked).toEqual([invoice.id]);
    expect(result).toMatchObject({ picked: 1, settled: 0, still_open: 1 });
    const [event] = await db.superuser<{ kind: string }>(
      "select kind from events where document_id = $1 order by id desc limit 1",
      [invoice.id],
    );
    expect(event?.kind).toBe("reconciled");
  });
});
