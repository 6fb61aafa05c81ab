/**
 * What happens to a webhook message the endpoint does not take: it is tried again under the same
 * `webhook-id`, after an exponential backoff with jitter (or the endpoint's Retry-After), in order
 * per document, until 3 days after its event — then the endpoint is disabled with a reason an admin
 * reads; a 410 disables it at once. And how a slow or hostile endpoint is bounded: a timeout over
 * the whole exchange, redirects never followed, the answer's body barely read, an address that
 * turned private refused. The drains are the service's own (shared/events/drain.ts), run directly
 * so each step is deterministic; the receiver stands at the network edge.
 */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PUBLIC_TEST_ADDRESS, type TestApp } from "../../devkit/app.ts";
import type { TestDatabase } from "../../devkit/database.ts";
import { createInvoice, type Tenant } from "../../devkit/factories.ts";
import { createWebhookEndpoint, createWebhookReceiver, type ReceivedMessage } from "../../devkit/webhooks.ts";
import { drainWebhooks } from "../../shared/events/drain.ts";
import { createLogger } from "../../shared/kernel/log.ts";
import { openRouteSuite, sandboxProviders } from "../support/route-suite.ts";

const HOOKS = "https://hooks.example.test";
const TIMEOUT_MS = 400;
const receiver = createWebhookReceiver();
const providers = sandboxProviders();
/** What the hooks' name resolves to (a test may make it private, as a rebinding attacker would). */
let hooksAddress = PUBLIC_TEST_ADDRESS;
let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;
let token: string;
let endpoint: { id: string; secret: string };

beforeAll(async () => {
  ({ db, t, tenant, token } = await openRouteSuite({
    env: { EINV_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) },
    providerFetch: (input, init) => {
      const request = new Request(input, init);
      return request.url.startsWith(HOOKS) ? receiver.fetch(request) : providers(request);
    },
    credentials: "router",
  }));
  // the app's resolver: every test name is public, but the hooks' follows `hooksAddress`
  const resolve = t.deps.egress.resolve;
  t.deps.egress.resolve = async (host, signal) =>
    host === new URL(HOOKS).hostname ? [hooksAddress] : resolve(host, signal);
});
afterAll(() => db?.close());
beforeEach(async () => {
  receiver.reset();
  hooksAddress = PUBLIC_TEST_ADDRESS;
  await db.superuser("delete from public.webhook_endpoints where org_id = $1", [tenant.org.id]);
  endpoint = await createWebhookEndpoint(db, t.deps.secretBox, tenant.org.id, `${HOOKS}/in`);
});

/** One drain of every org's due messages, as a reconcile run makes it. */
const drain = () =>
  drainWebhooks(
    {
      serviceDb: t.deps.db.asService(),
      secretBox: t.deps.secretBox,
      egress: t.deps.egress,
      allowPrivateUrls: false,
      timeoutMs: TIMEOUT_MS,
      concurrency: 4,
      log: createLogger("silent"),
    },
    { orgId: null, batchSize: 20, budgetMs: 10_000 },
  );

/** An invoice transmitted with the endpoint failing (`receiver` set first): two messages queued. */
async function transmitted(): Promise<string> {
  const invoice = await createInvoice(db, tenant.org, tenant.company);
  const response = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token);
  expect((await response.json()).results[0].status).toBe("transmitida");
  await t.deps.background.idle();
  return invoice.id;
}

interface DeliveryRow {
  state: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  wait_seconds: number;
}
const deliveriesOf = (documentId: string) =>
  db.superuser<DeliveryRow>(
    `select state, attempts, last_status, last_error,
            extract(epoch from next_attempt_at - now())::float as wait_seconds
       from einv_private.webhook_deliveries where document_id = $1 order by event_id`,
    [documentId],
  );
/** The clock running on: every pending message of the document is due now. */
const due = (documentId: string) =>
  db.superuser("update einv_private.webhook_deliveries set next_attempt_at = now() where document_id = $1", [
    documentId,
  ]);
const verified = (m: ReceivedMessage) =>
  new Webhook(endpoint.secret).verify(m.body, {
    "webhook-id": m.id,
    "webhook-timestamp": m.timestamp,
    "webhook-signature": m.signature,
  }) as { type: string };
const endpointRow = async () =>
  (
    await db.superuser<{ enabled: boolean; disabled_reason: string | null }>(
      "select enabled, disabled_reason from public.webhook_endpoints where id = $1",
      [endpoint.id],
    )
  )[0];

describe("a message the endpoint does not take", () => {
  it("is tried again after a jittered backoff, under the same webhook-id, and in order per document", async () => {
    receiver.set({ status: 500 });
    const invoiceId = await transmitted();
    // the first change failed; the second waits behind it, untried
    const [first, second] = await deliveriesOf(invoiceId);
    expect(first).toMatchObject({ state: "pending", attempts: 1, last_status: 500 });
    expect(first?.last_error).toBe("the endpoint answered HTTP 500");
    // 30 s doubling, at 50–100 %: the first wait is 15 to 30 s
    expect(first?.wait_seconds).toBeGreaterThan(14);
    expect(first?.wait_seconds).toBeLessThan(31);
    expect(second).toMatchObject({ state: "pending", attempts: 0 });
    const failedId = receiver.received[0]?.id;
    expect(receiver.received.map((m) => m.id)).toEqual([failedId]);

    receiver.set({});
    await drain(); // not due yet: nothing
    expect(receiver.received).toHaveLength(1);
    await due(invoiceId);
    await drain();
    expect(receiver.received.map((m) => m.id)).toEqual([failedId, failedId, expect.stringMatching(/^evt_/)]);
    expect(receiver.received.slice(1).map((m) => verified(m).type)).toEqual([
      "invoice.en_proceso",
      "invoice.transmitida",
    ]);
    expect((await deliveriesOf(invoiceId)).map((d) => d.state)).toEqual(["delivered", "delivered"]);
  });

  it("waits as long as the endpoint's Retry-After asks, when that is longer", async () => {
    receiver.set({ status: 429, headers: { "retry-after": "600" } });
    const [first] = await deliveriesOf(await transmitted());
    expect(first?.wait_seconds).toBeGreaterThan(595);
  });

  it("disables the endpoint at once on 410 Gone, with a reason its admin reads, and gives up the rest", async () => {
    receiver.set({ status: 410 });
    const invoiceId = await transmitted();
    expect((await deliveriesOf(invoiceId)).map((d) => d.state)).toEqual(["failed", "failed"]);
    expect(await endpointRow()).toEqual({
      enabled: false,
      disabled_reason: expect.stringMatching(/^disabled \S+Z: the endpoint answered 410 Gone$/),
    });
    // nothing more goes to it
    receiver.set({});
    await transmitted();
    expect(receiver.received).toHaveLength(1);
  });

  it("is given up 3 days after its event, and the endpoint disabled saying why", async () => {
    receiver.set({ down: true });
    const invoiceId = await transmitted();
    expect((await deliveriesOf(invoiceId))[0]).toMatchObject({
      state: "pending",
      last_status: null,
      last_error: "the endpoint could not be reached (the connection failed)",
    });
    expect((await endpointRow())?.enabled).toBe(true);
    // three days on: the events are that old
    await db.superuser(
      `update einv_private.outbox set occurred_at = occurred_at - interval '3 days' where document_id = $1`,
      [invoiceId],
    );
    await due(invoiceId);
    await drain();
    expect((await deliveriesOf(invoiceId)).map((d) => d.state)).toEqual(["failed", "failed"]);
    expect(await endpointRow()).toEqual({
      enabled: false,
      disabled_reason: expect.stringMatching(
        /^disabled \S+Z: deliveries failed for 3 days \(2 attempts\); last: the endpoint could not be reached/,
      ),
    });
    // an admin enables it again: the reason goes, the next events are sent
    const admin = await t.token(tenant.admin);
    const saved = await t.post(
      "/webhooks/save",
      { org_id: tenant.org.id, webhook_id: endpoint.id, enabled: true },
      admin,
    );
    expect(await saved.json()).toMatchObject({ enabled: true, disabled_reason: null });
    receiver.set({});
    await transmitted();
    expect(receiver.received.map((m) => verified(m).type)).toEqual([
      "invoice.en_proceso",
      "invoice.transmitida",
    ]);
  });
});

describe("a slow or hostile endpoint", () => {
  it("is given up at the timeout, and the drain tries it no more in the same run", async () => {
    receiver.set({ delayMs: 5_000 });
    const started = performance.now();
    const invoiceId = await transmitted();
    expect(performance.now() - started).toBeLessThan(3_000);
    const [first] = await deliveriesOf(invoiceId);
    expect(first).toMatchObject({ state: "pending", last_error: `no answer within ${TIMEOUT_MS} ms` });
    // a second message to the same endpoint in one drain is not sent once it timed out
    const other = await createInvoice(db, tenant.org, tenant.company);
    await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [other.id] }, token);
    await t.deps.background.idle();
    expect(receiver.arrivals).toBeLessThanOrEqual(2);
  });

  it("answering slowly but in time, holds a drain no longer than its budget: it takes what can end", async () => {
    receiver.set({ down: true });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await transmitted());
    for (const id of ids) await due(id);
    receiver.set({ delayMs: 300 });
    const started = performance.now();
    // one at a time, 300 ms each: six due would take 1.8 s; the budget allows two or three
    const result = await drainWebhooks(
      {
        serviceDb: t.deps.db.asService(),
        secretBox: t.deps.secretBox,
        egress: t.deps.egress,
        allowPrivateUrls: false,
        timeoutMs: TIMEOUT_MS,
        concurrency: 1,
        log: createLogger("silent"),
      },
      { orgId: tenant.org.id, batchSize: 20, budgetMs: 1_000 },
    );
    expect(performance.now() - started).toBeLessThan(1_300);
    expect(result.delivered).toBeGreaterThan(0);
    // each message it took was delivered; what it did not take is still due, neither leased nor
    // failed: the next drain sends it
    const states = await db.superuser<{ state: string; n: number }>(
      `select case when state = 'pending' and next_attempt_at <= now() then 'due' else state end as state,
              count(*)::int as n
         from einv_private.webhook_deliveries where document_id = any($1::text::uuid[]) group by 1 order by 1`,
      [`{${ids.join(",")}}`],
    );
    expect(states).toEqual([
      { state: "delivered", n: result.delivered },
      { state: "due", n: 12 - result.delivered },
    ]);
    expect(result.failed).toBe(0);
  });

  it("is never followed through a redirect, and what it answers is not kept", async () => {
    receiver.set({ status: 302, headers: { location: "http://169.254.169.254/latest/meta-data" } });
    const [first] = await deliveriesOf(await transmitted());
    expect(receiver.received).toHaveLength(1);
    expect(first?.last_error).toBe(
      "the endpoint answered a redirect (HTTP 302), which is never followed: save its final url",
    );
  });

  it("may answer a huge body: 4 KiB of it are read, the rest dropped, and the message counts as taken", async () => {
    receiver.set({ status: 200, bodyBytes: 20 * 1024 * 1024 });
    const invoiceId = await transmitted();
    expect((await deliveriesOf(invoiceId)).map((d) => d.state)).toEqual(["delivered", "delivered"]);
  });

  it.each([
    "10.1.2.3",
    "192.168.7.9",
    "127.0.0.5",
    "169.254.169.254",
    "100.64.1.2",
    "fd12:3456::7",
    "::ffff:10.9.8.7",
    "fe80::1",
  ])(
    "never names the private address %s its name resolves to: not at save, test, send, nor in the reason kept",
    async (address) => {
      // the answers say a name resolves to an address that is not public — useful, and no more
      const admin = await t.token(tenant.admin);
      receiver.set({ status: 500 });
      const invoiceId = await transmitted();
      receiver.reset();
      hooksAddress = address;
      const save = await t.post("/webhooks/save", { org_id: tenant.org.id, url: `${HOOKS}/other` }, admin);
      const saved = await save.text();
      expect(save.status).toBe(400);
      expect(saved).toContain("resolves to an address that is not public");
      const test = await t.post("/webhooks/test", { org_id: tenant.org.id, webhook_id: endpoint.id }, admin);
      const tested = await test.text();
      expect(JSON.parse(tested)).toMatchObject({ ok: false, status: null });
      await due(invoiceId);
      await drain();
      const kept = JSON.stringify([await deliveriesOf(invoiceId), await endpointRow()]);
      expect(kept).toContain("resolves to an address that is not public");
      const written = address.replace(/^::ffff:/, "");
      for (const text of [saved, tested, kept, ...t.logs]) {
        expect(text).not.toContain(address);
        expect(text).not.toContain(written);
      }
      expect(receiver.arrivals).toBe(0);
    },
  );

  it("is not sent to once its name resolves to a private address (a rebinding), and says why", async () => {
    hooksAddress = "10.1.2.3";
    const [first] = await deliveriesOf(await transmitted());
    expect(receiver.arrivals).toBe(0);
    expect(first?.last_error).toBe(
      "not sent: the webhook url's host hooks.example.test resolves to an address that is not public",
    );
  });
});

describe("two drains at once", () => {
  it("never send one message twice: each takes what the other does not", async () => {
    receiver.set({ status: 500 });
    const ids = [await transmitted(), await transmitted(), await transmitted()];
    receiver.reset();
    for (const id of ids) await due(id);
    await Promise.all([drain(), drain(), drain()]);
    const seen = receiver.received.map((m) => m.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toHaveLength(6);
  });
});
