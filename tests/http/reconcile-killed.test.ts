/**
 * A reconcile run killed where the platform kills it: edge-runtime's per-worker supervisor stops a
 * worker at its wall-clock limit with requests still in flight (supabase/edge-runtime
 * crates/base/src/worker/supervisor/strategy_per_worker.rs at b1edf453: "wall clock duration
 * reached … in_flight_req_exists"), so a run may die in the middle of anything. Here the run has a
 * database client of its own, and "killed" is what the database sees when the worker dies: every
 * connection of that client cut (an open transaction rolls back) and nothing sent after.
 *
 * Whatever it was doing — asking the provider, recording an answer, about to retry a delivery —
 * nothing is lost: what it took is held only by a lease, no document is left half-recorded (an
 * answer is recorded in one transaction, or not at all), and once the leases run out the next run
 * settles everything.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { SANDBOX_URL, saveCredential } from "../../devkit/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import {
  createSandboxDeliver,
  createSandboxDocsgen,
  createSandboxProvider,
  createSandboxRouter,
} from "../../sandbox/index.ts";
import { type ReconcileOptions, reconcile } from "../../shared/core/reconcile/run.ts";
import { createPostgresDb } from "../../shared/db/postgres-transport.ts";
import { connectPostgres, type SqlClient } from "../../shared/db/sql-client.ts";
import { createLogger } from "../../shared/kernel/log.ts";
import { openTransaction } from "../support/held-transaction.ts";

const onPostgres = inject("database").kind === "postgres";
let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;
/** Runs before the provider answers a doomed run; "hang" makes the answer wait until the kill. */
let beforeAnswer: (() => Promise<void>) | "hang" | null = null;
/** The provider calls a killed run left waiting: they fail once it is dead. */
let hanging: (() => void)[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  const providers = createSandboxRouter(
    { adapterTax: createSandboxProvider(), docsgen: createSandboxDocsgen(), deliver: createSandboxDeliver() },
    { adapterTaxAtRoot: true },
  );
  t = await createTestApp(db, {
    providerFetch: async (input, init) => {
      if (beforeAnswer === "hang") {
        // the worker dies while waiting: the answer never comes
        await new Promise<void>((resolve) => hanging.push(resolve));
        throw new Error("the run was killed");
      }
      await beforeAnswer?.();
      return providers(new Request(input, init));
    },
  });
  tenant = await createTenant(db);
  await saveCredential(t.deps, tenant);
  await saveCredential(t.deps, tenant, { url: `${SANDBOX_URL}/deliver`, service: "deliver" });
});
afterAll(() => db?.close());
beforeEach(async () => {
  // each test's run sees only its own open work
  await db.superuser("update invoices set status = 'error', lease_until = null where status = 'en_proceso'");
  await db.superuser(
    "update deliveries set status = 'enviada', next_retry_at = null where status = 'pendiente' or next_retry_at is not null",
  );
  beforeAnswer = null;
  hanging = [];
});

const OPTIONS: ReconcileOptions = {
  budgetMs: 45_000,
  batchSize: 10,
  graceSeconds: 0,
  concurrency: 4,
  providerTimeoutMs: 1_000,
};

/** A run on a database client of its own, and the kill: every connection of that client cut. */
async function doomedRun(): Promise<{ appName: string; kill: () => Promise<void> }> {
  const url = new URL(db.url ?? "");
  const appName = `doomed_${crypto.randomUUID().slice(0, 8)}`;
  url.searchParams.set("application_name", appName);
  const client: SqlClient = await connectPostgres(url.toString(), { max: 2 });
  const serviceDb = createPostgresDb(client).asService();
  const running = reconcile({
    ctx: {
      serviceDb,
      providers: await t.deps.providers(serviceDb),
      documents: t.deps.documents,
      log: createLogger("silent", () => {}),
    },
    options: OPTIONS,
  }).catch((error: unknown) => error);
  const kill = async () => {
    await db.superuser(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and pid <> pg_backend_pid()",
      [appName],
    );
    await client.close();
    for (const release of hanging) release();
    await running;
  };
  return { appName, kill };
}

/** Waits until a backend of the run named `appName` waits on a lock held by backend `holder`. */
async function blockedBy(appName: string, holder: number): Promise<void> {
  await expect
    .poll(
      async () =>
        (
          await db.superuser<{ blocked: boolean }>(
            `select exists (select 1 from pg_stat_activity a
                             where a.application_name = $1 and $2::int = any (pg_blocking_pids(a.pid))) as blocked`,
            [appName, holder],
          )
        )[0]?.blocked,
      { timeout: 10_000 },
    )
    .toBe(true);
}

/** A transaction of the test's own (as the table owner) that holds locks until it ends. */
const lockHolder = async () => {
  const held = await openTransaction(db, "service_role", {});
  await held.query("reset role");
  return held;
};

/** A working run, as the next minute's would be. */
const nextRun = async () => {
  const serviceDb = t.deps.db.asService();
  return reconcile({
    ctx: {
      serviceDb,
      providers: await t.deps.providers(serviceDb),
      documents: t.deps.documents,
      log: createLogger("silent", () => {}),
    },
    options: OPTIONS,
  });
};

/** Time passes: every lease a dead run holds runs out (a lease is its only hold on anything). */
const leasesRunOut = async () => {
  await db.superuser(
    "update invoices set lease_until = now() - interval '1 second' where lease_until > now()",
  );
  await db.superuser(
    "update einv_private.reconcile_leases set until = now() - interval '1 second' where until > now()",
  );
  await db.superuser(
    "update deliveries set lease_until = now() - interval '1 second' where lease_until > now()",
  );
  await db.superuser(
    `update deliveries set next_retry_at = now() - interval '1 second'
      where status = 'error' and retried_by is null and next_retry_at > now()`,
  );
};

async function openInvoices(count: number): Promise<Invoice[]> {
  const invoices: Invoice[] = [];
  for (let i = 0; i < count; i++) {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "en_proceso" });
    await db.superuser("update invoices set claimed_at = now() - interval '1 hour' where id = $1", [
      invoice.id,
    ]);
    invoices.push(invoice);
  }
  return invoices;
}

/** What is recorded of an invoice: its status, and the reconcile events and outbox events it has. */
const recordOf = async (invoice: Invoice) =>
  (
    await db.superuser<{ status: string; reconciled: number; outbox: number }>(
      `select i.status,
              (select count(*)::int from events e where e.document_id = i.id and e.kind = 'reconciled') as reconciled,
              (select count(*)::int from einv_private.outbox o where o.document_id = i.id) as outbox
         from invoices i where i.id = $1`,
      [invoice.id],
    )
  )[0];

describe.skipIf(!onPostgres)("a reconcile run killed mid-run (its worker's wall clock ran out)", () => {
  it("while asking the provider: the documents stay open and leased, and the next run settles them", async () => {
    const invoices = await openInvoices(3);
    const before = await Promise.all(invoices.map(recordOf));
    beforeAnswer = "hang";
    const doomed = await doomedRun();
    await expect.poll(() => hanging.length).toBe(3);
    await doomed.kill();
    beforeAnswer = null;
    expect(await Promise.all(invoices.map(recordOf))).toEqual(before);
    // held by its lease until it runs out: no other run asks about them meanwhile
    expect((await nextRun()).picked).toBe(0);
    await leasesRunOut();
    const next = await nextRun();
    expect(next).toMatchObject({ picked: 3, settled: 3, still_open: 0 });
    expect(await Promise.all(invoices.map(recordOf))).toEqual(
      before.map((b) => ({ status: "error", reconciled: 1, outbox: (b?.outbox ?? 0) + 1 })),
    );
  });

  it("while recording an answer: nothing of it is written, and the next run records it once", async () => {
    const [invoice] = (await openInvoices(1)) as [Invoice];
    const before = await recordOf(invoice);
    // once the provider answered, the run's record waits on the invoice's row, held here; it dies waiting
    const held = await lockHolder();
    beforeAnswer = async () => {
      await held.query("select 1 from invoices where id = $1 for update", [invoice.id]);
    };
    const doomed = await doomedRun();
    await blockedBy(doomed.appName, held.pid);
    await doomed.kill();
    await held.end(false);
    beforeAnswer = null;
    expect(await recordOf(invoice)).toEqual(before);
    await leasesRunOut();
    expect(await nextRun()).toMatchObject({ picked: 1, settled: 1 });
    expect(await recordOf(invoice)).toEqual({
      status: "error",
      reconciled: 1,
      outbox: (before?.outbox ?? 0) + 1,
    });
  });

  it("after taking a due delivery retry but before beginning it: the retry is due again, not lost", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const [due] = await db.superuser<{ id: string }>(
      `insert into deliveries (org_id, document_type, document_id, recipient, status, message, attempt, next_retry_at)
       values ($1, 'invoice', $2, 'c@test.example', 'error', 'the provider failed', 1, now() - interval '1 second')
       returning id`,
      [invoice.orgId, invoice.id],
    );
    // the retry's begin waits on its send id's lock, held here; the run dies waiting
    const held = await lockHolder();
    await held.query("select pg_advisory_xact_lock(hashtextextended('einv_delivery_send:' || $1, 0))", [
      due?.id ?? "",
    ]);
    const doomed = await doomedRun();
    await blockedBy(doomed.appName, held.pid);
    await doomed.kill();
    await held.end(false);
    const [taken] = await db.superuser<{ status: string; retried_by: string | null }>(
      "select status, retried_by::text from deliveries where id = $1",
      [due?.id ?? ""],
    );
    expect(taken).toEqual({ status: "error", retried_by: null });
    await leasesRunOut();
    const next = await nextRun();
    expect(next.deliveries_retried).toBe(1);
    const [retried] = await db.superuser<{ retried_by: string | null }>(
      "select retried_by::text from deliveries where id = $1",
      [due?.id ?? ""],
    );
    expect(retried?.retried_by).toEqual(expect.any(String));
  });
});
