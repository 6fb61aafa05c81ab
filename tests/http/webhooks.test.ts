/**
 * /webhooks/save and /webhooks/test, and the messages the outbox's events become, through the real
 * app and database with a receiver at the network edge (devkit/webhooks.ts). Every message the
 * receiver gets is verified with the `standardwebhooks` package — the reference implementation, not
 * our code — which also refuses a tampered body and an old timestamp.
 */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TestApp } from "../../devkit/app.ts";
import { asRole, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Tenant } from "../../devkit/factories.ts";
import { createWebhookReceiver, type ReceivedMessage } from "../../devkit/webhooks.ts";
import { MAX_WEBHOOKS_PER_ORG } from "../../shared/core/webhooks/save.ts";
import { signatures } from "../../shared/events/signature.ts";
import { EVENT_TYPES } from "../../shared/kernel/event.ts";
import { openRouteSuite, sandboxProviders } from "../support/route-suite.ts";

const HOOKS = "https://hooks.example.test";
const receiver = createWebhookReceiver();
const providers = sandboxProviders();
let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;
let admin: string;
let operador: string;

beforeAll(async () => {
  ({
    db,
    t,
    tenant,
    token: operador,
  } = await openRouteSuite({
    env: { EINV_WEBHOOK_TIMEOUT_MS: "500" },
    providerFetch: (input, init) => {
      const request = new Request(input, init);
      return request.url.startsWith(HOOKS) ? receiver.fetch(request) : providers(request);
    },
    credentials: "router",
  }));
  admin = await t.token(tenant.admin);
});
afterAll(() => db?.close());
beforeEach(async () => {
  receiver.reset();
  // every test starts with no endpoint: an org has at most ten
  await db.superuser("delete from public.webhook_endpoints where org_id = $1", [tenant.org.id]);
});

const save = async (body: Record<string, unknown>, headers?: Record<string, string>, as = admin) =>
  t.post("/webhooks/save", { org_id: tenant.org.id, ...body }, as, headers);
async function created(body: Record<string, unknown> = {}) {
  const response = await save({ url: `${HOOKS}/in`, ...body });
  expect(response.status).toBe(200);
  return (await response.json()) as { webhook_id: string; secret: string; events: string[] | null };
}
const headersOf = (m: ReceivedMessage) => ({
  "webhook-id": m.id,
  "webhook-timestamp": m.timestamp,
  "webhook-signature": m.signature,
});
/** What the reference implementation makes of a message signed with `secret`. */
const verified = (secret: string, m: ReceivedMessage) => new Webhook(secret).verify(m.body, headersOf(m));

async function transmit(): Promise<string> {
  const invoice = await createInvoice(db, tenant.org, tenant.company);
  const response = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, operador);
  expect((await response.json()).results[0].status).toBe("transmitida");
  await t.deps.background.idle();
  return invoice.id;
}

describe("/webhooks/save", () => {
  it("creates an endpoint and answers its whsec_ secret once; stores it sealed, never in clear", async () => {
    const key = { "Idempotency-Key": `webhook-${crypto.randomUUID()}` };
    const first = await save({ url: `${HOOKS}/in` }, key);
    const answer = await first.json();
    expect(answer).toEqual({
      webhook_id: expect.any(String),
      url: `${HOOKS}/in`,
      events: null,
      enabled: true,
      disabled_reason: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    // a retry under the same key is answered the same, secret included
    expect(await (await save({ url: `${HOOKS}/in` }, key)).json()).toEqual(answer);
    // a change answers no secret
    const changed = await (await save({ webhook_id: answer.webhook_id, events: ["invoice.error"] })).json();
    expect(changed).toEqual({ ...answer, events: ["invoice.error"], secret: undefined });
    expect("secret" in changed).toBe(false);
    const dump = await db.superuser<{ text: string }>(
      `select (select string_agg(w::text, '') from public.webhook_endpoints w)
              || (select string_agg(k::text, '') from einv_private.idempotency_keys k) as text`,
    );
    expect(dump[0]?.text).toContain(answer.webhook_id);
    expect(dump[0]?.text).not.toContain(answer.secret.slice("whsec_".length, -1));
  });

  it("rotates the secret when asked: the old one still signs beside the new one for a day", async () => {
    const { webhook_id, secret: old } = await created();
    const rotated = await (await save({ webhook_id, rotate_secret: true })).json();
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(old);
    await transmit();
    expect(receiver.received.length).toBeGreaterThan(0);
    for (const message of receiver.received) {
      expect(message.signature.split(" ")).toHaveLength(2);
      expect(verified(rotated.secret, message)).toBeTruthy();
      expect(verified(old, message)).toBeTruthy();
    }
  });

  it("refuses a url the provider policy refuses, naming the field, and stores nothing", async () => {
    const refused = [
      "http://hooks.example.test/in",
      "https://127.0.0.1/in",
      "https://10.0.0.8/in",
      "https://[fe80::1]/in",
      "https://user:pass@hooks.example.test/in",
      "https://hooks.example.test/in?token=abc",
      "https://hooks.example.test/in#x",
      "https://localhost/in",
      "not a url",
    ];
    for (const url of refused) {
      const response = await save({ url });
      expect(response.status).toBe(400);
      expect((await response.json()).error.details).toEqual([
        { field: "url", message: expect.stringMatching(/^The url is not allowed: the webhook url /) },
      ]);
    }
    expect(
      await db.superuser("select 1 from public.webhook_endpoints where org_id = $1", [tenant.org.id]),
    ).toEqual([]);
  });

  it("bounds what an org can ask: endpoints, event types, and fields that go together", async () => {
    const made = [];
    for (let i = 0; i < MAX_WEBHOOKS_PER_ORG; i++) made.push(await created());
    // a disabled endpoint still counts (there is no deleting one): the answer says what to do instead
    await save({ webhook_id: made[0]?.webhook_id, enabled: false });
    const over = await save({ url: `${HOOKS}/in` });
    expect(over.status).toBe(422);
    expect((await over.json()).error.message).toBe(
      `An organization has at most ${MAX_WEBHOOKS_PER_ORG} webhook endpoints, disabled ones included; give one a new url and events instead.`,
    );
    const reused = await save({ webhook_id: made[0]?.webhook_id, url: `${HOOKS}/other`, enabled: true });
    expect(reused.status).toBe(200);
    const cases: [Record<string, unknown>, string][] = [
      [{ url: `${HOOKS}/in`, events: ["invoice.error", "invoice.error"] }, "events"],
      [{ url: `${HOOKS}/in`, events: [] }, "events"],
      [{ url: `${HOOKS}/in`, events: ["invoice.paid"] }, "events.0"],
      [{ url: `${HOOKS}/in`, events: [...EVENT_TYPES, "invoice.error"] }, "events"],
      [{ url: `${HOOKS}/${"x".repeat(2050)}` }, "url"],
      [{ events: null }, "url"],
      [{ url: `${HOOKS}/in`, rotate_secret: true }, "rotate_secret"],
    ];
    for (const [body, field] of cases) {
      const response = await save(body);
      expect(response.status).toBe(400);
      expect((await response.json()).error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
  });

  it("bounds the url as it is stored: normalised, not as sent", async () => {
    // 1,527 characters as sent, over 9,000 once percent-encoded
    const response = await save({ url: `${HOOKS}/${"é".repeat(1500)}` });
    expect(response.status).toBe(400);
    expect((await response.json()).error.details).toEqual([
      { field: "url", message: "must be at most 2048 characters once normalised" },
    ]);
  });

  it("changes only the org's own endpoints: another org's is not found", async () => {
    const other = await createTenant(db);
    const theirs = await t.post(
      "/webhooks/save",
      { org_id: other.org.id, url: `${HOOKS}/theirs` },
      await t.token(other.admin),
    );
    const { webhook_id } = await theirs.json();
    const response = await save({ webhook_id, enabled: false });
    expect(response.status).toBe(404);
    expect((await response.json()).error.message).toBe("Webhook endpoint not found.");
    const test = await t.post("/webhooks/test", { org_id: tenant.org.id, webhook_id }, admin);
    expect(test.status).toBe(404);
  });
});

describe("/webhooks/test", () => {
  it("sends a signed ping the reference implementation verifies, and says what the endpoint did", async () => {
    const { webhook_id, secret } = await created();
    const response = await t.post("/webhooks/test", { org_id: tenant.org.id, webhook_id }, admin);
    expect(await response.json()).toEqual({
      ok: true,
      status: 204,
      message: "The endpoint took the ping (HTTP 204).",
    });
    const [ping] = receiver.received;
    expect(ping?.id).toMatch(/^ping_[0-9a-f]{32}$/);
    // the service by name, not the runtime's default (Deno/2.x)
    expect(ping?.userAgent).toBe("einvoicing-service (webhooks)");
    expect(verified(secret, ping as ReceivedMessage)).toEqual({
      type: "ping",
      timestamp: expect.any(String),
      data: { webhook_id, org_id: tenant.org.id },
    });
    receiver.set({ status: 500 });
    expect(
      await (await t.post("/webhooks/test", { org_id: tenant.org.id, webhook_id }, admin)).json(),
    ).toEqual({ ok: false, status: 500, message: "The ping was not taken: the endpoint answered HTTP 500." });
  });
});

describe("the messages", () => {
  it("are drained after a /transmit whose calls queued one or found one due, and only then (issue 39)", async () => {
    const drains: string[] = [];
    const run = t.deps.background.run;
    t.deps.background.run = (name, task) => {
      drains.push(name);
      run(name, task);
    };
    try {
      // an endpoint that takes every event: both calls queue, the drain sends both right away
      const { webhook_id } = await created();
      await transmit();
      expect(drains).toEqual(["webhooks"]);
      expect(receiver.received).toHaveLength(2);
      // one that takes none of an invoice's: nothing queued, no drain (on the connection that
      // just queued: the mark is the transaction's, not the session's)
      await save({ webhook_id, events: ["credit_note.emitida"] });
      drains.length = 0;
      receiver.reset();
      await transmit();
      expect(drains).toEqual([]);
      // but a delivery due again (a retry) is taken by the next /transmit's drain, as before
      const [retried] = await db.superuser<{ id: string }>(
        `update einv_private.webhook_deliveries set state = 'pending', finished_at = null,
                next_attempt_at = now() - interval '1 second'
          where id = (select max(id) from einv_private.webhook_deliveries where org_id = $1)
         returning id::text`,
        [tenant.org.id],
      );
      expect(retried).toBeDefined();
      await transmit();
      expect(drains).toEqual(["webhooks"]);
      expect(receiver.received.map((m) => (JSON.parse(m.body) as { type: string }).type)).toEqual([
        "invoice.transmitida",
      ]);
      drains.length = 0;
      receiver.reset();
      // no endpoint at all
      await db.superuser("delete from public.webhook_endpoints where org_id = $1", [tenant.org.id]);
      await transmit();
      expect(drains).toEqual([]);
      expect(receiver.received).toEqual([]);
    } finally {
      t.deps.background.run = run;
    }
  });

  it("carry each status change of a transmission, in order, verified by the reference implementation", async () => {
    const { secret } = await created();
    const invoiceId = await transmit();
    const events = receiver.received.map(
      (m) => verified(secret, m) as { type: string; data: Record<string, unknown> },
    );
    expect(events.map((e) => e.type)).toEqual(["invoice.en_proceso", "invoice.transmitida"]);
    expect(receiver.received.map((m) => m.userAgent)).toEqual([
      "einvoicing-service (webhooks)",
      "einvoicing-service (webhooks)",
    ]);
    const [claimed, accepted] = receiver.received;
    expect(events[1]).toEqual({
      type: "invoice.transmitida",
      timestamp: events[1]?.data.occurred_at,
      data: {
        id: accepted?.id,
        sequence: 2,
        type: "invoice.transmitida",
        org_id: tenant.org.id,
        kind: "invoice",
        document_id: invoiceId,
        status: "transmitida",
        code: "accepted",
        occurred_at: expect.stringMatching(/Z$/),
      },
    });
    // the webhook-id is the event's id (random: it counts nothing); a document's events are numbered
    expect(accepted?.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(claimed?.id).not.toBe(accepted?.id);
    expect(events[0]?.data.sequence).toBe(1);
  });

  it("are refused by the reference implementation when the body is tampered with or the timestamp is old", async () => {
    const { secret } = await created();
    await transmit();
    const message = receiver.received[0] as ReceivedMessage;
    expect(() =>
      verified(secret, { ...message, body: message.body.replace("en_proceso", "transmitida") }),
    ).toThrow("No matching signature found");
    const old = Math.floor(Date.now() / 1000) - 10 * 60;
    const resigned = { id: message.id, timestamp: old, body: message.body };
    const stale = { ...message, timestamp: String(old), signature: await signatures([secret], resigned) };
    expect(() => verified(secret, stale)).toThrow("Message timestamp too old");
    // the same bytes with a fresh timestamp, signed our way, pass: only the age was refused
    const now = Math.floor(Date.now() / 1000);
    const fresh = {
      ...message,
      timestamp: String(now),
      signature: await signatures([secret], { ...resigned, timestamp: now }),
    };
    expect(verified(secret, fresh)).toBeTruthy();
  });

  it("go only to endpoints that take the type, and never to a disabled one", async () => {
    const errors = await created({ events: ["invoice.transmitida"] });
    const disabled = await created();
    await save({ webhook_id: disabled.webhook_id, enabled: false });
    await transmit();
    expect(receiver.received.map((m) => JSON.parse(m.body).type)).toEqual(["invoice.transmitida"]);
    expect(verified(errors.secret, receiver.received[0] as ReceivedMessage)).toBeTruthy();
  });

  it("all reach the endpoint after a burst of concurrent requests, whose drains take turns", async () => {
    await created();
    const invoices = await Promise.all(
      Array.from({ length: 8 }, () => createInvoice(db, tenant.org, tenant.company)),
    );
    const answers = await Promise.all(
      invoices.map((invoice) =>
        t
          .post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, operador)
          .then((r) => r.json()),
      ),
    );
    expect(answers.map((a) => a.results[0].status)).toEqual(invoices.map(() => "transmitida"));
    await t.deps.background.idle();
    const ids = receiver.received.map((m) => m.id);
    expect(new Set(ids).size).toBe(16);
    expect(ids).toHaveLength(16);
  });

  it("hold no message, address or provider's words: a thin payload", async () => {
    await created();
    await transmit();
    for (const message of receiver.received) {
      expect(Object.keys(JSON.parse(message.body).data).sort()).toEqual([
        "code",
        "document_id",
        "id",
        "kind",
        "occurred_at",
        "org_id",
        "sequence",
        "status",
        "type",
      ]);
    }
  });
});

describe("who reads an endpoint", () => {
  it("its org's admins, through RLS, every column but the secrets; nobody else", async () => {
    const { webhook_id } = await created();
    const read = (claims: Record<string, unknown>) =>
      asRole(
        db,
        "authenticated",
        claims,
        "select id, url, enabled, disabled_reason from public.webhook_endpoints",
      );
    expect(await read(tenant.admin.claims)).toEqual([
      { id: webhook_id, url: `${HOOKS}/in`, enabled: true, disabled_reason: null },
    ]);
    expect(await read(tenant.operador.claims)).toEqual([]);
    expect(await read(tenant.lector.claims)).toEqual([]);
    const secret = asRole(
      db,
      "authenticated",
      tenant.admin.claims,
      "select secret_ciphertext from public.webhook_endpoints",
    );
    await expect(secret).rejects.toMatchObject({ code: "42501" });
  });
});
