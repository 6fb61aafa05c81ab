/**
 * The client's Idempotency-Key and retries (client/invoke.ts, client/retry.ts) with the real
 * supabase-js over a scripted fetch, on fake timers: a key made for every call and reused by every
 * retry, waits that honour Retry-After (seconds or a date) and back off exponentially, no retry of a
 * final answer, a cap on tries and waits, and what the answer's headers say.
 */
import { createClient } from "@supabase/supabase-js";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createEinvoicingClient, type EinvoicingError, isEinvoicingError } from "../../client/index.ts";
import type { RetryOptions } from "../../client/retry.ts";

const body = { org_id: crypto.randomUUID(), invoice_ids: [crypto.randomUUID()] };
const json = (status: number, payload: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(payload), {
    status,
    headers: { "content-type": "application/json", "x-request-id": "req-1", ...headers },
  });
const apiError = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(status, { error: { code, message: `${code}.`, request_id: "req-1" } }, headers);
const noAnswer = () => Promise.reject(new TypeError("fetch failed"));

/** A client whose fetch answers `script` in order (the last one again after), recording each request. */
function scripted(script: (() => Response | Promise<Response>)[], retry?: RetryOptions | false) {
  const sent: { url: string; key: string | null }[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    sent.push({ url: String(input), key: new Headers(init?.headers).get("Idempotency-Key") });
    const next = script[Math.min(sent.length, script.length) - 1];
    if (!next) throw new Error("nothing scripted");
    return next();
  }) as typeof globalThis.fetch;
  const supabase = createClient("http://127.0.0.1:9", "sb_publishable_x", {
    accessToken: async () => "token",
    global: { fetch },
  });
  return { einvoicing: createEinvoicingClient(supabase, retry === undefined ? {} : { retry }), sent };
}

/** Settles `promise` while the fake clock runs; what it rejected with. */
async function rejection(promise: Promise<unknown>): Promise<EinvoicingError> {
  const settled = promise.then(
    () => {
      throw new Error("resolved");
    },
    (error: unknown) => error,
  );
  await vi.runAllTimersAsync();
  const error = await settled;
  if (!isEinvoicingError(error)) throw error;
  return error;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  vi.setSystemTime(new Date("2030-01-01T00:00:00Z"));
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("the Idempotency-Key of a call", () => {
  it("is made for every call, one per call, and reused by each retry after no answer", async () => {
    const { einvoicing, sent } = scripted([noAnswer, noAnswer, () => json(200, { results: [] })]);
    const answered = einvoicing.transmit(body, { withMeta: true });
    await vi.runAllTimersAsync();
    const { data, idempotency_key } = await answered;
    expect(data).toEqual({ results: [] });
    expect(sent).toHaveLength(3);
    expect(idempotency_key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(sent.map((request) => request.key)).toEqual([idempotency_key, idempotency_key, idempotency_key]);

    const next = einvoicing.refresh({ org_id: body.org_id, invoice_id: crypto.randomUUID() });
    await vi.runAllTimersAsync();
    await next;
    expect(sent[3]?.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[3]?.key).not.toBe(idempotency_key);
  });

  it("is the caller's when given, on every try, and on the error when the tries run out", async () => {
    const { einvoicing, sent } = scripted([
      () => apiError(503, "database_unavailable", { "retry-after": "1" }),
    ]);
    const error = await rejection(
      einvoicing.deliver({ org_id: body.org_id, invoice_id: "i" }, { idempotencyKey: "k-1" }),
    );
    expect(sent.map((request) => request.key)).toEqual(["k-1", "k-1", "k-1"]);
    expect(error).toMatchObject({
      code: "database_unavailable",
      status: 503,
      idempotency_key: "k-1",
      route: "deliver",
    });
  });
});

describe("retries", () => {
  it("wait the Retry-After seconds of a 429 before trying again, not less", async () => {
    const { einvoicing, sent } = scripted([
      () => apiError(429, "rate_limited", { "retry-after": "3" }),
      () => json(200, { results: [] }),
    ]);
    const answered = einvoicing.transmit(body);
    await vi.advanceTimersByTimeAsync(2_999);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toHaveLength(2);
    expect(await answered).toEqual({ results: [] });
  });

  it("wait until a Retry-After date", async () => {
    const { einvoicing, sent } = scripted([
      () =>
        apiError(503, "service_unavailable", { "retry-after": new Date(Date.now() + 5_000).toUTCString() }),
      () => json(200, { results: [] }),
    ]);
    const answered = einvoicing.transmit(body);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await answered).toEqual({ results: [] });
  });

  it("back off exponentially without Retry-After, between half and all of each step", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0);
    const { einvoicing, sent } = scripted([noAnswer], { attempts: 4, baseDelayMs: 1_000 });
    const failed = einvoicing.transmit(body).catch((error: unknown) => error);
    const triesAt = async (ms: number) => {
      await vi.advanceTimersByTimeAsync(ms);
      return sent.length;
    };
    // waits of 500, 1000 and 2000 ms: half of 1, 2 and 4 s
    expect([
      await triesAt(499),
      await triesAt(1),
      await triesAt(999),
      await triesAt(1),
      await triesAt(1_999),
    ]).toEqual([1, 2, 2, 3, 3]);
    await triesAt(1);
    expect(await failed).toMatchObject({ code: "network_error", status: 0 });
    expect(sent).toHaveLength(4);
  });

  it("follow an idempotency_conflict only after a try that got no answer: that try is still running", async () => {
    const { einvoicing, sent } = scripted([
      noAnswer,
      () => apiError(409, "idempotency_conflict"),
      () => json(200, { results: [] }, { "Idempotent-Replayed": "true" }),
    ]);
    const answered = einvoicing.transmit(body, { withMeta: true });
    await vi.runAllTimersAsync();
    expect(await answered).toMatchObject({ data: { results: [] }, replayed: true });
    expect(new Set(sent.map((request) => request.key)).size).toBe(1);
    expect(sent).toHaveLength(3);
  });

  it("give up after the set number of tries with the last error", async () => {
    const { einvoicing, sent } = scripted(
      [
        () => apiError(503, "service_unavailable"),
        () => apiError(429, "rate_limited", { "retry-after": "1" }),
      ],
      { attempts: 5 },
    );
    const error = await rejection(einvoicing.transmit(body));
    expect(sent).toHaveLength(5);
    expect(error).toMatchObject({ code: "rate_limited", status: 429, retry_after: 1 });
  });

  it("do not wait for a Retry-After beyond the longest wait: the error says when to come back", async () => {
    const { einvoicing, sent } = scripted([() => apiError(429, "rate_limited", { "retry-after": "3600" })]);
    const error = await rejection(einvoicing.deliver({ org_id: body.org_id, invoice_id: "i" }));
    expect(sent).toHaveLength(1);
    expect(error).toMatchObject({ code: "rate_limited", retry_after: 3600 });
  });

  it.each([
    [400, "validation_failed"],
    [401, "unauthenticated"],
    [404, "not_found"],
    [409, "idempotency_conflict"],
    [422, "business_rule"],
    [500, "internal_error"],
    [502, "provider_error"],
    [504, "provider_timeout"],
  ])("never follow a %i (%s): it is the answer", async (status, code) => {
    const { einvoicing, sent } = scripted([() => apiError(status, code), () => json(200, { results: [] })]);
    const error = await rejection(einvoicing.transmit(body));
    expect(sent).toHaveLength(1);
    expect({ code: error.code, status: error.status }).toEqual({ code, status });
  });

  it("are off with `retry: false`, for the client or for one call, and set per call", async () => {
    const off = scripted([noAnswer], false);
    await rejection(off.einvoicing.transmit(body));
    expect(off.sent).toHaveLength(1);
    const on = scripted([noAnswer]);
    await rejection(on.einvoicing.transmit(body, { retry: false }));
    expect(on.sent).toHaveLength(1);
    await rejection(on.einvoicing.transmit(body, { retry: { attempts: 2 } }));
    expect(on.sent).toHaveLength(3);
  });

  it("keep within bounds whatever the caller sets", async () => {
    const { einvoicing, sent } = scripted([noAnswer], {
      attempts: 1e9,
      baseDelayMs: -1,
      maxDelayMs: Number.NaN,
    });
    await rejection(einvoicing.transmit(body));
    expect(sent).toHaveLength(10);
  });
});

describe("what the answer says besides its body", () => {
  it("tells a replayed answer from a first one with `withMeta`, and a replayed error", async () => {
    const { einvoicing } = scripted([
      () => json(200, { results: [] }, { "Idempotent-Replayed": "true" }),
      () => json(200, { results: [] }),
      () => apiError(422, "business_rule", { "Idempotent-Replayed": "true" }),
    ]);
    expect(await einvoicing.transmit(body, { withMeta: true })).toMatchObject({
      replayed: true,
      request_id: "req-1",
    });
    expect(await einvoicing.transmit(body, { withMeta: true })).toMatchObject({ replayed: false });
    expect(await rejection(einvoicing.transmit(body))).toMatchObject({
      code: "business_rule",
      replayed: true,
    });
  });

  it("names the route on the error, so isEinvoicingError(error, method) narrows only that method's", async () => {
    const { einvoicing } = scripted([() => apiError(409, "invalid_state")]);
    const error = await rejection(
      einvoicing.creditNotes.reissue({ org_id: body.org_id, credit_note_id: "n" }),
    );
    expect(isEinvoicingError(error, "creditNotes.reissue")).toBe(true);
    expect(isEinvoicingError(error, "transmit")).toBe(false);
    expect(isEinvoicingError(new Error("other"))).toBe(false);
  });
});
