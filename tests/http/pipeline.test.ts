/**
 * The request pipeline every route shares, through the real app and database: each applicable
 * row of the error table (DESIGN §4) and the shape of every error answer.
 */
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createTestApp, TEST_URL, type TestApp } from "../../devkit/app.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTenant, type Tenant } from "../../devkit/factories.ts";

const ErrorBody = z.strictObject({
  error: z.strictObject({
    code: z.string(),
    message: z.string(),
    details: z.array(z.strictObject({ field: z.string(), message: z.string() })).optional(),
    request_id: z.string().min(8),
  }),
});

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/application\/json/);
  const body = ErrorBody.parse(await response.json());
  expect(body.error.code).toBe(code);
  expect(response.headers.get("x-request-id")).toBe(body.error.request_id);
  return body.error;
}

let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;
let stranger: Tenant;
let token: string;

beforeAll(async () => {
  db = await createTestDatabase();
  t = await createTestApp(db, { env: { EINV_MAX_BODY_BYTES: "2048" } });
  [tenant, stranger] = await Promise.all([createTenant(db), createTenant(db)]);
  token = await t.token(tenant.operador);
});
afterAll(() => db?.close());

const someIds = () => ({ invoice_ids: [crypto.randomUUID()] });

describe("authentication", () => {
  it("answers 401 without a bearer token", async () => {
    await expectError(
      await t.post("/transmit", { org_id: tenant.org.id, ...someIds() }),
      401,
      "unauthenticated",
    );
  });

  it("answers 401 without the apikey header, and with a wrong one", async () => {
    const body = { org_id: tenant.org.id, ...someIds() };
    const missing = await t.app.request("/einvoicing/transmit", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect((await expectError(missing, 401, "unauthenticated")).message).toMatch(/apikey/);
    await expectError(
      await t.post("/transmit", body, token, { apikey: "sb_publishable_wrong" }),
      401,
      "unauthenticated",
    );
  });

  it.each([
    ["an expired token", { expiresIn: "-1m" }],
    ["a token from another issuer", { issuer: "https://evil.test/auth/v1" }],
    ["a token for another audience", { audience: "anon" }],
    ["a token of another role", { role: "service_role" }],
  ])("answers 401 for %s", async (_name, options) => {
    const bad = await t.token(tenant.operador, options);
    await expectError(
      await t.post("/transmit", { org_id: tenant.org.id, ...someIds() }, bad),
      401,
      "unauthenticated",
    );
  });

  it("answers 401 for a token signed with another key, an HS256 token, and an unsigned one", async () => {
    const other = await (await import("../../devkit/auth.ts")).createLocalSigner(`${TEST_URL}/auth/v1`);
    const forged = await other.sign(tenant.operador);
    const hs256 = await new SignJWT({ role: "authenticated" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(tenant.operador.id)
      .setIssuer(`${TEST_URL}/auth/v1`)
      .setAudience("authenticated")
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode("a-shared-secret-the-service-does-not-trust"));
    const [header, payload] = forged.split(".");
    const none = `${btoa(JSON.stringify({ alg: "none" })).replace(/=+$/, "")}.${payload}.`;
    for (const bad of [forged, hs256, none, `${header}.garbage.sig`]) {
      await expectError(
        await t.post("/transmit", { org_id: tenant.org.id, ...someIds() }, bad),
        401,
        "unauthenticated",
      );
    }
  });
});

describe("a validly signed token whose subject is not a user id", () => {
  it.each(["not-a-uuid", "00000000-0000-0000-0000-00000000000g", " 5a8f3c2e-1d4b-4c6a-9e7f-0a1b2c3d4e5f"])(
    "answers 401, not 503, for sub %j, and logs no error",
    async (sub) => {
      const bad = await t.token({ id: sub, email: "x@test.example" });
      const before = t.logs.length;
      const error = await expectError(
        await t.post("/transmit", { org_id: tenant.org.id, ...someIds() }, bad),
        401,
        "unauthenticated",
      );
      expect(error.message).not.toMatch(/unavailable/i);
      expect(t.logs.slice(before).filter((l) => JSON.parse(l).level === "error")).toEqual([]);
    },
  );
});

describe("authorisation", () => {
  it("answers 403 to a member of another organization", async () => {
    const outsider = await t.token(stranger.admin);
    const error = await expectError(
      await t.post("/transmit", { org_id: tenant.org.id, ...someIds() }, outsider),
      403,
      "forbidden",
    );
    expect(error.message).toMatch(/not a member/);
  });

  it("answers 403 to a member whose role may not transmit", async () => {
    const reader = await t.token(tenant.lector);
    const error = await expectError(
      await t.post("/transmit", { org_id: tenant.org.id, ...someIds() }, reader),
      403,
      "forbidden",
    );
    expect(error.message).toMatch(/admin or operador/);
  });
});

describe("method, route and body", () => {
  it("answers 405 with Allow: POST to any other method", async () => {
    for (const method of ["GET", "PUT", "DELETE", "PATCH"]) {
      const response = await t.app.request("/einvoicing/transmit", { method });
      await expectError(response, 405, "method_not_allowed");
      expect(response.headers.get("allow")).toBe("POST");
    }
  });

  it("answers a CORS preflight with 204 and the allowed headers", async () => {
    const response = await t.app.request("/einvoicing/transmit", {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST" },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-headers")).toMatch(/authorization/);
    expect(response.headers.get("access-control-allow-headers")).toMatch(/apikey/);
  });

  it("answers 404 in the error shape for an unknown route", async () => {
    await expectError(await t.post("/no-such-route", { org_id: tenant.org.id }, token), 404, "not_found");
  });

  it("answers 415 when the body is not declared as JSON", async () => {
    const response = await t.post("/transmit", "org_id=1", token, { "content-type": "text/plain" });
    await expectError(response, 415, "unsupported_media_type");
  });

  it("answers 400 invalid_json for an unreadable body", async () => {
    await expectError(await t.post("/transmit", "{not json", token), 400, "invalid_json");
  });

  it("answers 413 for a body over the limit", async () => {
    const body = { org_id: tenant.org.id, invoice_ids: [], padding: "x".repeat(4096) };
    await expectError(await t.post("/transmit", body, token), 413, "payload_too_large");
  });

  it("answers 400 validation_failed naming each bad field", async () => {
    const error = await expectError(
      await t.post("/transmit", { invoice_ids: ["nope"] }, token),
      400,
      "validation_failed",
    );
    expect(error.details?.map((d) => d.field).sort()).toEqual(["invoice_ids.0", "org_id"]);
  });

  it("answers 400 for a JSON body that is not an object", async () => {
    await expectError(await t.post("/transmit", "[1,2]", token), 400, "validation_failed");
  });
});

describe("request id and logs", () => {
  it("echoes a sane x-request-id and replaces an unsafe one", async () => {
    const kept = await t.post("/transmit", {}, undefined, { "x-request-id": "req-12345678" });
    expect(kept.headers.get("x-request-id")).toBe("req-12345678");
    const replaced = await t.post("/transmit", {}, undefined, { "x-request-id": "short" });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("never writes a token or the apikey to the logs", async () => {
    await t.post("/transmit", { org_id: tenant.org.id, ...someIds() }, token);
    const all = t.logs.join("\n");
    expect(all).toContain('"msg":"request"');
    expect(all).not.toContain(token.split(".")[2]);
    expect(all).not.toContain("sb_publishable_test");
  });
});

describe("text no column can hold", () => {
  it.each([
    ["a NUL", { reissue: false, invoice_ids: ["\u0000"] }, "invoice_ids.0"],
    ["an unpaired surrogate", { invoice_ids: [crypto.randomUUID()], note: "a\ud800b" }, "note"],
    ["an unpaired surrogate in a key", { invoice_ids: [crypto.randomUUID()], "k\udc00": 1 }, "k\udc00"],
  ])("answers 400 naming the field for %s, never a 500", async (_what, extra, field) => {
    const response = await t.post("/transmit", { org_id: tenant.org.id, ...extra }, token);
    const error = await expectError(response, 400, "validation_failed");
    expect(error.details?.[0]?.field).toBe(field);
  });
});
