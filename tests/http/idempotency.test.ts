/**
 * `Idempotency-Key` (DESIGN §4), through the real app and database: /deliver with the sandbox
 * deliver provider as the oracle of what was sent, and a probe route built with `operation()` on
 * the real pipeline, whose handler the tests count, hold, and make fail at will.
 */
import { createHash, createHmac } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { TEST_API_KEY, type TestApp } from "../../devkit/app.ts";
import type { TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import { createApp } from "../../functions/einvoicing/app.ts";
import { createSandboxDeliver, type SandboxDeliver } from "../../sandbox/index.ts";
import { canonicalJson } from "../../shared/http/idempotency.ts";
import { MAX_BODY_DEPTH } from "../../shared/http/middleware.ts";
import { orgScoped } from "../../shared/http/route.ts";
import { ApiError } from "../../shared/kernel/errors.ts";
import { mountProbe, type Probe } from "../support/probe-route.ts";
import { openRouteSuite, sandboxProviders, saveRouterCredentials } from "../support/route-suite.ts";

const REPLAYED = "idempotent-replayed";

let db: TestDatabase;
let t: TestApp;
let mail: SandboxDeliver;
let tenant: Tenant;
let other: Tenant;
let token: string;
let route: Probe;

/** What the probe route's handler does next, and how often it ran. */
const probe = {
  runs: 0,
  mode: "ok" as "ok" | "crash" | "rate_limited" | "hold",
  release: () => {},
};

beforeAll(async () => {
  mail = createSandboxDeliver();
  ({ db, t, tenant, token } = await openRouteSuite({
    env: { EINV_PROVIDER_TIMEOUT_MS: "5000" },
    providerFetch: sandboxProviders({ deliver: mail }),
    credentials: "router",
  }));
  other = await createTenant(db);
  await saveRouterCredentials(t, other);

  route = mountProbe(t, {
    // `extra`: whatever a test sends besides, to vary the body (every body is strict)
    input: orgScoped.extend({ n: z.number(), extra: z.unknown().optional() }),
    output: z.object({ n: z.number(), run: z.number() }),
    errors: ["rate_limited", "business_rule"],
    handle: async (input) => {
      const run = ++probe.runs;
      if (probe.mode === "hold") await new Promise<void>((resolve) => (probe.release = resolve));
      if (probe.mode === "crash") throw new TypeError("the handler crashed");
      if (probe.mode === "rate_limited") throw new ApiError("rate_limited", "Slow down.");
      return { n: input.n, run };
    },
  });
});
afterAll(() => db?.close());
beforeEach(() => {
  mail.reset();
  probe.runs = 0;
  probe.mode = "ok";
});

const newKey = () => `key-${crypto.randomUUID()}`;
const withKey = (key: string) => ({ "idempotency-key": key });

const deliver = (invoice: Invoice, key: string, extra: Record<string, unknown> = {}, as = token) =>
  t.post("/deliver", { org_id: invoice.orgId, invoice_id: invoice.id, ...extra }, as, withKey(key));

const callProbe = (key: string | undefined, body: unknown = { org_id: tenant.org.id, n: 1 }) =>
  route.post(token, body, key === undefined ? {} : withKey(key));

/** An invoice transmitted through the sandbox, which then hands /deliver its AttachedDocument. */
async function transmitted(of: Tenant = tenant): Promise<Invoice> {
  const invoice = await createInvoice(db, of.org, of.company);
  const body = { org_id: of.org.id, invoice_ids: [invoice.id] };
  const sent = await t.post("/transmit", body, await t.token(of.operador));
  expect((await sent.json()).results[0].status).toBe("transmitida");
  return invoice;
}

const deliveriesOf = async (invoice: Invoice) =>
  db.superuser<{ status: string }>(
    "select status from deliveries where document_id = $1 order by created_at",
    [invoice.id],
  );

const rowsOf = (key: string) =>
  db.superuser<{ org_id: string; route: string; state: string; status: number | null }>(
    "select org_id, route, state, status from einv_private.idempotency_keys where key = $1 order by route",
    [key],
  );

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("condition not reached in time");
}

describe("a retry with the same key and body", () => {
  it("replays the first /deliver answer, status and body, and e-mails once", async () => {
    const invoice = await transmitted();
    const key = `retry-'"\\-${crypto.randomUUID()}`; // quotes and a backslash travel intact
    const first = await deliver(invoice, key);
    expect(first.status).toBe(200);
    expect(first.headers.get(REPLAYED)).toBeNull();
    const answer = await first.json();
    expect(answer.status).toBe("enviada");

    const again = await deliver(invoice, key);
    expect(again.status).toBe(200);
    expect(again.headers.get(REPLAYED)).toBe("true");
    expect(await again.json()).toEqual(answer);

    expect(mail.messages).toHaveLength(1);
    expect(await deliveriesOf(invoice)).toEqual([{ status: "enviada" }]);
    expect(await rowsOf(key)).toEqual([
      { org_id: tenant.org.id, route: "/einvoicing/deliver", state: "done", status: 200 },
    ]);
  });

  it("keeps the route as Supabase hands it, wherever a server mounts the app", async () => {
    const mounted = createApp(t.deps, { mountedAt: "/functions/v1" });
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const key = newKey();
    const send = () =>
      Promise.resolve(
        mounted.request("/functions/v1/einvoicing/transmit", {
          method: "POST",
          headers: {
            apikey: TEST_API_KEY,
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            ...withKey(key),
          },
          body: JSON.stringify({ org_id: tenant.org.id, invoice_ids: [invoice.id] }),
        }),
      );
    expect((await send()).status).toBe(200);
    expect(await rowsOf(key)).toEqual([
      { org_id: tenant.org.id, route: "/einvoicing/transmit", state: "done", status: 200 },
    ]);
    // the same key through the app mounted at the root is the same key
    const again = await t.post(
      "/transmit",
      { org_id: tenant.org.id, invoice_ids: [invoice.id] },
      token,
      withKey(key),
    );
    expect(again.headers.get(REPLAYED)).toBe("true");
  });

  it("counts a body with other spacing and key order as the same body", async () => {
    const invoice = await transmitted();
    const key = newKey();
    const first = await deliver(invoice, key);
    const reordered = `{ "invoice_id" : "${invoice.id}",\n  "org_id": "${tenant.org.id}" }`;
    const again = await t.post("/deliver", reordered, token, withKey(key));
    expect(again.headers.get(REPLAYED)).toBe("true");
    expect(await again.json()).toEqual(await first.json());
    expect(mail.messages).toHaveLength(1);
  });

  it("replays /transmit's first answer instead of running it again", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const key = newKey();
    const body = { org_id: tenant.org.id, invoice_ids: [invoice.id] };
    const first = await (await t.post("/transmit", body, token, withKey(key))).json();
    expect(first.results[0].status).toBe("transmitida");
    const again = await t.post("/transmit", body, token, withKey(key));
    expect(again.headers.get(REPLAYED)).toBe("true");
    // without the key, the second call says "already transmitted": this is the first answer
    expect(await again.json()).toEqual(first);
  });

  it("replays a final 4xx: the first answer stands even after the state changed", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const key = newKey();
    const first = await deliver(invoice, key);
    expect(first.status).toBe(409);
    const { error } = await first.json();
    expect(error.code).toBe("invalid_state");

    await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token);
    const again = await deliver(invoice, key);
    expect(again.status).toBe(409);
    expect(again.headers.get(REPLAYED)).toBe("true");
    const replayed = (await again.json()).error;
    expect(replayed).toEqual({ ...error, request_id: replayed.request_id });
    // the replay's error names this request, as its x-request-id does
    expect(replayed.request_id).toBe(again.headers.get("x-request-id"));
    expect(replayed.request_id).not.toBe(error.request_id);
    expect(mail.received).toHaveLength(0);
  });

  it("replays /credit-notes: the same note, and no second one", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const sent = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token);
    expect((await sent.json()).results[0].status).toBe("transmitida");
    const key = newKey();
    const body = {
      org_id: tenant.org.id,
      invoice_id: invoice.id,
      concept_code: "1",
      reason: "Devolución",
      line_ids: [invoice.lineIds[0]],
    };
    const first = await t.post("/credit-notes", body, token, withKey(key));
    expect(first.status).toBe(200);
    const note = await first.json();
    expect(note.credit_note_id).toMatch(/^[0-9a-f-]{36}$/);

    const again = await t.post("/credit-notes", body, token, withKey(key));
    expect(again.status).toBe(200);
    expect(again.headers.get(REPLAYED)).toBe("true");
    expect(await again.json()).toEqual(note);
    const other = await t.post(
      "/credit-notes",
      { ...body, line_ids: [invoice.lineIds[1]] },
      token,
      withKey(key),
    );
    expect(other.status).toBe(409);
    const notes = await db.superuser("select id from credit_notes where invoice_id = $1", [invoice.id]);
    expect(notes).toEqual([{ id: note.credit_note_id }]);
  });

  it("runs the handler once", async () => {
    const key = newKey();
    const first = await callProbe(key);
    const again = await callProbe(key);
    expect(await again.json()).toEqual(await first.json());
    expect(probe.runs).toBe(1);
  });
});

describe("409 idempotency_conflict", () => {
  it("for the same key with another body, sending nothing", async () => {
    const invoice = await transmitted();
    const key = newKey();
    expect((await deliver(invoice, key)).status).toBe(200);
    const response = await deliver(invoice, key, { to: "otra@cliente.test" });
    expect(response.status).toBe(409);
    expect(response.headers.get(REPLAYED)).toBeNull();
    const { error } = await response.json();
    expect(error.code).toBe("idempotency_conflict");
    expect(error.message).toMatch(/different body/);
    expect(mail.messages).toHaveLength(1);
    expect(await deliveriesOf(invoice)).toHaveLength(1);
  });

  it("while the first call is still running (held by a slow provider), and replays it once done", async () => {
    const invoice = await transmitted();
    const key = newKey();
    mail.setKnobs({ latencyMs: 1_500 });
    const first = deliver(invoice, key);
    await until(async () => (await rowsOf(key))[0]?.state === "running");

    const second = await deliver(invoice, key);
    expect(second.status).toBe(409);
    const { error } = await second.json();
    expect(error.code).toBe("idempotency_conflict");
    expect(error.message).toMatch(/still being processed/);

    const answer = await first;
    expect(answer.status).toBe(200);
    const third = await deliver(invoice, key);
    expect(third.headers.get(REPLAYED)).toBe("true");
    expect(await third.json()).toEqual(await answer.json());
    expect(mail.messages).toHaveLength(1);
    expect(await deliveriesOf(invoice)).toHaveLength(1);
  });
});

describe("keys are per organization and per route", () => {
  it("the same key on another route runs that route", async () => {
    const invoice = await transmitted();
    const key = newKey();
    expect((await deliver(invoice, key)).status).toBe(200);
    const refresh = await t.post(
      "/refresh",
      { org_id: tenant.org.id, invoice_id: invoice.id },
      token,
      withKey(key),
    );
    expect(refresh.status).toBe(200);
    expect(refresh.headers.get(REPLAYED)).toBeNull();
    expect(await refresh.json()).toMatchObject({ invoice_id: invoice.id, status: "transmitida" });
    expect((await rowsOf(key)).map((r) => r.route)).toEqual(["/einvoicing/deliver", "/einvoicing/refresh"]);
  });

  it("the same key in another organization runs there", async () => {
    const mine = await transmitted();
    const theirs = await transmitted(other);
    const key = newKey();
    expect((await deliver(mine, key)).status).toBe(200);
    const response = await deliver(theirs, key, {}, await t.token(other.operador));
    expect(response.status).toBe(200);
    expect(response.headers.get(REPLAYED)).toBeNull();
    expect((await response.json()).invoice_id).toBe(theirs.id);
    expect(mail.messages).toHaveLength(2);
  });
});

describe("what is not kept", () => {
  it("a provider failure (502) releases the key: the retry runs and sends", async () => {
    const invoice = await transmitted();
    const key = newKey();
    mail.setKnobs({ failNext: [{ kind: "error" }] });
    const failed = await deliver(invoice, key);
    expect(failed.status).toBe(502);
    expect(await rowsOf(key)).toEqual([]);

    const retry = await deliver(invoice, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get(REPLAYED)).toBeNull();
    expect((await retry.json()).status).toBe("enviada");
    expect(mail.messages).toHaveLength(1);
    expect(await deliveriesOf(invoice)).toEqual([{ status: "error" }, { status: "enviada" }]);
  });

  it("a retry of /deliver after the provider took the message but garbled its answer e-mails once", async () => {
    const invoice = await transmitted();
    const key = newKey();
    mail.setKnobs({ failNext: [{ kind: "malformed", on: "send" }] });
    const failed = await deliver(invoice, key);
    expect(failed.status).toBe(502);
    expect(mail.messages).toHaveLength(1); // it went out; the answer did not come back
    const retry = await deliver(invoice, key);
    expect(retry.status).toBe(200);
    expect((await retry.json()).status).toBe("enviada");
    // the same provider reference and key: the provider answers from its store, sends nothing more
    expect(mail.messages).toHaveLength(1);
  });

  it("a key released by a 502 and reused for another address sends a new package there, under its own reference", async () => {
    const invoice = await transmitted();
    const key = newKey();
    mail.setKnobs({ failNext: [{ kind: "malformed", on: "send" }] });
    expect((await deliver(invoice, key, { to: "a@cliente.test" })).status).toBe(502);
    const other = await deliver(invoice, key, { to: "b@cliente.test" });
    expect(other.status).toBe(200);
    expect((await other.json()).status).toBe("enviada");
    const [toA, toB] = mail.messages;
    expect([toA?.to, toB?.to]).toEqual([["a@cliente.test"], ["b@cliente.test"]]);
    expect(toB?.reference).not.toBe(toA?.reference);
    expect(toB?.attachments[0]?.filename).not.toBe(toA?.attachments[0]?.filename);
    const rows = await db.superuser<{ recipient: string; attempt: number; retry_of: string | null }>(
      "select recipient, attempt, retry_of from deliveries where document_id = $1 order by created_at",
      [invoice.id],
    );
    expect(rows).toEqual([
      { recipient: "a@cliente.test", attempt: 1, retry_of: null },
      { recipient: "b@cliente.test", attempt: 1, retry_of: null },
    ]);
  });

  it("a crash (500) and a rate limit (429) release the key", async () => {
    const key = newKey();
    probe.mode = "crash";
    expect((await callProbe(key)).status).toBe(500);
    probe.mode = "rate_limited";
    expect((await callProbe(key)).status).toBe(429);
    probe.mode = "ok";
    const retry = await callProbe(key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get(REPLAYED)).toBeNull();
    expect(await retry.json()).toEqual({ n: 1, run: 3 });
  });

  it("a 409 that passes by itself (a transmission holds the invoice) releases the key; other 409s are kept", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "en_proceso" });
    await db.superuser("update invoices set lease_until = now() + interval '1 minute' where id = $1", [
      invoice.id,
    ]);
    const key = newKey();
    const refresh = () =>
      t.post("/refresh", { org_id: tenant.org.id, invoice_id: invoice.id }, token, withKey(key));
    const busy = await refresh();
    expect(busy.status).toBe(409);
    expect((await busy.json()).error.message).toMatch(/try again shortly/);
    expect(await rowsOf(key)).toEqual([]);
    // never sent: a 409 that stands, and is kept
    const draft = await createInvoice(db, tenant.org, tenant.company);
    const other = newKey();
    const never = await t.post(
      "/refresh",
      { org_id: tenant.org.id, invoice_id: draft.id },
      token,
      withKey(other),
    );
    expect(never.status).toBe(409);
    expect(await rowsOf(other)).toMatchObject([{ state: "done", status: 409 }]);
  });

  it("a call without the header: nothing is stored and every call runs", async () => {
    const count = async () =>
      (await db.superuser<{ n: number }>("select count(*)::int as n from einv_private.idempotency_keys"))[0]
        ?.n;
    const before = await count();
    await callProbe(undefined);
    await callProbe(undefined);
    expect(probe.runs).toBe(2);
    expect(await count()).toBe(before);
  });
});

describe("the body a key is bound to", () => {
  it("is kept only as a digest under the server's secret, which no one without it can test a guess against", async () => {
    const key = newKey();
    const body = { org_id: tenant.org.id, n: 4_321 };
    expect((await callProbe(key, body)).status).toBe(200);
    const [row] = await db.superuser<{ request_hash: string }>(
      "select request_hash from einv_private.idempotency_keys where key = $1",
      [key],
    );
    const text = canonicalJson(body);
    expect(row?.request_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.request_hash).not.toBe(createHash("sha256").update(text).digest("hex"));
    expect(row?.request_hash).not.toBe(createHmac("sha256", "").update(text).digest("hex"));
  });
});

describe("the header", () => {
  it.each([
    ["empty", ""],
    ["256 characters", "k".repeat(256)],
    ["not ASCII", "clé-1"],
    ["with a control character", "key\tone"],
  ])("answers 400 validation_failed naming the header when it is %s, storing nothing", async (_, key) => {
    const response = await callProbe(key);
    expect(response.status).toBe(400);
    const { error } = await response.json();
    expect(error.code).toBe("validation_failed");
    expect(error.message).toBe("The Idempotency-Key header is not valid.");
    expect(error.details).toEqual([
      { field: "Idempotency-Key", message: "must be 1 to 255 printable ASCII characters" },
    ]);
    expect(probe.runs).toBe(0);
    expect(await rowsOf(key)).toEqual([]);
  });

  it("accepts 1 and 255 printable characters, spaces and symbols included", async () => {
    for (const key of ["k", `${"~".repeat(127)} ${"!".repeat(127)}`]) {
      expect((await callProbe(key)).status).toBe(200);
      expect(await rowsOf(key)).toHaveLength(1);
    }
  });

  it("is allowed by CORS, and the replay header is exposed", async () => {
    const preflight = await t.app.request("/einvoicing/deliver", {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "idempotency-key",
      },
    });
    expect(preflight.headers.get("access-control-allow-headers")).toMatch(/idempotency-key/i);
    const response = await t.post("/deliver", {}, token, { origin: "https://app.example" });
    expect(response.headers.get("access-control-expose-headers")).toMatch(/idempotent-replayed/i);
  });

  it("hashes a body nested as deep as a body may be; a deeper one is refused before any key is kept", async () => {
    const nested = (depth: number) =>
      `{"org_id":"${tenant.org.id}","n":1,"extra":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    const key = newKey();
    const deepest = nested(MAX_BODY_DEPTH - 1);
    expect((await callProbe(key, deepest)).status).toBe(200);
    expect((await callProbe(key, deepest)).headers.get(REPLAYED)).toBe("true");
    expect(probe.runs).toBe(1);
    const tooDeep = newKey();
    const refused = await callProbe(tooDeep, nested(20_000));
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.details[0].message).toMatch(/nested deeper than/);
    expect(await rowsOf(tooDeep)).toEqual([]);
  });
});

describe("who may use a key", () => {
  it("a stranger to the organization gets 403 before any key is stored; the member's call then runs", async () => {
    const invoice = await transmitted();
    const key = newKey();
    for (const outsider of [other.admin, tenant.lector]) {
      const response = await deliver(invoice, key, {}, await t.token(outsider));
      expect(response.status).toBe(403);
    }
    expect(await rowsOf(key)).toEqual([]);
    const response = await deliver(invoice, key);
    expect(response.status).toBe(200);
    expect(response.headers.get(REPLAYED)).toBeNull();
    expect(mail.messages).toHaveLength(1);
  });

  it("an invalid body stores nothing", async () => {
    const key = newKey();
    expect((await callProbe(key, { org_id: tenant.org.id, n: "one" })).status).toBe(400);
    expect(await rowsOf(key)).toEqual([]);
  });
});

describe("time", () => {
  it("forgets an answer after 24 hours: the same key runs again", async () => {
    const invoice = await transmitted();
    const key = newKey();
    expect((await deliver(invoice, key)).status).toBe(200);
    const [kept] = await db.superuser<{ hours: number }>(
      `select round(extract(epoch from expires_at - now()) / 3600)::int as hours
         from einv_private.idempotency_keys where key = $1`,
      [key],
    );
    expect(kept?.hours).toBe(24);
    await db.superuser(
      `update einv_private.idempotency_keys
          set created_at = created_at - interval '24 hours 1 second',
              expires_at = expires_at - interval '24 hours 1 second'
        where key = $1`,
      [key],
    );
    // and the delivery is 24 hours old too (else a repeat within the minute answers it: deliver-limits.test.ts)
    await db.superuser("alter table deliveries disable trigger deliveries_touch");
    await db.superuser(
      `update deliveries set created_at = created_at - interval '24 hours 1 second',
              updated_at = updated_at - interval '24 hours 1 second' where document_id = $1`,
      [invoice.id],
    );
    await db.superuser("alter table deliveries enable trigger deliveries_touch");
    // older expired keys first, so the call's own clean-up (a few per call) does not reach this one
    await db.superuser(
      `insert into einv_private.idempotency_keys
         (org_id, route, key, request_hash, state, claim_id, status, response, created_at, expires_at)
       select $1, '/einvoicing/filler', 'old-' || g, repeat('0', 64), 'done', gen_random_uuid(), 200, '{}',
              now() - interval '3 days', now() - interval '2 days'
         from generate_series(1, 20) g`,
      [other.org.id],
    );
    const again = await deliver(invoice, key);
    expect(again.status).toBe(200);
    expect(again.headers.get(REPLAYED)).toBeNull();
    // the handler ran again (a second delivery); the provider, asked under the reference the
    // request's key derives, answers from its own store: keys are for one intent, not reused
    expect(await deliveriesOf(invoice)).toEqual([{ status: "enviada" }, { status: "enviada" }]);
    expect(mail.messages).toHaveLength(1);
    expect(await rowsOf(key)).toEqual([
      { org_id: tenant.org.id, route: "/einvoicing/deliver", state: "done", status: 200 },
    ]);
    await db.superuser("delete from einv_private.idempotency_keys where route = '/einvoicing/filler'");
  });

  it("lets a retry take over a key whose holder's lease ran out; the late holder changes nothing", async () => {
    const key = newKey();
    const logsBefore = t.logs.length;
    probe.mode = "hold";
    const stuck = callProbe(key);
    await until(async () => probe.runs === 1);
    expect((await callProbe(key)).status).toBe(409); // in flight, lease alive

    await db.superuser(
      "update einv_private.idempotency_keys set lease_until = now() - interval '1 second' where key = $1",
      [key],
    );
    // another body is still a conflict, even on a dead lease
    expect((await callProbe(key, { org_id: tenant.org.id, n: 2 })).status).toBe(409);
    const release = probe.release;
    probe.mode = "ok";
    const takeover = await callProbe(key);
    expect(takeover.status).toBe(200);
    const taken = await takeover.json();
    expect(taken).toEqual({ n: 1, run: 2 });

    release(); // the first holder answers late: its answer is not kept over the successor's
    expect((await (await stuck).json()).run).toBe(1);
    const replay = await callProbe(key);
    expect(replay.headers.get(REPLAYED)).toBe("true");
    expect(await replay.json()).toEqual(taken);
    // the late holder's answer, not kept, is told of as a warning with its status
    expect(
      t.logs
        .slice(logsBefore)
        .map((l) => JSON.parse(l))
        .filter((l) => l.msg === "idempotency key was taken over before its answer"),
    ).toEqual([expect.objectContaining({ level: "warn", status: 200 })]);
  });

  it("deletes a few expired keys of any organization on each call", async () => {
    await db.superuser(
      `insert into einv_private.idempotency_keys
         (org_id, route, key, request_hash, state, claim_id, status, response, created_at, expires_at)
       select $1, '/einvoicing/old', 'old-' || g, repeat('0', 64), 'done', gen_random_uuid(), 200, '{}',
              now() - interval '2 days', now() - interval '1 day'
         from generate_series(1, 15) g`,
      [other.org.id],
    );
    const expired = async () =>
      (
        await db.superuser<{ n: number }>(
          "select count(*)::int as n from einv_private.idempotency_keys where expires_at <= now()",
        )
      )[0]?.n;
    expect(await expired()).toBe(15);
    await callProbe(newKey());
    expect(await expired()).toBe(5);
    await callProbe(newKey());
    expect(await expired()).toBe(0);
  });
});
