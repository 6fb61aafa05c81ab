/**
 * The reconcile function through its real app and the real database, with the sandbox provider at
 * the network edge (every request recorded: the oracle of what was asked and sent): who may run it,
 * what a run settles, what it leaves, and how overlapping runs and a time budget behave.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, TEST_RECONCILE_SECRET, type TestApp } from "../../devkit/app.ts";
import { captureResponses } from "../../devkit/capture.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import { createReconcileApp } from "../../functions/reconcile/app.ts";
import { createSandboxProvider, type SandboxProvider } from "../../sandbox/provider.ts";

const SECRET = TEST_RECONCILE_SECRET;
let db: TestDatabase;
let t: TestApp;
let reconcileApp: ReturnType<typeof createReconcileApp>;
let sandbox: SandboxProvider;
let tenant: Tenant;
let calls: { method: string; path: string }[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  sandbox = createSandboxProvider();
  const recording = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    calls.push({ method: request.method, path: new URL(request.url).pathname });
    return sandbox.fetch(request);
  };
  t = await createTestApp(db, {
    env: {
      EINV_RECONCILE_SECRET: SECRET,
      EINV_RECONCILE_GRACE_SECONDS: "0",
      EINV_RECONCILE_BUDGET_MS: "20000",
      EINV_RECONCILE_BATCH: "10",
      EINV_PROVIDER_TIMEOUT_MS: "300",
    },
    providerFetch: recording,
  });
  reconcileApp = captureResponses(createReconcileApp(t.deps));
  tenant = await createTenant(db);
  await saveCredential(t.deps, tenant);
});
afterAll(() => db?.close());
beforeEach(() => {
  sandbox.reset();
  calls = [];
});

const run = (headers: Record<string, string> = { authorization: `Bearer ${SECRET}` }, method = "POST") =>
  reconcileApp.request("/reconcile", { method, headers });
const queriesOf = (id: string) => calls.filter((c) => c.method === "GET" && c.path.endsWith(id)).length;
const statusOf = async (invoice: Invoice) =>
  (
    await db.superuser<{ status: string; last_message: string }>(
      "select status, last_message from invoices where id = $1",
      [invoice.id],
    )
  )[0];
const runs = async () =>
  (await db.superuser<{ n: number }>("select count(*)::int as n from einv_private.reconcile_runs"))[0]?.n;

/** An invoice the sandbox has: submitted through /transmit while its answer hung (outcome unknown). */
async function sentButUnknown(): Promise<Invoice> {
  const invoice = await createInvoice(db, tenant.org, tenant.company);
  sandbox.setKnobs({ hangMs: 2_000, failNext: [{ kind: "hang", reference: invoice.id }] });
  const token = await t.token(tenant.operador);
  const response = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token);
  expect((await response.json()).results[0].status).toBe("en_proceso");
  return invoice;
}

describe("who may run it", () => {
  it("answers 401 in the error shape to a missing, wrong or user's token, and does nothing", async () => {
    const before = await runs();
    const userToken = await t.token(tenant.admin);
    const attempts: Record<string, string>[] = [
      {},
      { authorization: "Bearer wrong" },
      { authorization: `Bearer ${SECRET}x` },
      { authorization: `Bearer ${userToken}` },
    ];
    for (const headers of attempts) {
      const response = await run(headers);
      expect(response.status).toBe(401);
      const body = await response.json();
      expect(body.error).toMatchObject({ code: "unauthenticated", request_id: expect.any(String) });
    }
    expect(await runs()).toBe(before);
  });

  it("answers 405 to anything but POST", async () => {
    const response = await run(undefined, "GET");
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });

  it("its secret opens nothing in einvoicing", async () => {
    const response = await t.post(
      "/transmit",
      { org_id: tenant.org.id, invoice_ids: [crypto.randomUUID()] },
      SECRET,
    );
    expect(response.status).toBe(401);
  });
});

describe("a run", () => {
  it("records what the authority decided, marks what it never received as error, and answers its counts", async () => {
    const accepted = await sentButUnknown();
    const lost = await createInvoice(db, tenant.org, tenant.company, { status: "en_proceso" });
    calls = [];
    const response = await run();
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ run_id: expect.any(String), settled: 2, deliveries_retried: 0 });
    expect(body.picked).toBeGreaterThanOrEqual(2);
    expect(body.took_ms).toBeGreaterThanOrEqual(0);
    expect(await statusOf(accepted)).toMatchObject({ status: "transmitida" });
    expect(await statusOf(lost)).toMatchObject({
      status: "error",
      last_message: expect.stringMatching(/never received.*reissue: true/),
    });
    // asked, never sent again
    expect(sandbox.submissions.filter((s) => s.reference === accepted.id)).toHaveLength(1);
    expect(calls.filter((c) => c.method === "POST")).toEqual([]);
    const [event] = await db.superuser<{ kind: string }>(
      "select kind from events where document_id = $1 order by id desc limit 1",
      [accepted.id],
    );
    expect(event?.kind).toBe("reconciled");
  });

  it("does not touch a document a live transmission claim holds", async () => {
    const held = await createInvoice(db, tenant.org, tenant.company, { status: "en_proceso" });
    await db.superuser("update invoices set lease_until = now() + interval '1 minute' where id = $1", [
      held.id,
    ]);
    await run();
    expect(queriesOf(held.id)).toBe(0);
    expect(await statusOf(held)).toMatchObject({ status: "en_proceso" });
  });

  it("leaves a document whose query times out for the next run, which settles it", async () => {
    const invoice = await sentButUnknown();
    sandbox.setKnobs({ hangMs: 2_000, failNext: [{ kind: "hang", on: "query", reference: invoice.id }] });
    const first = await (await run()).json();
    expect(await statusOf(invoice)).toMatchObject({ status: "en_proceso" });
    expect(first.still_open).toBeGreaterThanOrEqual(1);
    await run();
    expect(await statusOf(invoice)).toMatchObject({ status: "transmitida" });
  });

  it("settles credit notes too", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    await db.superuser(
      `update invoices set authority_code = encode(sha384(convert_to(id::text, 'UTF8')), 'hex') where id = $1`,
      [invoice.id],
    );
    const created = await t.deps.db.asService().call("einv_credit_note_create", {
      p_org_id: tenant.org.id,
      p_invoice_id: invoice.id,
      p_concept_code: "2",
      p_reason: "Anulación",
      p_lines: null,
      p_actor_id: tenant.operador.id,
      p_lease_seconds: 60,
      p_issued_at: new Date().toISOString(),
    });
    // the call that claimed it died: its intent is recorded, its lease is over
    await db.superuser("update credit_notes set lease_until = now() - interval '1 second' where id = $1", [
      created.document_id,
    ]);
    await run();
    const [note] = await db.superuser<{ status: string }>("select status from credit_notes where id = $1", [
      created.document_id,
    ]);
    expect(note?.status).toBe("error"); // never received: to be reissued
    expect(queriesOf(created.document_id)).toBe(1);
  });

  it("settles debit notes too", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    await db.superuser(
      `update invoices set authority_code = encode(sha384(convert_to(id::text, 'UTF8')), 'hex') where id = $1`,
      [invoice.id],
    );
    const created = await t.deps.db.asService().call("einv_debit_note_create", {
      p_org_id: tenant.org.id,
      p_invoice_id: invoice.id,
      p_concept_code: "1",
      p_reason: "Intereses de mora",
      p_lines: [{ description: "Intereses de mora", quantity: "1", unit_price: "47600" }],
      p_actor_id: tenant.operador.id,
      p_lease_seconds: 60,
      p_issued_at: new Date().toISOString(),
    });
    // the call that claimed it died: its intent is recorded, its lease is over
    await db.superuser("update debit_notes set lease_until = now() - interval '1 second' where id = $1", [
      created.document_id,
    ]);
    await run();
    const [note] = await db.superuser<{ status: string }>("select status from debit_notes where id = $1", [
      created.document_id,
    ]);
    expect(note?.status).toBe("error"); // never received: to be reissued
    expect(queriesOf(created.document_id)).toBe(1);
  });
});

describe("overlapping runs and the time budget", () => {
  it("two runs at once never ask about one document twice", async () => {
    const invoices = await Promise.all(
      Array.from({ length: 30 }, () =>
        createInvoice(db, tenant.org, tenant.company, { status: "en_proceso" }),
      ),
    );
    sandbox.setKnobs({ latencyMs: 20 });
    const [a, b] = await Promise.all([run(), run()]);
    expect([a.status, b.status]).toEqual([200, 200]);
    for (const invoice of invoices) expect(queriesOf(invoice.id)).toBeLessThanOrEqual(1);
    expect(invoices.reduce((n, i) => n + queriesOf(i.id), 0)).toBe(30);
  });

  it("a run over 500 open documents with a slow provider stops inside its budget, and the next runs finish them", async () => {
    const org = await createTenant(db);
    await saveCredential(t.deps, org);
    await db.superuser(
      `insert into invoices (org_id, company_id, number, buyer_id_number, buyer_name, status, environment,
                             attempt_count, submitted_attempt, claimed_at)
       select $1, $2, 'SETP' || (990000000 + g), '860000000', 'Cliente', 'en_proceso', 'uat', 1, 1, now() - interval '1 hour'
         from generate_series(1, 500) g`,
      [org.org.id, org.company.id],
    );
    const budgeted = captureResponses(
      createReconcileApp({
        ...t.deps,
        config: {
          ...t.deps.config,
          reconcile: { ...t.deps.config.reconcile, budgetMs: 1_500, batchSize: 25 },
        },
      }),
    );
    sandbox.setKnobs({ latencyMs: 40 });
    const call = async () =>
      (
        await budgeted.request("/reconcile", {
          method: "POST",
          headers: { authorization: `Bearer ${SECRET}` },
        })
      ).json();
    const first = await call();
    expect(first.took_ms).toBeLessThanOrEqual(1_500);
    expect(first.settled).toBeGreaterThan(0);
    expect(first.still_open).toBeGreaterThan(0);
    const open = async () =>
      (
        await db.superuser<{ n: number }>(
          "select count(*)::int as n from invoices where org_id = $1 and status = 'en_proceso'",
          [org.org.id],
        )
      )[0]?.n ?? 0;
    expect(await open()).toBe(500 - first.settled);
    let last = first;
    for (let i = 0; i < 40 && (await open()) > 0; i++) last = await call();
    expect(await open()).toBe(0);
    // what the answers call still open is every org's: it went down by these 500
    expect(first.still_open - last.still_open).toBe(500 - first.settled);
  }, 120_000);
});

describe("delivery retries", () => {
  it("retries a delivery the provider failed, under the first try's reference, with backoff, then gives up", async () => {
    const { createSandboxDeliver, createSandboxRouter, createSandboxDocsgen } = await import(
      "../../sandbox/index.ts"
    );
    const mail = createSandboxDeliver();
    const providers = createSandboxRouter({
      adapterTax: sandbox,
      docsgen: createSandboxDocsgen(),
      deliver: mail,
    });
    const app = await createTestApp(db, {
      env: { EINV_RECONCILE_SECRET: SECRET, EINV_PROVIDER_TIMEOUT_MS: "300" },
      providerFetch: providers,
    });
    const org = await createTenant(db);
    const PROVIDERS = "https://sandbox.provider.test";
    await saveCredential(app.deps, org, { url: `${PROVIDERS}/adapter-tax` });
    await saveCredential(app.deps, org, { url: `${PROVIDERS}/deliver`, service: "deliver" });
    const token = await app.token(org.operador);
    const invoice = await createInvoice(db, org.org, org.company);
    await app.post("/transmit", { org_id: org.org.id, invoice_ids: [invoice.id] }, token);

    // the provider takes the message, then fails to answer: 502, to be retried in a minute
    mail.setKnobs({ failNext: [{ kind: "malformed", on: "send" }] });
    expect((await app.post("/deliver", { org_id: org.org.id, invoice_id: invoice.id }, token)).status).toBe(
      502,
    );
    const deliveries = () =>
      db.superuser<{
        status: string;
        attempt: number;
        next_retry_at: string | null;
        retry_of: string | null;
        package_number: string;
      }>(
        "select status, attempt, next_retry_at, retry_of, package_number from deliveries where document_id = $1 order by attempt",
        [invoice.id],
      );
    const [failed] = await deliveries();
    expect(failed).toMatchObject({ status: "error", attempt: 1, next_retry_at: expect.any(Date) });
    const runIt = () =>
      captureResponses(createReconcileApp(app.deps)).request("/reconcile", {
        method: "POST",
        headers: { authorization: `Bearer ${SECRET}` },
      });
    // not due yet
    expect((await (await runIt()).json()).deliveries_retried).toBe(0);
    await db.superuser(
      "update deliveries set next_retry_at = now() - interval '1 second' where document_id = $1",
      [invoice.id],
    );
    expect((await (await runIt()).json()).deliveries_retried).toBe(1);
    // the retry resends the first try's package, under its name
    expect(await deliveries()).toMatchObject([
      { status: "error", attempt: 1, next_retry_at: null, package_number: failed?.package_number },
      { status: "enviada", attempt: 2, package_number: failed?.package_number },
    ]);
    // one e-mail: the retry went under the first try's reference, which the provider had taken
    expect(mail.messages).toHaveLength(1);
    expect((await (await runIt()).json()).deliveries_retried).toBe(0);
  });

  it("settles a delivery left pendiente past the grace period by asking the provider: one it never received fails, then is retried once", async () => {
    const { createSandboxDeliver, createSandboxRouter, createSandboxDocsgen } = await import(
      "../../sandbox/index.ts"
    );
    const mail = createSandboxDeliver();
    const providers = createSandboxRouter({
      adapterTax: sandbox,
      docsgen: createSandboxDocsgen(),
      deliver: mail,
    });
    const appWith = (grace: string) =>
      createTestApp(db, {
        env: {
          EINV_RECONCILE_SECRET: SECRET,
          EINV_PROVIDER_TIMEOUT_MS: "300",
          EINV_RECONCILE_GRACE_SECONDS: grace,
        },
        providerFetch: providers,
      });
    const [patient, eager] = [await appWith("120"), await appWith("0")];
    const org = await createTenant(db);
    const PROVIDERS = "https://sandbox.provider.test";
    await saveCredential(eager.deps, org, { url: `${PROVIDERS}/adapter-tax` });
    await saveCredential(eager.deps, org, { url: `${PROVIDERS}/deliver`, service: "deliver" });
    const invoice = await createInvoice(db, org.org, org.company);
    await eager.post(
      "/transmit",
      { org_id: org.org.id, invoice_ids: [invoice.id] },
      await eager.token(org.operador),
    );
    // a delivery begun by a function that died before the message left
    const [open] = await db.superuser<{ id: string; send_id: string }>(
      `insert into deliveries (org_id, document_type, document_id, recipient) values ($1, 'invoice', $2, 'cliente@test.example')
       returning id, coalesce(send_id, id) as send_id`,
      [org.org.id, invoice.id],
    );
    const runOn = (app: TestApp) =>
      captureResponses(createReconcileApp(app.deps)).request("/reconcile", {
        method: "POST",
        headers: { authorization: `Bearer ${SECRET}` },
      });
    const deliveries = () =>
      db.superuser<{ status: string; attempt: number; message: string | null; next_retry_at: Date | null }>(
        "select status, attempt, message, next_retry_at from deliveries where document_id = $1 order by attempt",
        [invoice.id],
      );

    // within the grace period it is left alone
    expect((await runOn(patient)).status).toBe(200);
    expect(mail.queries).toHaveLength(0);
    expect(await deliveries()).toMatchObject([{ status: "pendiente" }]);

    expect((await runOn(eager)).status).toBe(200);
    expect(mail.queries).toMatchObject([{ reference: open?.send_id, found: false }]);
    expect(mail.received).toHaveLength(0);
    const [failed] = await deliveries();
    expect(failed).toMatchObject({ status: "error", attempt: 1, next_retry_at: expect.any(Date) });
    expect(failed?.message).toMatch(/never received/);

    await db.superuser("update deliveries set next_retry_at = now() - interval '1 second' where id = $1", [
      open?.id ?? "",
    ]);
    expect((await (await runOn(eager)).json()).deliveries_retried).toBe(1);
    expect(await deliveries()).toMatchObject([{ status: "error" }, { status: "enviada", attempt: 2 }]);
    expect(mail.messages.map((m) => m.reference)).toEqual([open?.send_id]);
  });

  it("gives a delivery up, saying why, after its 5th attempt", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const [row] = await db.superuser<{ id: string }>(
      `insert into deliveries (org_id, document_type, document_id, recipient, status, message, attempt)
       values ($1, 'invoice', $2, 'x@test.example', 'error', 'the provider failed', 5) returning id`,
      [tenant.org.id, invoice.id],
    );
    const result = await t.deps.db.asService().call("einv_delivery_retry_later", {
      p_org_id: tenant.org.id,
      p_delivery_id: row?.id ?? "",
      p_send_id: row?.id ?? "",
    });
    expect(result).toEqual({
      next_retry_at: null,
      gave_up_reason: "gave up after 5 attempts: the provider failed",
    });
  });

  it("schedules no second retry of a delivery already retried: a late failure recorded on it changes nothing", async () => {
    // reconcile found it never received and opened its retry; the first call's failure lands after
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const [first] = await db.superuser<{ id: string }>(
      `insert into deliveries (org_id, document_type, document_id, recipient, status, message)
       values ($1, 'invoice', $2, 'x@test.example', 'error', 'never received') returning id`,
      [tenant.org.id, invoice.id],
    );
    const [retry] = await db.superuser<{ id: string }>(
      `insert into deliveries (org_id, document_type, document_id, recipient, status, attempt, retry_of)
       values ($1, 'invoice', $2, 'x@test.example', 'pendiente', 2, $3) returning id`,
      [tenant.org.id, invoice.id, first?.id ?? ""],
    );
    await db.superuser("update deliveries set retried_by = $2 where id = $1", [
      first?.id ?? "",
      retry?.id ?? "",
    ]);
    const result = await t.deps.db.asService().call("einv_delivery_retry_later", {
      p_org_id: tenant.org.id,
      p_delivery_id: first?.id ?? "",
      p_send_id: first?.id ?? "",
    });
    expect(result).toBeNull();
    const rows = await db.superuser<{ id: string; next_retry_at: Date | null }>(
      "select id, next_retry_at from deliveries where document_id = $1 order by attempt",
      [invoice.id],
    );
    expect(rows).toEqual([
      { id: first?.id, next_retry_at: null },
      { id: retry?.id, next_retry_at: null },
    ]);
  });
});
