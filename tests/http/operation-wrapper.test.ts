/**
 * What every route gets from `operation()` (shared/http/route.ts), seen through /transmit: the
 * validation answer names each field and what is wrong with it, the role refusal names the roles,
 * and the handler logs through the request's logger (its lines carry the request id).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Tenant } from "../../devkit/factories.ts";
import { createSandboxProvider } from "../../sandbox/provider.ts";

let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  db = await createTestDatabase();
  t = await createTestApp(db, { providerFetch: createSandboxProvider().fetch });
  tenant = await createTenant(db);
});
afterAll(() => db?.close());

describe("operation()", () => {
  it("answers an invalid body with every field and what is wrong with it, the first one in the message", async () => {
    const response = await t.post(
      "/transmit",
      { org_id: "nope", invoice_ids: ["also-nope"] },
      await t.token(tenant.operador),
    );
    expect(response.status).toBe(400);
    const { error } = await response.json();
    expect(error.message).toBe(
      `The request body is not valid: ${error.details[0].field}: must be a UUID (and 1 more in details).`,
    );
    expect(error.details).toEqual(
      expect.arrayContaining([
        { field: "org_id", message: "must be a UUID" },
        { field: "invoice_ids.0", message: "must be a UUID" },
      ]),
    );
    expect(error.details).toHaveLength(2);
  });

  it("refuses a role the route does not allow, naming the roles it needs and the caller's", async () => {
    const response = await t.post(
      "/transmit",
      { org_id: tenant.org.id, invoice_ids: [crypto.randomUUID()] },
      await t.token(tenant.lector),
    );
    expect(response.status).toBe(403);
    expect((await response.json()).error.message).toBe(
      "This operation needs the role admin or operador; you are lector.",
    );
  });

  it("hands the handler the request's logger: what it logs carries the request id", async () => {
    const other = await createTenant(db);
    await saveCredential(t.deps, other, { apiKey: "" }); // no client can be built with an empty key
    const invoice = await createInvoice(db, other.org, other.company);
    const response = await t.post(
      "/transmit",
      { org_id: other.org.id, invoice_ids: [invoice.id] },
      await t.token(other.operador),
      { "x-request-id": "operation-log-0001" },
    );
    expect(response.status).toBe(200);
    expect((await response.json()).results[0]).toMatchObject({
      status: "error",
      message: "not sent: an internal error stopped the transmission before anything was sent",
    });
    const line = t.logs
      .map((l) => JSON.parse(l))
      .find((l) => l.msg === "transmit failed unexpectedly" && l.request_id === "operation-log-0001");
    expect(line).toMatchObject({ level: "error", error: { name: "TypeError" } });
  });
});
