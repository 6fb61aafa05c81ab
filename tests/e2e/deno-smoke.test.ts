/**
 * Boots the deployable entry (functions/einvoicing/index.ts) under Deno with the postgres
 * transport on the test database, and talks to it over HTTP.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createLocalSigner, type LocalSigner } from "../../scripts/local/auth.ts";
import { TEST_API_KEY, TEST_CREDENTIALS_KEY, TEST_URL } from "../support/app.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { type DenoProcess, startDeno } from "../support/deno.ts";
import { createTenant, type Tenant } from "../support/factories.ts";

// The entry connects with a PostgreSQL URL; on the PGlite fallback there is none to give it.
const onPostgres = inject("database").kind === "postgres";

let db: TestDatabase;
let deno: DenoProcess;
let signer: LocalSigner;
let tenant: Tenant;

beforeAll(async () => {
  if (!onPostgres) return;
  db = await createTestDatabase();
  tenant = await createTenant(db);
  signer = await createLocalSigner(`${TEST_URL}/auth/v1`);
  deno = await startDeno(
    "functions/einvoicing/index.ts",
    {
      SUPABASE_URL: TEST_URL,
      SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: TEST_API_KEY }),
      SUPABASE_JWKS: JSON.stringify(signer.jwks),
      EINV_DB_TRANSPORT: "postgres",
      DATABASE_URL: db.url ?? "",
      EINV_CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
      EINV_LOG_LEVEL: "warn",
    },
    { readyPath: "/einvoicing/transmit" },
  );
}, 90_000);
afterAll(async () => {
  await deno?.stop();
  await db?.close();
});

describe.runIf(onPostgres)("the einvoicing entry under Deno", () => {
  it("answers JSON errors over HTTP: 401 without a token, 403 for another org, 405 for GET", async () => {
    const url = `${deno.baseUrl}/einvoicing/transmit`;
    const headers = { apikey: TEST_API_KEY, "content-type": "application/json" };
    const unauthenticated = await fetch(url, { method: "POST", headers, body: "{}" });
    expect(unauthenticated.status).toBe(401);
    expect((await unauthenticated.json()).error.code).toBe("unauthenticated");

    const token = await signer.sign(tenant.operador);
    const otherOrg = crypto.randomUUID();
    const forbidden = await fetch(url, {
      method: "POST",
      headers: { ...headers, authorization: `Bearer ${token}` },
      body: JSON.stringify({ org_id: otherOrg, invoice_ids: [crypto.randomUUID()] }),
    });
    expect(forbidden.status).toBe(403);
    expect((await forbidden.json()).error.code).toBe("forbidden");

    const get = await fetch(url);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });
});
