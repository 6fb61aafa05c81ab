/**
 * The fault matrix: every step that talks to the tax or deliver provider — /transmit,
 * /credit-notes and /debit-notes and their reissue, /deliver, /credit-notes/deliver and a reconcile run — under
 * every fault at every
 * moment: before the provider call (the database down, the connection refused), during it (a
 * timeout, a connection reset after the request went out, a 5xx, a 429 with Retry-After, a
 * malformed answer), and after the provider accepted but before the outcome is recorded (the
 * database down, the storage down). For each it asserts, with the sandbox's own logs as the oracle:
 *
 * - never twice: the provider processed the document (or the e-mail) at most once, at every moment;
 * - never lost: a document the provider holds is never back to an editable draft or an unsent
 *   error in our database (it stays `en_proceso` or is accepted), and nothing the caller asked for
 *   silently disappears;
 * - settled later: the documented next step — /refresh, a reissue, a reconcile run, or a retry
 *   under the same Idempotency-Key — brings it to the accepted state with exactly one submission,
 *   and our record of it matches the provider's (reference and authority code).
 *
 * Real components only: the app is the real composition root on this file's PostgreSQL database,
 * and the providers are the sandbox served over real HTTP on loopback (sandbox/server.ts); its
 * `failNext` knobs inject timeouts, 5xx, 429 and malformed answers. What the sandbox cannot do is
 * done by the network edge between the two (the `providerFetch` the app is given): refuse a
 * connection (throw before forwarding), reset one after the provider processed the request (forward,
 * then throw), and take the database or the storage down the moment the provider's answer arrives.
 *
 * "Database down" is the real server refusing us: `alter database … allow_connections false` and
 * `pg_terminate_backend` on every connection to this file's database, from an admin connection to
 * the cluster; postgres.js then fails every query (its reconnect is refused) until the test allows
 * connections again. Killing backends alone would not do: the pool reconnects at once. A failing
 * Db double would be a mock of our own module. "Storage down" is the folder store's bucket
 * directory replaced by a file, so every read and write fails (ENOTDIR) even for root.
 *
 * And every status change any of it commits is announced exactly once: a witness of the test's own
 * (tests/support/event-witness.ts) records every committed row version, and after each case the
 * outbox must hold one event per change it saw, in order, and nothing for a change that rolled
 * back; the tenant's webhook endpoint (a receiver at the same edge) must have been sent every one of
 * them, in order per document, once the messages left waiting are drained.
 *
 * Where a step's settling needs time to pass (a dead call's claim lease, a stuck Idempotency-Key's
 * 10-minute lease), the test moves that lease into the past instead of waiting: the same as the
 * clock running on, and said so where it happens. Needs the real PostgreSQL server (CI has it).
 */
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { createTestApp, TEST_RECONCILE_SECRET, type TestApp } from "../../devkit/app.ts";
import { captureResponses } from "../../devkit/capture.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import { createWebhookEndpoint, createWebhookReceiver } from "../../devkit/webhooks.ts";
import { createReconcileApp } from "../../functions/reconcile/app.ts";
import { createSandboxDeliver, createSandboxDocsgen, createSandboxProvider } from "../../sandbox/index.ts";
import { type RunningSandbox, startSandboxServer } from "../../sandbox/server.ts";
import { connectPostgres, type SqlClient } from "../../shared/db/sql-client.ts";
import { drainWebhooks } from "../../shared/events/drain.ts";
import { createLogger } from "../../shared/kernel/log.ts";
import { type DatabaseSwitch, databaseSwitch } from "../support/database-switch.ts";
import {
  expectEveryEventReceived,
  expectOneEventPerChange,
  installWitness,
  lastEventId,
} from "../support/event-witness.ts";

const target = inject("database");
const PROVIDERS = "https://sandbox.provider.test";
/** The tenant's webhook endpoint, a receiver at the same edge. */
const HOOKS = "https://hooks.fault-matrix.test";
const receiver = createWebhookReceiver();
/** The events before the endpoint was made (the credentials' saves): not sent to it. */
let eventsBeforeEndpoint = 0;
/** How the app's own connections are named, so that only they are cut. */
const APP_CONNECTIONS = "fault-matrix-app";

type Step = "transmit" | "note" | "note_reissue" | "deliver" | "reconcile";
type Fault =
  | "db_down_before"
  | "refused"
  | "timeout"
  | "reset"
  | "5xx"
  | "429"
  | "malformed"
  | "db_down_after"
  | "storage_down_after";

/**
 * The table: each step × each fault that can hit it, and the first answer the caller gets (HTTP
 * status, and for a 200 the document's status in it). Storage is only touched by /deliver (the
 * AttachedDocument and the PDF); a transmission never reads or writes it.
 */
const MATRIX: Record<Step, Partial<Record<Fault, string>>> = {
  transmit: {
    db_down_before: "503",
    refused: "200 en_proceso",
    timeout: "200 en_proceso",
    reset: "200 en_proceso",
    "5xx": "200 en_proceso",
    "429": "200 transmitida",
    malformed: "200 en_proceso",
    db_down_after: "200 en_proceso",
  },
  note: {
    db_down_before: "503",
    refused: "200 en_proceso",
    timeout: "200 en_proceso",
    reset: "200 en_proceso",
    "5xx": "200 en_proceso",
    "429": "200 emitida",
    malformed: "200 en_proceso",
    db_down_after: "200 en_proceso",
  },
  note_reissue: {
    db_down_before: "503",
    refused: "200 en_proceso",
    timeout: "200 en_proceso",
    reset: "200 en_proceso",
    "5xx": "200 en_proceso",
    "429": "200 emitida",
    malformed: "200 en_proceso",
    db_down_after: "200 en_proceso",
  },
  deliver: {
    db_down_before: "503",
    refused: "502",
    timeout: "504",
    reset: "502",
    "5xx": "502",
    "429": "429",
    malformed: "502",
    db_down_after: "503",
    storage_down_after: "503",
  },
  reconcile: {
    db_down_before: "503",
    refused: "200",
    timeout: "200",
    reset: "200",
    "5xx": "200",
    "429": "200",
    malformed: "200",
    db_down_after: "503",
  },
};

let db: TestDatabase;
let database: DatabaseSwitch;
let sandbox: RunningSandbox;
let t: TestApp;
let tenant: Tenant;

/** An app over `client`, its reconcile function, and a token its verifier accepts. */
interface AppUnderTest {
  t: TestApp;
  reconcile: ReturnType<typeof createReconcileApp>;
  token: () => Promise<string>;
}
async function appOn(client: SqlClient): Promise<AppUnderTest> {
  const app = await createTestApp(
    { ...db, client },
    {
      env: {
        EINV_PROVIDER_TIMEOUT_MS: "400",
        EINV_RECONCILE_SECRET: TEST_RECONCILE_SECRET,
        EINV_RECONCILE_GRACE_SECONDS: "0",
        EINV_RECONCILE_BUDGET_MS: "20000",
        EINV_RECONCILE_BATCH: "10",
      },
      providerFetch: edge,
    },
  );
  return {
    t: app,
    reconcile: captureResponses(createReconcileApp(app.deps)),
    token: () => app.token(tenant.operador),
  };
}
/** The app the test's own steps use; its connections are never cut. */
let shared: AppUnderTest;
/** The app the faulted call goes to: `shared`, or for a database fault one on connections of its own. */
let current: AppUnderTest;

/** What the network edge does to the next provider request that `matches` (once). */
interface EdgeFault {
  matches: (request: Request) => boolean;
  /**
   * before: instead of forwarding, then the connection fails; instead: answered by the edge, not
   * forwarded; after: once the provider answered, before the app sees the answer.
   */
  when: "before" | "instead" | "after";
  act: () => Promise<Response | undefined> | Promise<void> | Response | undefined | void;
}
let edgeFault: EdgeFault | undefined;

const connectionError = (code: string) =>
  new TypeError("fetch failed", { cause: Object.assign(new Error(`read ${code}`), { code }) });

/** The app's provider fetch: the sandbox over loopback HTTP, with the faults above applied. */
async function edge(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const url = new URL(request.url);
  if (url.origin === HOOKS) return receiver.fetch(request);
  if (url.origin !== PROVIDERS) throw new Error(`unexpected provider host ${url.origin}`);
  const fault = edgeFault?.matches(request) ? edgeFault : undefined;
  if (fault) edgeFault = undefined;
  if (fault?.when === "before") {
    await fault.act();
    throw connectionError("ECONNREFUSED");
  }
  if (fault?.when === "instead") {
    const answer = await fault.act();
    if (answer) return answer;
  }
  const body = request.method === "GET" ? undefined : await request.arrayBuffer();
  const response = await fetch(`${sandbox.url}${url.pathname}${url.search}`, {
    method: request.method,
    headers: request.headers,
    body,
    signal: request.signal,
    redirect: "manual",
  });
  if (fault?.when === "after") {
    // the provider has processed it and answered; read the answer so it is complete, then fail
    const bytes = await response.arrayBuffer();
    await fault.act();
    return new Response(bytes, { status: response.status, headers: response.headers });
  }
  return response;
}

const databaseDown = () => database.down();
const databaseUp = () => database.up();

/** The bucket's folder in the app's filesystem store. */
const bucketDir = () => dirname(t.documents.file("x"));
let storageIsDown = false;
async function storageDown(): Promise<void> {
  storageIsDown = true;
  await mkdir(bucketDir(), { recursive: true });
  await rename(bucketDir(), `${bucketDir()}.up`);
  await writeFile(bucketDir(), "storage is down");
}
async function storageUp(): Promise<void> {
  if (!storageIsDown) return;
  storageIsDown = false;
  await rm(bucketDir(), { force: true });
  await rename(`${bucketDir()}.up`, bucketDir());
}

const onPostgres = target.kind === "postgres";

beforeAll(async () => {
  if (!onPostgres) return;
  db = await createTestDatabase();
  await installWitness(db);
  database = databaseSwitch(db, target.adminUrl, APP_CONNECTIONS);
  // hung answers are held past the app's provider timeout, and released when it hangs up
  const knobs = { knobs: { hangMs: 3_000 } };
  sandbox = await startSandboxServer(createSandboxProvider(knobs), {
    port: 0,
    docsgen: createSandboxDocsgen(knobs),
    deliver: createSandboxDeliver(knobs),
  });
  shared = await appOn(db.client);
  t = shared.t;
  tenant = await createTenant(db);
  await saveCredential(t.deps, tenant, { url: `${PROVIDERS}/adapter-tax` });
  await saveCredential(t.deps, tenant, { url: `${PROVIDERS}/deliver`, service: "deliver" });
  await createWebhookEndpoint(db, t.deps.secretBox, tenant.org.id, `${HOOKS}/in`);
  eventsBeforeEndpoint = await lastEventId(db, tenant.org.id);
  current = shared;
});
afterAll(async () => {
  if (!onPostgres) return;
  await database?.close();
  await sandbox?.close();
  await db?.close();
});
beforeEach(() => {
  edgeFault = undefined;
  sandbox?.provider.reset();
  sandbox?.deliver.reset();
});
afterEach(async () => {
  if (!onPostgres) return;
  await expectOneEventPerChange(db, tenant.org.id);
  // what a request's drain left (it ran on a pool that was cut, or the clock has to run on): sent now
  await t.deps.background.idle();
  for (let round = 0; round < 3; round++) {
    await db.superuser(
      "update einv_private.webhook_deliveries set next_attempt_at = now() where state = 'pending'",
    );
    await drainWebhooks(
      {
        serviceDb: t.deps.db.asService(),
        secretBox: t.deps.secretBox,
        egress: t.deps.egress,
        allowPrivateUrls: false,
        timeoutMs: 2_000,
        concurrency: 4,
        log: createLogger("silent"),
      },
      { orgId: tenant.org.id, batchSize: 50, budgetMs: 10_000 },
    );
  }
  await expectEveryEventReceived(db, tenant.org.id, receiver.received, eventsBeforeEndpoint);
});

// ─── the oracle ──────────────────────────────────────────────────────────────────────────────────
const submissionsOf = (id: string) => sandbox.provider.submissions.filter((s) => s.reference === id);
/** A delivered document: its id and number (the subject names it), and the route that delivers it. */
interface Delivered {
  id: string;
  number: string;
  route: "/deliver" | "/credit-notes/deliver";
  idField: "invoice_id" | "credit_note_id";
}
const sentMessagesFor = (document: Pick<Delivered, "number">) =>
  sandbox.deliver.messages.filter((m) => m.subject.split(";")[2] === document.number && m.status === "sent");

type Table = "invoices" | "credit_notes" | "debit_notes";

/** A kind of note of an invoice: its routes, table, id field, and a body that creates one. */
interface NoteKind {
  route: "/credit-notes" | "/debit-notes";
  table: "credit_notes" | "debit_notes";
  idField: "credit_note_id" | "debit_note_id";
  body: Record<string, unknown>;
}
const NOTE_KINDS: readonly NoteKind[] = [
  {
    route: "/credit-notes",
    table: "credit_notes",
    idField: "credit_note_id",
    body: { concept_code: "2", reason: "Anulación por error en el precio" },
  },
  {
    route: "/debit-notes",
    table: "debit_notes",
    idField: "debit_note_id",
    body: {
      concept_code: "1",
      reason: "Intereses de mora",
      lines: [{ description: "Intereses de mora", quantity: "1", unit_price: "47600" }],
    },
  },
];
async function fiscal(table: Table, id: string) {
  const [row] = await db.superuser<{
    status: string;
    submitted_attempt: number | null;
    provider_reference: string | null;
    authority_code: string | null;
  }>(`select status, submitted_attempt, provider_reference, authority_code from ${table} where id = $1`, [
    id,
  ]);
  return row;
}

/** Never twice, never lost: what must hold at every moment, whatever the fault. */
async function assertInvariants(table: Table, id: string): Promise<void> {
  const submissions = submissionsOf(id);
  expect(submissions.length).toBeLessThanOrEqual(1);
  // and never offered again once the provider held it: a later submit may only be a retry under
  // the same key (which the provider answers from its store), never a new attempt it would have to
  // recognise as a duplicate — a real provider might not
  const received = sandbox.provider.received.filter((r) => r.reference === id);
  const first = received.findIndex((r) => r.result === "processed");
  if (first >= 0) {
    const afterwards = received.slice(first + 1).map((r) => r.idempotency_key);
    expect(afterwards.filter((key) => key !== received[first]?.idempotency_key)).toEqual([]);
  }
  const row = await fiscal(table, id);
  expect(row).toBeDefined();
  if (submissions.length === 1) {
    // the provider holds it: our side must not treat it as unsent (an editable draft, an error
    // that a reissue would send blind) — it is in progress or accepted
    expect(["en_proceso", table === "invoices" ? "transmitida" : "emitida"]).toContain(row?.status);
    expect(row?.submitted_attempt).not.toBeNull();
  }
}

/** The settled end: accepted once by the provider, recorded as the provider has it. */
async function assertSettled(table: Table, id: string): Promise<void> {
  const submissions = submissionsOf(id);
  expect(submissions).toHaveLength(1);
  const outcome = sandbox.provider.documents.get(id);
  expect(outcome?.status).toBe("accepted");
  expect(await fiscal(table, id)).toMatchObject({
    status: table === "invoices" ? "transmitida" : "emitida",
    provider_reference: submissions[0]?.provider_reference,
    authority_code: outcome?.status === "accepted" ? outcome.authority_code : "?",
  });
}

/** A claim left by a call that died (or could not record) holds until its lease ends: end it now. */
const leaseRunsOut = (table: Table, id: string) =>
  db.superuser(
    `update ${table} set lease_until = now() - interval '1 second' where id = $1 and lease_until > now()`,
    [id],
  );

/** A later reissue settles a note: up to three rounds, each after the last claim's lease. */
async function reissueUntilSettled(kind: NoteKind, id: string): Promise<void> {
  for (let round = 0; round < 3; round++) {
    if ((await fiscal(kind.table, id))?.status === "emitida") break;
    await leaseRunsOut(kind.table, id);
    expect((await post(`${kind.route}/reissue`, { [kind.idField]: id })).status).toBe(200);
    await assertInvariants(kind.table, id);
  }
  await assertSettled(kind.table, id);
}

// ─── the steps ───────────────────────────────────────────────────────────────────────────────────
const post = async (path: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
  current.t.post(path, { org_id: tenant.org.id, ...body }, await current.token(), headers);
const runReconcile = () =>
  Promise.resolve(
    current.reconcile.request("/reconcile", {
      method: "POST",
      headers: { authorization: `Bearer ${TEST_RECONCILE_SECRET}` },
    }),
  );

/** "503", or "200 <status>" for a document route's 200. */
async function firstAnswer(response: Response): Promise<string> {
  const body = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200) {
    // every failure in the one error shape, never internals
    expect(body).toMatchObject({ error: { code: expect.any(String), request_id: expect.any(String) } });
    return String(response.status);
  }
  const entry = (body.results as { status: string }[] | undefined)?.[0] ?? body;
  return typeof entry.status === "string" && !("run_id" in body) ? `200 ${entry.status}` : "200";
}

async function transmittedInvoice(): Promise<Invoice> {
  const invoice = await createInvoice(db, tenant.org, tenant.company);
  const response = await post("/transmit", { invoice_ids: [invoice.id] });
  expect((await response.json()).results[0].status).toBe("transmitida");
  return invoice;
}

/** How the fault is put in place before the step, for the provider request `matches` picks. */
function arm(fault: Fault, matches: (request: Request) => boolean, sandboxRule: () => void): void {
  switch (fault) {
    case "refused":
      edgeFault = { matches, when: "before", act: () => {} };
      return;
    case "reset":
      edgeFault = {
        matches,
        when: "after",
        act: () => {
          throw connectionError("ECONNRESET");
        },
      };
      return;
    case "db_down_after":
      edgeFault = { matches, when: "after", act: databaseDown };
      return;
    case "storage_down_after":
      edgeFault = { matches, when: "after", act: storageDown };
      return;
    case "timeout":
    case "5xx":
    case "429":
    case "malformed":
      sandboxRule();
      return;
    case "db_down_before":
      return;
  }
}
const SANDBOX_KIND = {
  timeout: "hang",
  "5xx": "error",
  "429": "rate_limited",
  malformed: "malformed",
} as const;
const sandboxKind = (fault: Fault) => SANDBOX_KIND[fault as keyof typeof SANDBOX_KIND];

/** Runs `call` under `fault`; the database and storage are back up before it returns. */
async function underFault(fault: Fault, call: () => Promise<Response>): Promise<string> {
  // A database fault goes to an app with a pool of its own, named so that only its connections
  // are cut; the pool is closed afterwards (postgres.js may hold a query queued behind a refused
  // connection for its connect timeout, and that must not slow down the next case).
  const own = fault.startsWith("db_down") ? await connectPostgres(database.appUrl, { max: 4 }) : undefined;
  if (own) current = await appOn(own);
  if (fault === "db_down_before") await databaseDown();
  try {
    const response = await call();
    return await firstAnswer(response);
  } finally {
    await databaseUp();
    await storageUp();
    current = shared;
    await own?.close();
  }
}

/** A submit (one document is in flight at a time here, so the next one is the case's). */
const isSubmit = (request: Request) =>
  request.method === "POST" && new URL(request.url).pathname.endsWith("/documents");
const isQueryOf = (id: string) => (request: Request) =>
  request.method === "GET" && new URL(request.url).pathname.endsWith(`/documents/${id}`);

/**
 * The provider took the message and the database went down before its outcome was recorded: the
 * delivery is left `pendiente`. A retry of /deliver meanwhile, with the request's
 * key or without one, answers that delivery and e-mails nothing; a reconcile run asks the provider
 * about its reference, never sending it again, and records what the provider says.
 */
async function openDeliverySettledByReconcile(
  document: Delivered,
  key: Record<string, string>,
): Promise<void> {
  const deliveriesOf = () =>
    db.superuser<{ id: string; status: string; send_id: string; provider_reference: string | null }>(
      "select id, status, send_id, provider_reference from deliveries where document_id = $1 order by created_at",
      [document.id],
    );
  const [open, ...others] = await deliveriesOf();
  expect(others).toEqual([]);
  expect(open?.status).toBe("pendiente");
  expect(sentMessagesFor(document)).toHaveLength(1);
  const sendsBefore = sandbox.deliver.received.length;

  for (const headers of [key, undefined]) {
    const retry = await post(document.route, { [document.idField]: document.id }, headers);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toMatchObject({ delivery_id: open?.id, status: "pendiente" });
  }
  expect(sandbox.deliver.received).toHaveLength(sendsBefore);

  // while the call that opened it may still be sending, reconcile leaves it alone
  expect((await runReconcile()).status).toBe(200);
  expect(sandbox.deliver.queries).toEqual([]);
  // that call died: once its lease runs out, reconcile asks
  await db.superuser("update deliveries set lease_until = now() - interval '1 second' where id = $1", [
    open?.id ?? "",
  ]);
  expect((await runReconcile()).status).toBe(200);
  // asked about, under the reference it was sent with; never sent again
  expect(sandbox.deliver.queries).toMatchObject([{ reference: open?.send_id, found: true }]);
  expect(sandbox.deliver.received).toHaveLength(sendsBefore);
  const [message] = sentMessagesFor(document);
  expect(message?.reference).toBe(open?.send_id);
  expect(await deliveriesOf()).toMatchObject([
    { id: open?.id, status: "enviada", provider_reference: message?.provider_reference },
  ]);
  // and a repeat now answers the delivery sent
  const again = await post(document.route, { [document.idField]: document.id });
  expect(await again.json()).toMatchObject({ delivery_id: open?.id, status: "enviada" });
  expect(sentMessagesFor(document)).toHaveLength(1);
}

// ─── the matrix ──────────────────────────────────────────────────────────────────────────────────
const cases = (step: Step) => Object.entries(MATRIX[step]) as [Fault, string][];

describe.skipIf(!onPostgres)("the fault matrix", () => {
  describe.each(cases("transmit"))("/transmit, %s", (fault, expected) => {
    it(`answers ${expected}; never lost, never sent twice; /refresh or a reissue settles it`, async () => {
      const invoice = await createInvoice(db, tenant.org, tenant.company);
      arm(fault, isSubmit, () =>
        sandbox.provider.setKnobs({ failNext: [{ kind: sandboxKind(fault), reference: invoice.id }] }),
      );
      const answer = await underFault(fault, () => post("/transmit", { invoice_ids: [invoice.id] }));
      expect(answer).toBe(expected);
      await assertInvariants("invoices", invoice.id);

      for (let round = 0; round < 3; round++) {
        const { status } = (await fiscal("invoices", invoice.id)) ?? {};
        if (status === "transmitida") break;
        await leaseRunsOut("invoices", invoice.id);
        const response =
          status === "en_proceso"
            ? await post("/refresh", { invoice_id: invoice.id })
            : await post("/transmit", { invoice_ids: [invoice.id], reissue: true });
        expect(response.status).toBe(200);
        await assertInvariants("invoices", invoice.id);
      }
      await assertSettled("invoices", invoice.id);
    });
  });

  const noteCases = (step: "note" | "note_reissue") =>
    NOTE_KINDS.flatMap((kind) =>
      cases(step).map(([fault, expected]) => [kind.route, fault, expected, kind] as const),
    );

  describe.each(noteCases("note"))("%s, %s", (route, fault, expected, kind) => {
    it(`answers ${expected}; never lost, never sent twice; a reissue settles it`, async () => {
      const invoice = await transmittedInvoice();
      const body = { invoice_id: invoice.id, ...kind.body };
      const key = { "Idempotency-Key": `fault-matrix-${crypto.randomUUID()}` };
      // the note's id is only known once created: match the next submit that is not the invoice's
      arm(fault, isSubmit, () => sandbox.provider.setKnobs({ failNext: [{ kind: sandboxKind(fault) }] }));
      const answer = await underFault(fault, () => post(route, body, key));
      expect(answer).toBe(expected);
      const noteId = async () =>
        (
          await db.superuser<{ id: string }>(`select id from ${kind.table} where invoice_id = $1`, [
            invoice.id,
          ])
        )[0]?.id;
      if (fault === "db_down_before") {
        // nothing was written and nothing sent: the caller's retry under its key creates it
        expect(await noteId()).toBeUndefined();
        expect(sandbox.provider.submissions.filter((s) => s.reference !== invoice.id)).toHaveLength(0);
        expect((await post(route, body, key)).status).toBe(200);
      }
      const id = (await noteId()) as string;
      expect(id).toBeDefined();
      await assertInvariants(kind.table, id);

      await reissueUntilSettled(kind, id);
    });
  });

  describe.each(noteCases("note_reissue"))("%s/reissue, %s", (route, fault, expected, kind) => {
    it(`answers ${expected}; never lost, never sent twice; a later reissue settles it`, async () => {
      const invoice = await transmittedInvoice();
      // a note in error that never reached the provider: its first submit was refused (429 for a minute)
      edgeFault = {
        matches: isSubmit,
        when: "instead",
        act: () =>
          Response.json(
            { error: { code: "rate_limited", message: "busy" } },
            { status: 429, headers: { "retry-after": "60" } },
          ),
      };
      const created = await (await post(route, { invoice_id: invoice.id, ...kind.body })).json();
      expect(created).toMatchObject({
        status: "error",
        code: "not_sent_retry",
        message: expect.stringMatching(/^not sent: /),
      });
      const id = created[kind.idField] as string;
      expect(submissionsOf(id)).toHaveLength(0);

      arm(fault, isSubmit, () =>
        sandbox.provider.setKnobs({ failNext: [{ kind: sandboxKind(fault), reference: id }] }),
      );
      const answer = await underFault(fault, () => post(`${route}/reissue`, { [kind.idField]: id }));
      expect(answer).toBe(expected);
      await assertInvariants(kind.table, id);

      await reissueUntilSettled(kind, id);
    });
  });

  /** What each deliver route delivers: a transmitted invoice, an accepted credit note of one. */
  const DELIVERED = {
    "/deliver": async (): Promise<Delivered> => {
      const { id, number } = await transmittedInvoice();
      return { id, number, route: "/deliver", idField: "invoice_id" };
    },
    "/credit-notes/deliver": async (): Promise<Delivered> => {
      const invoice = await transmittedInvoice();
      const note = await (
        await post("/credit-notes", { invoice_id: invoice.id, concept_code: "2", reason: "Anulación" })
      ).json();
      expect(note.status).toBe("emitida");
      const [row] = await db.superuser<{ number: string }>("select number from credit_notes where id = $1", [
        note.credit_note_id,
      ]);
      return {
        id: note.credit_note_id,
        number: row?.number ?? "",
        route: "/credit-notes/deliver",
        idField: "credit_note_id",
      };
    },
  };
  const deliverCases = Object.keys(DELIVERED).flatMap((route) =>
    cases("deliver").map(([fault, expected]) => [route as keyof typeof DELIVERED, fault, expected] as const),
  );

  describe.each(deliverCases)("%s, %s", (route, fault, expected) => {
    it(`answers ${expected}; never e-mailed twice; a retry under the same Idempotency-Key, or reconcile, delivers it once`, async () => {
      const document = await DELIVERED[route]();
      const body = { [document.idField]: document.id };
      const key = { "Idempotency-Key": `fault-matrix-${crypto.randomUUID()}` };
      const isSend = (request: Request) =>
        request.method === "POST" && new URL(request.url).pathname.endsWith("/deliver/messages");
      const isAttachedDocument = (request: Request) =>
        new URL(request.url).pathname.endsWith(`/documents/${document.id}/attached-document`);
      arm(fault, fault === "storage_down_after" ? isAttachedDocument : isSend, () =>
        sandbox.deliver.setKnobs({ failNext: [{ kind: sandboxKind(fault) }] }),
      );
      const answer = await underFault(fault, () => post(route, body, key));
      expect(answer).toBe(expected);
      expect(sentMessagesFor(document).length).toBeLessThanOrEqual(1);
      if (fault === "storage_down_after") expect(sentMessagesFor(document)).toHaveLength(0);

      // a key whose holder could not release it (the database was down) blocks retries for its
      // 10-minute lease: let it run out
      await db.superuser(
        "update einv_private.idempotency_keys set lease_until = now() - interval '1 second' where key = $1 and state = 'running'",
        [key["Idempotency-Key"]],
      );
      if (fault === "db_down_after") {
        await openDeliverySettledByReconcile(document, key);
        return;
      }
      const retry = await post(route, body, key);
      expect(retry.status).toBe(200);
      expect(await retry.json()).toMatchObject({ [document.idField]: document.id, status: "enviada" });
      expect(sentMessagesFor(document)).toHaveLength(1);
      const deliveries = await db.superuser<{ status: string }>(
        "select status from deliveries where document_id = $1 order by created_at",
        [document.id],
      );
      expect(deliveries.filter((d) => d.status === "enviada")).toHaveLength(1);
    });
  });

  describe.each(cases("reconcile"))("a reconcile run, %s", (fault, expected) => {
    it(`answers ${expected}; never re-sends; a later run settles it`, async () => {
      // an invoice the provider took whose answer never came back: left en_proceso for reconcile
      const invoice = await createInvoice(db, tenant.org, tenant.company);
      sandbox.provider.setKnobs({ failNext: [{ kind: "hang", reference: invoice.id }] });
      const sent = await (await post("/transmit", { invoice_ids: [invoice.id] })).json();
      expect(sent.results[0].status).toBe("en_proceso");
      await leaseRunsOut("invoices", invoice.id);
      expect(submissionsOf(invoice.id)).toHaveLength(1);

      arm(fault, isQueryOf(invoice.id), () =>
        sandbox.provider.setKnobs({
          failNext: [{ kind: sandboxKind(fault), on: "query", reference: invoice.id }],
        }),
      );
      const answer = await underFault(fault, runReconcile);
      expect(answer).toBe(expected);
      await assertInvariants("invoices", invoice.id);

      for (let round = 0; round < 2; round++) {
        if ((await fiscal("invoices", invoice.id))?.status === "transmitida") break;
        // a run that died holds its documents until its lease ends
        await leaseRunsOut("invoices", invoice.id);
        expect((await runReconcile()).status).toBe(200);
        await assertInvariants("invoices", invoice.id);
      }
      await assertSettled("invoices", invoice.id);
    });
  });
});
