/**
 * One reconcile run (shared/core/reconcile/run.ts) against the real database, with the sandbox
 * provider at the network edge and a clock the test moves: each provider request takes
 * `providerTakes` milliseconds of it. What a run leases, when it stops asking, which provider it
 * slows down, what it counts as settled, what it does with what it cannot ask about or record, and
 * how it settles the deliveries left open.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { SANDBOX_URL, saveCredential } from "../../devkit/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import {
  BOUNCE_DOMAIN,
  createSandboxDeliver,
  createSandboxDocsgen,
  createSandboxProvider,
  createSandboxRouter,
  type SandboxDeliver,
  type SandboxProvider,
} from "../../sandbox/index.ts";
import { PENDING_MARKER } from "../../sandbox/rules.ts";
import { type ReconcileOptions, reconcile } from "../../shared/core/reconcile/run.ts";
import { createLogger } from "../../shared/kernel/log.ts";

let db: TestDatabase;
let t: TestApp;
let sandbox: SandboxProvider;
let mail: SandboxDeliver;
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
  mail = createSandboxDeliver();
  const providers = createSandboxRouter(
    { adapterTax: sandbox, docsgen: createSandboxDocsgen(), deliver: mail },
    { adapterTaxAtRoot: true },
  );
  t = await createTestApp(db, {
    providerFetch: async (input, init) => {
      const request = new Request(input, init);
      const id = new URL(request.url).pathname.split("/").pop() ?? "";
      if (request.method === "GET") {
        asked.push(id);
        await whileAsking(id);
      }
      clock += providerTakes;
      return providers(request);
    },
  });
  tenant = await createTenant(db);
  await saveCredential(t.deps, tenant);
  await saveCredential(t.deps, tenant, { url: `${SANDBOX_URL}/deliver`, service: "deliver" });
});
afterAll(() => db?.close());
beforeEach(async () => {
  // every run picks whatever is open in the database: nothing is left open by another test
  await db.superuser("update invoices set status = 'error', lease_until = null where status = 'en_proceso'");
  await db.superuser(
    "update deliveries set lease_until = now() + interval '1 day', next_retry_at = null where status = 'pendiente' or next_retry_at is not null",
  );
  sandbox.reset();
  mail.reset();
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

/**
 * A run; with `webhookTimeoutMs`, one that also sends the webhook messages due, as the function's
 * does, each within that timeout.
 */
async function run(options: Partial<ReconcileOptions> = {}, { webhookTimeoutMs = 0 } = {}) {
  const serviceDb = t.deps.db.asService();
  const { config } = t.deps;
  return reconcile({
    ctx: {
      serviceDb,
      providers: await t.deps.providers(serviceDb),
      documents: t.deps.documents,
      log: createLogger("debug", (line) => logs.push(line)),
      now: () => clock,
      ...(webhookTimeoutMs
        ? {
            webhooks: {
              secretBox: t.deps.secretBox,
              egress: t.deps.egress,
              allowPrivateUrls: config.providers.allowPrivateUrls,
              timeoutMs: webhookTimeoutMs,
              concurrency: config.webhooks.concurrency,
            },
          }
        : {}),
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
    whileAsking = async (id) => {
      const [row] = await db.superuser<{ s: number }>(
        "select extract(epoch from lease_until - now())::float8 as s from invoices where id = $1",
        [id],
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
    // 13 s budget, 3 s timeout, a query may make two calls (6 s), each answer takes 3.5 s: asked at
    // 0, 3.5 and 7 s (7 + 6 = the deadline)
    providerTakes = 3_500;
    const result = await run({ budgetMs: 13_000, providerTimeoutMs: 3_000 });
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
    // batches of one, each answer takes 4 s of a 12 s budget, 2 s timeout (4 s for a query's two
    // calls): picked at 0, 4 and 8 s
    providerTakes = 4_000;
    const result = await run({ budgetMs: 12_000, providerTimeoutMs: 2_000, batchSize: 1 });
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

describe("a provider that fails otherwise", () => {
  it("is still asked about its next documents", async () => {
    const invoices = await openInvoices(3);
    sandbox.setKnobs({ failNext: [{ kind: "error", on: "query", reference: invoices[0]?.id }] });
    const result = await run();
    expect(asked).toEqual(invoices.map((i) => i.id));
    expect(result).toMatchObject({ picked: 3, settled: 2 });
  });
});

describe("a document the service cannot ask about", () => {
  it("is given back and recorded with the reason, not logged as an internal error, and the run goes on", async () => {
    const unconfigured = await createTenant(db); // no adapter-tax credential
    const [stuck] = await openInvoices(1, unconfigured);
    const [next] = await openInvoices(1);
    const result = await run();
    expect(asked).toEqual([next?.id]);
    expect(result).toMatchObject({ picked: 2, settled: 1, still_open: 1 });
    expect(await rowOf(stuck as Invoice)).toEqual({ status: "en_proceso", lease_until: null });
    const [error] = (await errorsOf(result.run_id)) ?? [];
    expect(error).toMatchObject({ kind: "invoice", document_id: stuck?.id });
    expect(error?.error).toMatch(/credential/i);
    expect(logs.filter((l) => l.includes("reconcile could not settle a document"))).toEqual([]);
  });

  it("nor is an open delivery of a company without a deliver credential", async () => {
    const unconfigured = await createTenant(db);
    const invoice = await createInvoice(db, unconfigured.org, unconfigured.company, {
      status: "transmitida",
    });
    const [open] = await db.superuser<{ id: string }>(
      "insert into deliveries (org_id, document_type, document_id, recipient) values ($1, 'invoice', $2, 'c@test.example') returning id",
      [invoice.orgId, invoice.id],
    );
    const result = await run();
    expect(mail.queries).toHaveLength(0);
    const [status] = await db.superuser<{ status: string }>("select status from deliveries where id = $1", [
      open?.id ?? "",
    ]);
    expect(status?.status).toBe("pendiente");
    const [error] = (await errorsOf(result.run_id)) ?? [];
    expect(error).toMatchObject({ kind: "delivery", document_id: invoice.id });
    expect(error?.error).toMatch(/credential/i);
    expect(logs.filter((l) => l.includes("reconcile could not settle a delivery"))).toEqual([]);
  });
});

describe("an answer the database refuses to record", () => {
  it("is logged and counted as an internal error, and the rest of the batch is still settled", async () => {
    const [refused, next] = (await openInvoices(2)) as [Invoice, Invoice];
    // any failure of the write: here a trigger refusing this one invoice's change of status
    await db.superuser(
      "create function public.refuse_write() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$",
    );
    await db.superuser(
      `create trigger refuse_write before update on public.invoices for each row
         when (new.id = '${refused.id}' and new.status is distinct from old.status)
         execute function public.refuse_write()`,
    );
    try {
      const result = await run({ batchSize: 2 });
      expect(asked).toEqual([refused.id, next.id]);
      expect(result).toMatchObject({ picked: 2, settled: 1 });
      expect(await errorsOf(result.run_id)).toEqual([
        { kind: "invoice", document_id: refused.id, error: "internal error" },
      ]);
      expect(logs.filter((l) => l.includes("reconcile could not settle a document"))).toEqual([
        expect.stringContaining(`"document_id":"${refused.id}"`),
      ]);
      expect((await rowOf(refused))?.status).toBe("en_proceso");
      expect((await rowOf(next))?.status).not.toBe("en_proceso");
    } finally {
      await db.superuser("drop trigger refuse_write on public.invoices");
      await db.superuser("drop function public.refuse_write()");
    }
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

describe("deliveries", () => {
  /** A delivery of `invoice`: left `pendiente` (its outcome never recorded), or failed and due for a retry. */
  const delivery = async (invoice: Invoice, state: "open" | "due") =>
    (
      await db.superuser<{ id: string }>(
        state === "open"
          ? "insert into deliveries (org_id, document_type, document_id, recipient) values ($1, 'invoice', $2, 'c@test.example') returning id"
          : `insert into deliveries (org_id, document_type, document_id, recipient, status, message, attempt, next_retry_at)
             values ($1, 'invoice', $2, 'c@test.example', 'error', 'the provider failed', 1, now() - interval '1 second')
             returning id`,
        [invoice.orgId, invoice.id],
      )
    )[0]?.id ?? "";
  const sent = () => createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
  const statusOfDelivery = async (id: string) =>
    (await db.superuser<{ status: string }>("select status from deliveries where id = $1", [id]))[0]?.status;

  it("asks about open ones batch after batch, and logs how many it settled", async () => {
    const ids = [await delivery(await sent(), "open"), await delivery(await sent(), "open")];
    await run({ batchSize: 1 });
    expect(mail.queries).toHaveLength(2);
    for (const id of ids) expect(await statusOfDelivery(id)).toBe("error"); // never received: retried later
    expect(logs.filter((l) => l.includes("reconcile settled open deliveries"))).toEqual([
      expect.stringContaining('"count":2'),
    ]);
  });

  it.each([
    ["sent", "cliente@test.example", "enviada"],
    ["rejected", `nadie@${BOUNCE_DOMAIN}`, "error"],
  ])(
    "records an open one the provider did receive (%s) as the provider says, sending nothing again",
    async (_, to, status) => {
      const invoice = await createInvoice(db, tenant.org, tenant.company);
      const token = await t.token(tenant.operador);
      const body = { org_id: tenant.org.id, invoice_ids: [invoice.id] };
      expect((await (await t.post("/transmit", body, token)).json()).results[0].status).toBe("transmitida");
      const delivered = await t.post(
        "/deliver",
        { org_id: tenant.org.id, invoice_id: invoice.id, to },
        token,
      );
      expect((await delivered.json()).status).toBe(status);
      // the provider took the message, but the function died before recording its answer
      const [before] = await db.superuser<{ id: string; send_id: string; provider_reference: string }>(
        `select id, coalesce(send_id, id) as send_id, provider_reference from deliveries where document_type = 'invoice' and document_id = $1`,
        [invoice.id],
      );
      await db.superuser(
        "update deliveries set status = 'pendiente', message = null, provider_reference = null, lease_until = null where id = $1",
        [before?.id ?? ""],
      );
      const result = await run();
      expect(mail.queries).toEqual([expect.objectContaining({ reference: before?.send_id, found: true })]);
      expect(mail.received).toHaveLength(1); // the first send only
      expect(result.deliveries_retried).toBe(0);
      const after = await db.superuser<{
        status: string;
        provider_reference: string;
        next_retry_at: Date | null;
      }>(
        "select status, provider_reference, next_retry_at from deliveries where document_type = 'invoice' and document_id = $1",
        [invoice.id],
      );
      expect(after).toEqual([
        { status, provider_reference: before?.provider_reference, next_retry_at: null },
      ]);
      expect(logs.filter((l) => l.includes("reconcile settled open deliveries"))).toEqual([
        expect.stringContaining('"count":1'),
      ]);
    },
  );

  it("leaves an open one it cannot ask about open, recording and logging why", async () => {
    const unsent = await createInvoice(db, tenant.org, tenant.company);
    const id = await delivery(unsent, "open");
    const result = await run();
    expect(await statusOfDelivery(id)).toBe("pendiente");
    expect(await errorsOf(result.run_id)).toEqual([
      { kind: "delivery", document_id: unsent.id, error: "internal error" },
    ]);
    expect(logs.filter((l) => l.includes("reconcile could not settle a delivery"))).toEqual([
      expect.stringMatching(new RegExp(`"delivery_id":"${id}".*without an environment`)),
    ]);
    expect(logs.filter((l) => l.includes("reconcile settled open deliveries"))).toEqual([]);
  });

  it("leaves an open one whose provider fails open, recording the provider's error without logging it as internal", async () => {
    const invoice = await sent();
    const id = await delivery(invoice, "open");
    mail.setKnobs({ failNext: [{ kind: "error", on: "query" }] });
    const result = await run();
    expect(mail.queries).toHaveLength(0);
    expect(await statusOfDelivery(id)).toBe("pendiente");
    const [error] = (await errorsOf(result.run_id)) ?? [];
    expect(error).toMatchObject({ kind: "delivery", document_id: invoice.id });
    expect(error?.error).not.toBe("internal error");
    expect(logs.filter((l) => l.includes("reconcile could not settle a delivery"))).toEqual([]);
  });

  it("asks about open ones only while an answer can come before the deadline", async () => {
    const id = await delivery(await sent(), "open");
    await run({ budgetMs: 999, providerTimeoutMs: 1_000 });
    expect(await statusOfDelivery(id)).toBe("pendiente");
    await run({ budgetMs: 1_000, providerTimeoutMs: 1_000 });
    expect(await statusOfDelivery(id)).toBe("error");
  });

  it("asks about each open one of a batch only if its answer can still come before the deadline", async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await delivery(await sent(), "open"));
    // one batch of three, asked one at a time, each answer taking 4 s of a 10 s budget with a 3 s
    // timeout: asked at 0 and 4 s; at 8 s an answer could come only after the deadline
    providerTakes = 4_000;
    const result = await run({ budgetMs: 10_000, providerTimeoutMs: 3_000 });
    expect(asked).toHaveLength(2);
    expect(result.took_ms).toBe(8_000);
    expect(await Promise.all(ids.map(statusOfDelivery))).toEqual(["error", "error", "pendiente"]);
  });

  it("starts each due retry of a batch only if all its steps can still end before the deadline", async () => {
    const invoices = [await sent(), await sent()];
    for (const invoice of invoices) await delivery(invoice, "due");
    // a retry may take seven steps of 1 s (deliveryLeaseSeconds); the first one's calls take the clock
    // past the point where a second one could end in time
    providerTakes = 1_500;
    const result = await run({ budgetMs: 8_000, providerTimeoutMs: 1_000 });
    expect(result.deliveries_retried).toBe(1);
  });

  it("schedules a due retry again when it fails before it begins (no deliver credential), instead of losing it", async () => {
    const other = await createTenant(db);
    await saveCredential(t.deps, other); // adapter-tax only: the deliver channel cannot be had
    const invoice = await createInvoice(db, other.org, other.company, { status: "transmitida" });
    const id = await delivery(invoice, "due");
    const result = await run();
    expect(result.deliveries_retried).toBe(1);
    expect(await errorsOf(result.run_id)).toEqual([
      { kind: "delivery", document_id: invoice.id, error: expect.stringMatching(/no deliver credential/) },
    ]);
    const rows = await db.superuser<{ id: string; next_retry_at: Date | null; retried_by: string | null }>(
      "select id, next_retry_at, retried_by from deliveries where document_id = $1",
      [invoice.id],
    );
    // still the one failed delivery, due again after its backoff: a later run retries it
    expect(rows).toEqual([{ id, next_retry_at: expect.any(Date), retried_by: null }]);
  });

  it("starts a due retry only when all its provider steps can end before the deadline", async () => {
    const invoices = [await sent(), await sent()];
    for (const invoice of invoices) await delivery(invoice, "due");
    const short = await run({ budgetMs: 6_999, providerTimeoutMs: 1_000 });
    expect(short.deliveries_retried).toBe(0);
    const enough = await run({ budgetMs: 7_000, providerTimeoutMs: 1_000, batchSize: 1 });
    expect(enough.deliveries_retried).toBe(2);
    // these invoices never reached the provider, whose AttachedDocument the retry needs: each says so
    expect(await errorsOf(enough.run_id)).toEqual(
      invoices.map((invoice) => ({
        kind: "delivery",
        document_id: invoice.id,
        error: expect.stringContaining("AttachedDocument"),
      })),
    );
  });
});

describe("the webhook messages a run sends", () => {
  it("are taken in batches the drain accepts, whatever the run's own batch size (up to its 500)", async () => {
    for (const batchSize of [1, 125, 126, 500]) {
      // the shortest timeout the config allows: a minute of budget would fit thousands of messages
      const result = await run({ budgetMs: 60_000, batchSize }, { webhookTimeoutMs: 100 });
      expect(result).toMatchObject({ webhooks_delivered: 0, webhooks_failed: 0 });
      expect(await errorsOf(result.run_id)).toEqual([]);
    }
  });
});
