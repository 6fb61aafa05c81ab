/**
 * The fault matrix's webhook side: the tenant's endpoint down, slow (past the timeout), answering
 * 500, answering 410, and the database failing right after a message was sent (its outcome never
 * recorded) — and, beside them, a status change that rolls back. For each: nothing is lost (every
 * committed event reaches the endpoint once it works again, under its own `webhook-id`, in order per
 * document), nothing is sent for a change that did not commit, and every message verifies with the
 * `standardwebhooks` package. 410 is the exception by design: the endpoint asked for nothing more,
 * so it is disabled and what was pending for it given up, with the reason recorded.
 *
 * Real components: the app and its drains on this file's PostgreSQL database, the database taken
 * down the way tests/http/fault-matrix.test.ts does it, the sandbox and a receiver at the edge.
 * Needs the real PostgreSQL server (CI has it).
 */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Tenant } from "../../devkit/factories.ts";
import {
  createWebhookEndpoint,
  createWebhookReceiver,
  type ReceivedMessage,
  type ReceiverKnobs,
} from "../../devkit/webhooks.ts";
import { createPostgresDb } from "../../shared/db/postgres-transport.ts";
import { connectPostgres } from "../../shared/db/sql-client.ts";
import { type DrainContext, drainWebhooks } from "../../shared/events/drain.ts";
import { createLogger } from "../../shared/kernel/log.ts";
import { type DatabaseSwitch, databaseSwitch } from "../support/database-switch.ts";
import { expectEveryEventReceived, lastEventId } from "../support/event-witness.ts";
import { sandboxProviders, saveRouterCredentials } from "../support/route-suite.ts";

const target = inject("database");
const onPostgres = target.kind === "postgres";
const HOOKS = "https://hooks.faults.test";
const TIMEOUT_MS = 300;
const receiver = createWebhookReceiver();
const providers = sandboxProviders();
/** Runs when a message reaches the receiver, before it answers (once). */
let onArrival: (() => Promise<void>) | undefined;

let db: TestDatabase;
let database: DatabaseSwitch;
let t: TestApp;
let tenant: Tenant;
let token: string;
let endpoint: { id: string; secret: string };
let since: number;

beforeAll(async () => {
  if (!onPostgres) return;
  db = await createTestDatabase();
  database = databaseSwitch(db, target.adminUrl, "webhook-faults-drain");
  t = await createTestApp(db, {
    env: { EINV_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) },
    providerFetch: async (input, init) => {
      const request = new Request(input, init);
      if (!request.url.startsWith(HOOKS)) return providers(request);
      const arrival = onArrival;
      onArrival = undefined;
      await arrival?.();
      return receiver.fetch(request);
    },
  });
  tenant = await createTenant(db);
  await saveRouterCredentials(t, tenant);
  token = await t.token(tenant.operador);
});
afterAll(async () => {
  await database?.close();
  await db?.close();
});
beforeEach(async () => {
  if (!onPostgres) return;
  receiver.reset();
  onArrival = undefined;
  await db.superuser("delete from public.webhook_endpoints where org_id = $1", [tenant.org.id]);
  endpoint = await createWebhookEndpoint(db, t.deps.secretBox, tenant.org.id, `${HOOKS}/in`);
  since = await lastEventId(db, tenant.org.id);
});

const drainContext = (serviceDb = t.deps.db.asService()): DrainContext => ({
  serviceDb,
  secretBox: t.deps.secretBox,
  egress: t.deps.egress,
  allowPrivateUrls: false,
  timeoutMs: TIMEOUT_MS,
  concurrency: 2,
  log: createLogger("silent"),
});
/** The clock running on and the endpoint back: drained until nothing is left. */
async function recover(): Promise<void> {
  await t.deps.background.idle();
  receiver.set({});
  for (let round = 0; round < 4; round++) {
    await db.superuser(
      "update einv_private.webhook_deliveries set next_attempt_at = now() where state = 'pending'",
    );
    await drainWebhooks(drainContext(), { orgId: null, batchSize: 20, budgetMs: 5_000 });
  }
}
async function transmit(): Promise<string> {
  const invoice = await createInvoice(db, tenant.org, tenant.company);
  const response = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token);
  expect((await response.json()).results[0].status).toBe("transmitida");
  return invoice.id;
}
const verified = (m: ReceivedMessage) =>
  new Webhook(endpoint.secret).verify(m.body, {
    "webhook-id": m.id,
    "webhook-timestamp": m.timestamp,
    "webhook-signature": m.signature,
  });

const ENDPOINT_FAULTS: [string, ReceiverKnobs][] = [
  ["down", { down: true }],
  ["slow", { delayMs: 2_000 }],
  ["500", { status: 500 }],
];

describe.skipIf(!onPostgres)("webhooks under faults", () => {
  it.each(ENDPOINT_FAULTS)(
    "the endpoint %s: nothing lost once it recovers, each message verified",
    async (_, knobs) => {
      receiver.set(knobs);
      const ids = [await transmit(), await transmit()];
      await t.deps.background.idle();
      const failedFirst = receiver.received.filter((m) => m.answered < 300).length;
      expect(failedFirst).toBe(0);
      await recover();
      await expectEveryEventReceived(db, tenant.org.id, receiver.received, since);
      for (const message of receiver.received.filter((m) => m.answered < 300))
        expect(verified(message)).toBeTruthy();
      const delivered = await db.superuser<{ n: number }>(
        "select count(*)::int as n from einv_private.webhook_deliveries where document_id = any($1::text::uuid[]) and state = 'delivered'",
        [`{${ids.join(",")}}`],
      );
      expect(delivered[0]?.n).toBe(4);
    },
  );

  it("the endpoint answers 410: disabled at once, saying so; nothing more is sent to it", async () => {
    receiver.set({ status: 410 });
    await transmit();
    await recover();
    expect(receiver.received.map((m) => m.answered)).toEqual([410]);
    const [row] = await db.superuser<{ enabled: boolean; disabled_reason: string }>(
      "select enabled, disabled_reason from public.webhook_endpoints where id = $1",
      [endpoint.id],
    );
    expect(row).toEqual({ enabled: false, disabled_reason: expect.stringContaining("410 Gone") });
    await transmit();
    await recover();
    expect(receiver.received).toHaveLength(1);
  });

  it("the database fails after a message was sent: it is sent again under the same id, once the lease ends", async () => {
    // first the endpoint is down, so the request's own drain leaves both messages waiting
    receiver.set({ down: true });
    const invoiceId = await transmit();
    await t.deps.background.idle();
    receiver.set({});
    await db.superuser(
      "update einv_private.webhook_deliveries set next_attempt_at = now() where document_id = $1",
      [invoiceId],
    );
    // a drain on a pool of its own; the database refuses it the moment its first message arrives
    const own = await connectPostgres(database.appUrl, { max: 2 });
    onArrival = () => database.down();
    try {
      await drainWebhooks(drainContext(createPostgresDb(own).asService()), {
        orgId: tenant.org.id,
        batchSize: 5,
        budgetMs: 2_000,
      }).catch(() => {}); // its next pick fails too: the database is down
    } finally {
      await database.up();
      await own.close();
    }
    const [sent] = receiver.received;
    expect(sent?.answered).toBe(204);
    // its outcome was never recorded: still pending, under the lease of that attempt
    const [first] = await db.superuser<{ state: string; attempts: number; leased: boolean }>(
      `select state, attempts, next_attempt_at > now() as leased from einv_private.webhook_deliveries
        where document_id = $1 order by event_id limit 1`,
      [invoiceId],
    );
    expect(first).toEqual({ state: "pending", attempts: 2, leased: true });
    // the lease ends (the clock runs on): sent again, same id, and then the next one
    await recover();
    expect(receiver.received.map((m) => m.id)).toEqual([sent?.id, sent?.id, expect.stringMatching(/^evt_/)]);
    for (const message of receiver.received) expect(verified(message)).toBeTruthy();
    await expectEveryEventReceived(db, tenant.org.id, receiver.received, since);
  });

  it("a status change that rolls back sends nothing; the one that commits after it is sent", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const failed = db.client.transaction(async (session) => {
      await session.query(
        "update invoices set status = 'en_proceso', last_code = 'in_progress', attempt_count = 1 where id = $1",
        [invoice.id],
      );
      throw new Error("the call died before it committed");
    });
    await expect(failed).rejects.toThrow("died");
    await recover();
    expect(receiver.received).toEqual([]);
    const response = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token);
    expect((await response.json()).results[0].status).toBe("transmitida");
    await recover();
    expect(receiver.received.map((m) => (verified(m) as { type: string }).type)).toEqual([
      "invoice.en_proceso",
      "invoice.transmitida",
    ]);
    await expectEveryEventReceived(db, tenant.org.id, receiver.received, since);
  });
});
