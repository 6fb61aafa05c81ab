/**
 * Which answers an `Idempotency-Key` keeps and replays (shared/http/idempotency.ts), through the
 * real pipeline and database, with a probe route built with `operation()` whose handler answers or
 * fails as each test says and counts its runs.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { TestApp } from "../../devkit/app.ts";
import type { TestDatabase } from "../../devkit/database.ts";
import type { Tenant } from "../../devkit/factories.ts";
import { orgScoped } from "../../shared/http/route.ts";
import { ApiError, type ErrorCode } from "../../shared/kernel/errors.ts";
import { mountProbe, type Probe } from "../support/probe-route.ts";
import { openRouteSuite } from "../support/route-suite.ts";

const REPLAYED = "idempotent-replayed";

let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;
let token: string;
let route: Probe;

/** What the probe's handler does on its next runs, and how often it ran. */
const probe = {
  runs: 0,
  answer: (): { run: number; text: string } => ({ run: probe.runs, text: "ok" }),
};

beforeAll(async () => {
  ({ db, t, tenant, token } = await openRouteSuite());
  route = mountProbe(t, {
    input: orgScoped.extend({ body: z.unknown().optional() }),
    output: z.object({ run: z.number(), text: z.string() }),
    errors: [
      "validation_failed",
      "business_rule",
      "provider_error",
      "provider_timeout",
      "database_unavailable",
    ],
    handle: async () => {
      probe.runs++;
      return probe.answer();
    },
  });
});
afterAll(() => db?.close());
beforeEach(() => {
  probe.runs = 0;
  probe.answer = () => ({ run: probe.runs, text: "ok" });
});

const newKey = () => `key-${crypto.randomUUID()}`;
const call = (key: string, body: unknown = { org_id: tenant.org.id }) =>
  route.post(token, body, { "idempotency-key": key });
const failWith = (code: ErrorCode, details?: { field: string; message: string }[]) => () => {
  throw new ApiError(code, `failed with ${code}`, details ? { details } : {});
};
const logged = (msg: string) => t.logs.filter((line) => JSON.parse(line).msg === msg);

describe("a 5xx is never replayed", () => {
  it.each([
    ["internal_error", 500],
    ["provider_error", 502],
    ["database_unavailable", 503],
    ["provider_timeout", 504],
  ] as const)("after %s (%i) the retry runs the handler again", async (code, status) => {
    const key = newKey();
    probe.answer = failWith(code);
    expect((await call(key)).status).toBe(status);
    probe.answer = () => ({ run: probe.runs, text: "ok" });
    const retry = await call(key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get(REPLAYED)).toBeNull();
    expect(await retry.json()).toEqual({ run: 2, text: "ok" });
  });
});

describe("a kept 2xx", () => {
  it("is replayed exactly as it was, an `error` member in it included (no request id is added)", async () => {
    // a 200 may well carry an `error` member (a batch's answer about one of its documents)
    const answer = { results: 1, error: { code: "partly", message: "one document failed" } };
    const batch = mountProbe(t, {
      input: orgScoped,
      output: z.object({
        results: z.number(),
        error: z.object({ code: z.string(), message: z.string() }),
      }),
      errors: [],
      handle: async () => answer,
    });
    const key = newKey();
    const headers = { "idempotency-key": key };
    expect(await (await batch.post(token, { org_id: tenant.org.id }, headers)).json()).toEqual(answer);
    const replay = await batch.post(token, { org_id: tenant.org.id }, headers);
    expect(replay.status).toBe(200);
    expect(replay.headers.get(REPLAYED)).toBe("true");
    expect(await replay.json()).toEqual(answer);
  });
});

describe("a kept 4xx", () => {
  it("is replayed with its details, under the replay's own request id, without running again", async () => {
    const key = newKey();
    const details = [{ field: "body", message: "is not what the rule wants" }];
    probe.answer = failWith("business_rule", details);
    const first = await call(key);
    expect(first.status).toBe(422);
    expect(first.headers.get(REPLAYED)).toBeNull();
    const replay = await call(key);
    expect(replay.status).toBe(422);
    expect(replay.headers.get(REPLAYED)).toBe("true");
    const requestId = replay.headers.get("x-request-id");
    expect(requestId).not.toBe(first.headers.get("x-request-id"));
    expect(await replay.json()).toEqual({
      error: { code: "business_rule", message: "failed with business_rule", details, request_id: requestId },
    });
    expect(probe.runs).toBe(1);
    expect(logged("idempotent answer replayed").at(-1)).toMatch(/"status":422/);
  });

  it("a 400 is kept and replayed too, with no details when it had none", async () => {
    const key = newKey();
    probe.answer = failWith("validation_failed");
    expect((await call(key)).status).toBe(400);
    const replay = await call(key);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toEqual({
      error: {
        code: "validation_failed",
        message: "failed with validation_failed",
        request_id: replay.headers.get("x-request-id"),
      },
    });
    expect(probe.runs).toBe(1);
  });
});

describe("the body a key is bound to", () => {
  it("is the same with its keys in another order at any depth; another value is a conflict", async () => {
    const key = newKey();
    const body = { a: [{ y: 1, x: { q: true, p: null } }, "s"], b: { d: 2, c: [3, 4] } };
    expect((await call(key, { org_id: tenant.org.id, body })).status).toBe(200);
    const reordered = `{"body":{"b":{"c":[3,4],"d":2},"a":[{"x":{"p":null,"q":true},"y":1},"s"]},"org_id":"${tenant.org.id}"}`;
    const replay = await call(key, reordered);
    expect(replay.headers.get(REPLAYED)).toBe("true");
    expect(await replay.json()).toEqual({ run: 1, text: "ok" });
    const changed = { ...body, a: [{ y: 1, x: { q: false, p: null } }, "s"] };
    const conflict = await call(key, { org_id: tenant.org.id, body: changed });
    expect(conflict.status).toBe(409);
    expect((await conflict.json()).error.message).toBe(
      "This Idempotency-Key was already used on this route with a different body; use a new key for a new request.",
    );
    expect(probe.runs).toBe(1);
  });
});

describe("an answer that cannot be kept", () => {
  it("is still given and the failure logged; the key stays taken until its lease ends, then a retry runs", async () => {
    const key = newKey();
    // PostgreSQL's jsonb cannot hold a NUL character: the answer is refused by the database
    probe.answer = () => ({ run: probe.runs, text: "a\u0000b" });
    const first = await call(key);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ run: 1, text: "a\u0000b" });
    expect(logged("could not keep or release an idempotency key").at(-1)).toMatch(/"status":200/);
    expect((await call(key)).status).toBe(409);
    await db.superuser(
      "update einv_private.idempotency_keys set lease_until = now() - interval '1 second' where key = $1",
      [key],
    );
    probe.answer = () => ({ run: probe.runs, text: "ok" });
    const retry = await call(key);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ run: 2, text: "ok" });
  });

  it("a normal answer is kept without a warning or an error logged", async () => {
    const before = t.logs.length;
    expect((await call(newKey())).status).toBe(200);
    const levels = t.logs.slice(before).map((line) => JSON.parse(line).level);
    expect(levels).not.toContain("warn");
    expect(levels).not.toContain("error");
  });
});
