/**
 * The pipeline's guards (shared/http/middleware.ts) at their edges, on the real pipeline with a
 * route that echoes what reached it: which `apikey`, `Authorization`, `Content-Type` and
 * `x-request-id` values pass, and the body limit at its exact boundary, declared or streamed.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, TEST_API_KEY, TEST_URL, type TestApp } from "../../devkit/app.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createUser } from "../../devkit/factories.ts";
import { createPipeline } from "../../functions/einvoicing/app.ts";
import { createTokenVerifier } from "../../shared/auth/jwt.ts";
import { timingSafeEqual } from "../../shared/http/middleware.ts";
import { streamed } from "../support/streamed.ts";

const LIMIT = 1024;
const SECOND_KEY = "sb_publishable_second";

let db: TestDatabase;
let t: TestApp;
let pipeline: ReturnType<typeof createPipeline>;
let token: string;
let userId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  t = await createTestApp(db, {
    env: {
      EINV_MAX_BODY_BYTES: String(LIMIT),
      SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: TEST_API_KEY, web: SECOND_KEY }),
    },
  });
  pipeline = createPipeline(t.deps);
  pipeline.post("/echo", (c) =>
    c.json({ body: c.get("body"), sub: c.get("caller").claims.sub, request_id: c.get("requestId") }),
  );
  pipeline.post("/slow", async (c) => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    return c.json({});
  });
  const user = await createUser(db);
  userId = user.id;
  token = await t.token(user);
});
afterAll(() => db?.close());

interface Call {
  headers?: Record<string, string>;
  body?: BodyInit | null;
  path?: string;
  method?: string;
}

function call({
  headers = {},
  body = "{}",
  path = "/einvoicing/echo",
  method = "POST",
}: Call = {}): Promise<Response> {
  return Promise.resolve(
    pipeline.request(path, {
      method,
      headers: {
        apikey: TEST_API_KEY,
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        ...headers,
      },
      body,
      ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
    } as RequestInit),
  );
}

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await response.json()) as { error?: { code: string; message: string } };
  return { status: response.status, code: body.error?.code ?? "(none)", message: body.error?.message ?? "" };
}

/** A JSON object of exactly `size` bytes (UTF-8). */
function jsonOfSize(size: number, fill = "x"): string {
  const bare = JSON.stringify({ pad: "" });
  const fillBytes = new TextEncoder().encode(fill).length;
  const room = size - bare.length;
  const text = JSON.stringify({
    pad: fill.repeat(Math.floor(room / fillBytes)) + "y".repeat(room % fillBytes),
  });
  expect(new TextEncoder().encode(text).length).toBe(size);
  return text;
}

describe("apikey", () => {
  it("accepts each of the deployment's publishable keys", async () => {
    for (const apikey of [TEST_API_KEY, SECOND_KEY]) {
      expect((await call({ headers: { apikey } })).status).toBe(200);
    }
  });

  it.each([
    ["of the same length, one character off at the end", `${TEST_API_KEY.slice(0, -1)}X`],
    ["of the same length, one character off at the start", `X${TEST_API_KEY.slice(1)}`],
    ["that is a prefix of a real one", TEST_API_KEY.slice(0, -1)],
    ["that extends a real one", `${TEST_API_KEY}t`],
    ["that is a real one twice", TEST_API_KEY + TEST_API_KEY],
  ])("refuses a key %s", async (_what, apikey) => {
    expect(await errorOf(await call({ headers: { apikey } }))).toEqual({
      status: 401,
      code: "unauthenticated",
      message: "Invalid apikey header.",
    });
  });

  it("says when the header is missing or empty", async () => {
    expect((await errorOf(await call({ headers: { apikey: "" } }))).message).toBe("Missing apikey header.");
  });

  it("is compared in constant time, with the same answers as ===", () => {
    const cases: [string, string][] = [
      ["abc", "abc"],
      ["abc", "abd"],
      ["abc", "xbc"],
      ["abc", "ab"],
      ["ab", "abab"],
      ["", ""],
      ["", "a"],
      ["é", "e\u0301"],
      ["sb_publishable_test", "sb_publishable_tesu"],
    ];
    for (const [a, b] of cases) {
      expect(timingSafeEqual(a, b)).toBe(a === b);
      expect(timingSafeEqual(b, a)).toBe(a === b);
    }
  });
});

describe("Authorization", () => {
  it.each([
    ["Bearer <token>", (tk: string) => `Bearer ${tk}`],
    ["bearer in lower case", (tk: string) => `bearer ${tk}`],
    ["several spaces", (tk: string) => `Bearer   ${tk}`],
    ["a tab", (tk: string) => `Bearer\t${tk}`],
  ])("accepts %s", async (_what, header) => {
    const response = await call({ headers: { authorization: header(token) } });
    expect(response.status).toBe(200);
    expect((await response.json()).sub).toBe(userId);
  });

  it.each([
    ["another scheme", (tk: string) => `Token ${tk}`],
    ["text before the scheme", (tk: string) => `xBearer ${tk}`],
    ["text after the token", (tk: string) => `Bearer ${tk} extra`],
    ["no space", (tk: string) => `Bearer${tk}`],
    ["no token", () => "Bearer "],
    ["nothing", () => ""],
  ])("refuses %s as a missing bearer token", async (_what, header) => {
    const error = await errorOf(await call({ headers: { authorization: header(token) } }));
    expect(error).toMatchObject({ status: 401, code: "unauthenticated" });
    expect(error.message).toMatch(/^Missing bearer token/);
  });

  it("names why a token is refused", async () => {
    const error = await errorOf(await call({ headers: { authorization: "Bearer not.a.token" } }));
    expect(error.status).toBe(401);
    expect(error.message).toMatch(/^Unauthenticated: .+\.$/);
  });
});

describe("Content-Type", () => {
  it.each([
    "application/json",
    "application/json; charset=utf-8",
    "Application/JSON",
    "application/json ;charset=utf-8",
  ])("accepts %s", async (type) => {
    expect((await call({ headers: { "content-type": type } })).status).toBe(200);
  });

  it.each([
    "application/jsonp",
    "application/json-seq",
    "text/plain; application/json",
    "x-application/json",
    "text/plain",
  ])("refuses %s with 415", async (type) => {
    expect(await errorOf(await call({ headers: { "content-type": type } }))).toEqual({
      status: 415,
      code: "unsupported_media_type",
      message: "Send the body as JSON with Content-Type: application/json.",
    });
  });
});

describe("the body", () => {
  it("is handed on whole when it has exactly the limit's size", async () => {
    const text = jsonOfSize(LIMIT);
    const response = await call({ body: text });
    expect(response.status).toBe(200);
    expect((await response.json()).body).toEqual(JSON.parse(text));
  });

  it("is refused one byte over the limit", async () => {
    expect(await errorOf(await call({ body: jsonOfSize(LIMIT + 1) }))).toMatchObject({
      status: 413,
      code: "payload_too_large",
      message: `The request body exceeds ${LIMIT} bytes.`,
    });
  });

  it("is refused from its declared Content-Length alone, before any of it is read", async () => {
    const { body, cancelled } = streamed([new TextEncoder().encode("{}")]);
    const response = await call({ body, headers: { "content-length": String(LIMIT + 1) } });
    expect((await errorOf(response)).status).toBe(413);
    expect(cancelled()).toBe(false);
  });

  it("is read when its declared Content-Length is exactly the limit", async () => {
    const text = jsonOfSize(LIMIT);
    const response = await call({ body: text, headers: { "content-length": String(LIMIT) } });
    expect(response.status).toBe(200);
  });

  it("arriving in several chunks is put back together, a character split across two chunks included", async () => {
    const bytes = new TextEncoder().encode(jsonOfSize(LIMIT, "ñ"));
    const cut = bytes.indexOf(0xc3) + 1; // inside the first "ñ"
    const pieces = [bytes.subarray(0, cut), bytes.subarray(cut, 600), bytes.subarray(600)];
    const response = await call({ body: streamed(pieces).body });
    expect(response.status).toBe(200);
    expect((await response.json()).body).toEqual(JSON.parse(new TextDecoder().decode(bytes)));
  });

  it("streamed past the limit is refused, and the rest is not read", async () => {
    const chunk = new TextEncoder().encode(" ".repeat(400));
    const { body, cancelled } = streamed([chunk, chunk, chunk, chunk, chunk]);
    expect((await errorOf(await call({ body }))).status).toBe(413);
    expect(cancelled()).toBe(true);
  });

  it("streamed up to exactly the limit is accepted", async () => {
    const bytes = new TextEncoder().encode(jsonOfSize(LIMIT));
    const response = await call({ body: streamed([bytes.subarray(0, 512), bytes.subarray(512)]).body });
    expect(response.status).toBe(200);
  });

  it.each([
    ["missing", null],
    ["cut short", '{"org_id": '],
  ])("that is %s is refused as invalid JSON", async (_what, body) => {
    expect(await errorOf(await call({ body }))).toEqual({
      status: 400,
      code: "invalid_json",
      message: "The request body is not valid JSON.",
    });
  });

  it.each([
    ["null", "null"],
    ["a number", "5"],
    ["a string", '"{}"'],
    ["an array", "[]"],
  ])("that is %s is refused: it must be an object", async (_what, body) => {
    const response = await call({ body });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({
      code: "validation_failed",
      message: "The request body must be a JSON object.",
      details: [{ field: "(body)", message: "expected an object" }],
    });
  });
});

describe("the method", () => {
  it("must be POST: anything else is named in the answer", async () => {
    const response = await call({ method: "PUT" });
    expect(response.headers.get("allow")).toBe("POST");
    expect(await errorOf(response)).toEqual({
      status: 405,
      code: "method_not_allowed",
      message: "Method PUT is not allowed; use POST.",
    });
  });
});

describe("a token that cannot be checked right now", () => {
  it("is answered 503, and the cause is logged with the request id", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = createTokenVerifier({
      issuer: `${TEST_URL}/auth/v1`,
      audience: "authenticated",
      jwks: undefined,
      jwksUrl: `http://127.0.0.1:${port}/auth/v1/.well-known/jwks.json`,
      hs256Secret: undefined,
    });
    const app = createPipeline({ ...t.deps, verifyToken: (tk) => unreachable.verify(tk) });
    app.post("/echo", (c) => c.json({}));
    const response = await app.request("/einvoicing/echo", {
      method: "POST",
      headers: {
        apikey: TEST_API_KEY,
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        "x-request-id": "keys-down-0001",
      },
      body: "{}",
    });
    expect(await errorOf(response)).toEqual({
      status: 503,
      code: "service_unavailable",
      message: "Could not verify the token right now. Try again shortly.",
    });
    const logged = t.logs
      .map((l) => JSON.parse(l))
      .find((l) => l.request_id === "keys-down-0001" && l.msg === "request failed");
    expect(logged).toMatchObject({
      level: "error",
      code: "service_unavailable",
      error: { name: "TypeError" },
    });
  });
});

describe("x-request-id", () => {
  const echoed = async (id: string) =>
    (await call({ headers: { "x-request-id": id } })).headers.get("x-request-id");

  it.each([
    ["8 characters", "abcd1234"],
    ["128 characters", "a".repeat(128)],
    ["dots, underscores, colons and dashes", "req.1_2:3-4"],
  ])("is kept with %s", async (_what, id) => {
    expect(await echoed(id)).toBe(id);
  });

  it.each([
    ["7 characters", "abc1234"],
    ["129 characters", "a".repeat(129)],
    ["a character outside the set at the start", "<req-12345678"],
    ["a character outside the set at the end", "req-12345678>"],
    ["a space inside", "req 12345678"],
  ])("is replaced with %s", async (_what, id) => {
    const got = await echoed(id);
    expect(got).not.toBe(id);
    expect(got).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it("is the id of the request's access log line, with its method, path and status", async () => {
    await call({ headers: { "x-request-id": "log-line-0001" } });
    const line = t.logs.map((l) => JSON.parse(l)).find((l) => l.request_id === "log-line-0001");
    expect(line).toMatchObject({
      level: "info",
      msg: "request",
      method: "POST",
      path: "/einvoicing/echo",
      status: 200,
    });
    expect(typeof line.ms).toBe("number");
  });

  it("and the access log line says how long the request took, in milliseconds", async () => {
    const started = performance.now();
    await call({ path: "/einvoicing/slow", headers: { "x-request-id": "log-line-slow1" } });
    const elapsed = performance.now() - started;
    const line = t.logs.map((l) => JSON.parse(l)).find((l) => l.request_id === "log-line-slow1");
    // the route waits 20 ms; the request happened within what this test measured around it
    expect(line.ms).toBeGreaterThanOrEqual(10);
    expect(line.ms).toBeLessThanOrEqual(elapsed + 0.1);
  });
});
