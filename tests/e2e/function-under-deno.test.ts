/**
 * End to end: the deployable entry (functions/einvoicing/index.ts) under Deno, with the postgres
 * transport on the test database and the sandbox provider served over HTTP, called with fetch.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { TEST_API_KEY, TEST_CREDENTIALS_KEY, TEST_URL } from "../../devkit/app.ts";
import { createLocalSigner, type LocalSigner } from "../../devkit/auth.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { type DenoProcess, startDeno } from "../../devkit/deno.ts";
import { createInvoice, createTenant, type Tenant } from "../../devkit/factories.ts";
import { createSandboxProvider } from "../../sandbox/provider.ts";
import { type RunningSandbox, startSandboxServer } from "../../sandbox/server.ts";
import { createSecretBox } from "../../shared/crypto/secret-box.ts";
import { createPostgresDb } from "../../shared/db/postgres-transport.ts";

// The entry connects with a PostgreSQL URL; on the PGlite fallback there is none to give it.
const onPostgres = inject("database").kind === "postgres";

let db: TestDatabase;
let deno: DenoProcess;
let signer: LocalSigner;
let tenant: Tenant;
let sandbox: RunningSandbox;
const SANDBOX_KEY = "sk_sandbox_e2e_key";

beforeAll(async () => {
  if (!onPostgres) return;
  db = await createTestDatabase();
  tenant = await createTenant(db);
  sandbox = await startSandboxServer(createSandboxProvider({ knobs: { latencyMs: 20 } }), { port: 0 });
  await saveCredential(
    { db: createPostgresDb(db.client), secretBox: await createSecretBox(TEST_CREDENTIALS_KEY) },
    tenant,
    { url: sandbox.url, apiKey: SANDBOX_KEY },
  );
  signer = await createLocalSigner(`${TEST_URL}/auth/v1`);
  deno = await startDeno(
    "functions/einvoicing/index.ts",
    {
      SUPABASE_URL: TEST_URL,
      SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: TEST_API_KEY }),
      SUPABASE_JWKS: JSON.stringify(signer.jwks),
      SUPABASE_SECRET_KEYS: JSON.stringify({ default: "sb_secret_e2e_unused" }),
      EINV_DB_TRANSPORT: "postgres",
      DATABASE_URL: db.url ?? "",
      EINV_CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
      EINV_LOG_LEVEL: "warn",
      // the sandbox listens on loopback
      EINV_ALLOW_PRIVATE_PROVIDER_URLS: "true",
    },
    { readyPath: "/einvoicing/transmit" },
  );
}, 90_000);
afterAll(async () => {
  await deno?.stop();
  await sandbox?.close();
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

  it("transmits a batch through fetch: the sandbox receives each invoice once, over HTTP", async () => {
    const batch = await Promise.all(
      Array.from({ length: 5 }, () => createInvoice(db, tenant.org, tenant.company)),
    );
    const ids = batch.map((i) => i.id);
    const response = await fetch(`${deno.baseUrl}/einvoicing/transmit`, {
      method: "POST",
      headers: {
        apikey: TEST_API_KEY,
        "content-type": "application/json",
        authorization: `Bearer ${await signer.sign(tenant.admin)}`,
      },
      body: JSON.stringify({ org_id: tenant.org.id, invoice_ids: ids }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: { invoice_id: string; status: string }[] };
    expect(body.results.map((r) => [r.invoice_id, r.status])).toEqual(ids.map((id) => [id, "transmitida"]));
    expect(sandbox.provider.submissions.map((s) => s.reference).sort()).toEqual([...ids].sort());
    const stored = await db.superuser<{ authority_code: string }>(
      "select authority_code from invoices where id = any($1::uuid[])",
      [`{${ids.join(",")}}`],
    );
    expect(stored.every((r) => /^[0-9a-f]{96}$/.test(r.authority_code))).toBe(true);
  });
});
