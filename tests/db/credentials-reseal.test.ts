/**
 * Rotating EINV_CREDENTIALS_KEY: the previous keys (EINV_CREDENTIALS_PREVIOUS_KEYS) still open what
 * they sealed, and a re-seal puts every stored credential under the current key — after it, the
 * current key alone opens them all; a second run changes nothing; a row no key opens is reported
 * and left; a row saved meanwhile is not overwritten. Then `npm run credentials:reseal` itself, under
 * Deno against this database: counts, never a key.
 */
import { spawn } from "node:child_process";
import { createVerify, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_API_KEY, TEST_URL } from "../../devkit/app.ts";
import { CANARY_CERTIFICATE_PASSWORD, CANARY_SOFTWARE_PIN } from "../../devkit/canary.ts";
import { saveDianCredential } from "../../devkit/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTestCertificates } from "../../devkit/dian/certificates.ts";
import { createTenant, type Tenant } from "../../devkit/factories.ts";
import { createWebhookEndpoint } from "../../devkit/webhooks.ts";
import { loadConfig } from "../../shared/config.ts";
import { resealCredentials } from "../../shared/core/integrations/reseal.ts";
import { resealWebhookSecrets } from "../../shared/core/webhooks/reseal.ts";
import {
  createSecretBox,
  credentialsKeyId,
  keyHint,
  type SecretBox,
} from "../../shared/crypto/secret-box.ts";
import { createPostgresDb } from "../../shared/db/postgres-transport.ts";
import { webhookSecretIdentity } from "../../shared/events/signature.ts";
import type { DbScope } from "../../shared/ports/db/port.ts";
import { openDianCredential } from "../../shared/providers/dian/credential.ts";

const newKey = () => randomBytes(32).toString("base64");
const OLD = newKey();
const CURRENT = newKey();
const STRANGE = newKey();

let db: TestDatabase;
let service: DbScope;
let old: SecretBox;
let rotated: SecretBox;
let currentOnly: SecretBox;

beforeAll(async () => {
  db = await createTestDatabase();
  service = createPostgresDb(db.client).asService();
  old = await createSecretBox(OLD);
  rotated = await createSecretBox(CURRENT, [OLD]);
  currentOnly = await createSecretBox(CURRENT);
});
afterAll(() => db?.close());

interface Row {
  id: string;
  org_id: string;
  company_id: string;
  service: string;
  environment: string;
  api_key_ciphertext: string;
  api_key_key_id: string | null;
  updated_at: string;
}

const rows = (tenants: Tenant[]) =>
  db.superuser<Row>(
    `select id, org_id, company_id, service, environment, api_key_ciphertext, api_key_key_id, updated_at::text
       from einv_private.credentials where company_id = any(string_to_array($1, ',')::uuid[]) order by id`,
    [tenants.map((x) => x.company.id).join(",")],
  );

const identityOf = (row: Pick<Row, "org_id" | "company_id" | "service" | "environment">) => ({
  org_id: row.org_id,
  company_id: row.company_id,
  service: row.service,
  environment: row.environment,
});

/** The plaintext key of each credential: what every re-seal must keep. */
const keyOf = (tenant: Tenant, service: string, environment: string) =>
  `sk_sandbox_${tenant.company.id.slice(0, 8)}_${service}_${environment}`;

/**
 * Stores a credential sealed by `box`: as a save does (with the key id), or as a writer from before
 * key ids did (none; over an existing row, its key id left as it was).
 */
async function store(tenant: Tenant, box: SecretBox, svc: string, environment: string, withKeyId = true) {
  const apiKey = keyOf(tenant, svc, environment);
  const identity = { org_id: tenant.org.id, company_id: tenant.company.id, service: svc, environment };
  const ciphertext = await box.seal(apiKey, identity);
  if (withKeyId) {
    await service.call("einv_integration_save", {
      p_org_id: tenant.org.id,
      p_company_id: tenant.company.id,
      p_service: svc,
      p_environment: environment,
      p_url: "https://provider.example.test/v1",
      p_settings: {},
      p_api_key_ciphertext: ciphertext,
      p_api_key_hint: keyHint(apiKey),
      p_key_id: box.keyId,
      p_key_source: "given",
      p_message: "accepted",
      p_actor_id: tenant.admin.id,
    });
  } else {
    await db.superuser(
      `insert into einv_private.credentials as c
         (org_id, company_id, service, environment, url, api_key_ciphertext, api_key_hint)
       values ($1, $2, $3, $4, 'https://provider.example.test/v1', $5, $6)
       on conflict (company_id, service, environment) do update
          set api_key_ciphertext = excluded.api_key_ciphertext, api_key_hint = excluded.api_key_hint`,
      [tenant.org.id, tenant.company.id, svc, environment, ciphertext, keyHint(apiKey)],
    );
  }
}

/** Three companies' credentials: under the old key (with and without its id), and one already current. */
async function seed(): Promise<Tenant[]> {
  const tenants = await Promise.all([createTenant(db), createTenant(db), createTenant(db)]);
  const [a, b, c] = tenants as [Tenant, Tenant, Tenant];
  await store(a, old, "adapter-tax", "uat");
  await store(a, old, "deliver", "uat");
  await store(a, old, "adapter-tax", "prd", false);
  await store(b, old, "docsgen", "prd", false);
  await store(b, currentOnly, "adapter-tax", "uat");
  await store(c, old, "deliver", "prd");
  return tenants;
}

describe("a rotated credentials key", () => {
  it("has an id that names the key, not its encoding, and reveals nothing of it", async () => {
    expect(rotated.keyId).toMatch(/^[0-9a-f]{16}$/);
    expect(rotated.keyId).toBe(currentOnly.keyId);
    expect(rotated.keyId).not.toBe(old.keyId);
    const urlSafe = CURRENT.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    expect(await credentialsKeyId(urlSafe)).toBe(rotated.keyId);
    expect(Buffer.from(CURRENT, "base64").toString("hex")).not.toContain(rotated.keyId);
  });

  it("still opens what the previous key sealed, and seals with the current one", async () => {
    const identity = { org_id: "o", company_id: "c", service: "deliver", environment: "uat" };
    const sealedByOld = await old.seal("sk_live_rotating", identity);
    expect(await rotated.open(sealedByOld, identity)).toBe("sk_live_rotating");
    await expect(currentOnly.open(sealedByOld, identity)).rejects.toThrow(/cannot be decrypted/);
    const sealedNow = await rotated.seal("sk_live_rotating", identity);
    expect(await currentOnly.open(sealedNow, identity)).toBe("sk_live_rotating");
    await expect(old.open(sealedNow, identity)).rejects.toThrow(/cannot be decrypted/);
  });

  it("is read from EINV_CREDENTIALS_PREVIOUS_KEYS, comma-separated, refused by name when malformed", () => {
    const env = {
      SUPABASE_URL: TEST_URL,
      SUPABASE_PUBLISHABLE_KEYS: TEST_API_KEY,
      EINV_DB_TRANSPORT: "embedded",
      EINV_CREDENTIALS_KEY: CURRENT,
    };
    expect(loadConfig(env).credentialsPreviousKeys).toEqual([]);
    expect(
      loadConfig({ ...env, EINV_CREDENTIALS_PREVIOUS_KEYS: ` ${OLD} ,${STRANGE},` }).credentialsPreviousKeys,
    ).toEqual([OLD, STRANGE]);
    const bad = () => loadConfig({ ...env, EINV_CREDENTIALS_PREVIOUS_KEYS: `${OLD},not-a-key-secret-value` });
    expect(bad).toThrow(/EINV_CREDENTIALS_PREVIOUS_KEYS/);
    expect(bad).not.toThrow(/not-a-key-secret-value/);
  });
});

describe("re-sealing", () => {
  it("puts every credential under the current key alone, keeping each key; a second run changes nothing", async () => {
    const tenants = await seed();
    const before = await rows(tenants);
    expect(before).toHaveLength(6);

    const first = await resealCredentials({ serviceDb: service, secretBox: rotated, pageSize: 2 });
    expect(first).toMatchObject({ key_id: rotated.keyId, unopenable: [], changed_meanwhile: 0 });
    // this test's rows: five under the old key, one already current (other tests' rows may be there too)
    expect(first.resealed).toBeGreaterThanOrEqual(5);
    expect(first.checked).toBe(first.resealed + first.current);

    const after = await rows(tenants);
    for (const row of after) {
      expect(row.api_key_key_id).toBe(currentOnly.keyId);
      const tenant = tenants.find((x) => x.company.id === row.company_id) as Tenant;
      expect(await currentOnly.open(row.api_key_ciphertext, identityOf(row))).toBe(
        keyOf(tenant, row.service, row.environment),
      );
    }
    const untouched = before.find((r) => r.api_key_key_id === currentOnly.keyId);
    expect(after.find((r) => r.id === untouched?.id)).toEqual(untouched);

    const second = await resealCredentials({ serviceDb: service, secretBox: rotated });
    expect(second).toMatchObject({ resealed: 0, changed_meanwhile: 0, unopenable: [] });
    expect(second.current).toBe(second.checked);
    expect(await rows(tenants)).toEqual(after);

    const events = await db.superuser<{ n: number }>(
      `select count(*)::int as n from public.events
        where kind = 'credential_resealed' and document_id = any(string_to_array($1, ',')::uuid[])`,
      [tenants.map((x) => x.company.id).join(",")],
    );
    expect(events[0]?.n).toBe(5);
  });

  it("trusts the key that opens a row, not its recorded key id (an older writer may have left a stale one)", async () => {
    const tenant = await createTenant(db);
    await store(tenant, currentOnly, "adapter-tax", "uat"); // recorded as current
    await store(tenant, old, "adapter-tax", "uat", false); // the legacy writer: old key, id left as it was
    const [stale] = await rows([tenant]);
    expect(stale?.api_key_key_id).toBe(currentOnly.keyId);
    await expect(
      currentOnly.open(stale?.api_key_ciphertext ?? "", identityOf(stale as Row)),
    ).rejects.toThrow();

    const report = await resealCredentials({ serviceDb: service, secretBox: rotated });
    expect(report.unopenable).toEqual([]);
    const [fixed] = await rows([tenant]);
    expect(await currentOnly.open(fixed?.api_key_ciphertext ?? "", identityOf(fixed as Row))).toBe(
      keyOf(tenant, "adapter-tax", "uat"),
    );
  });

  it("reports a row no configured key opens, by identity and without its ciphertext, and leaves it", async () => {
    const tenant = await createTenant(db);
    await store(tenant, await createSecretBox(STRANGE), "deliver", "uat");
    const [before] = await rows([tenant]);
    const report = await resealCredentials({ serviceDb: service, secretBox: rotated });
    expect(report.unopenable).toContainEqual({
      id: before?.id,
      org_id: tenant.org.id,
      company_id: tenant.company.id,
      service: "deliver",
      environment: "uat",
    });
    expect(JSON.stringify(report)).not.toContain(before?.api_key_ciphertext);
    expect(await rows([tenant])).toEqual([before]);
    await db.superuser("delete from einv_private.credentials where company_id = $1", [tenant.company.id]);
  });

  it("re-seals a DIAN-mode credential like a key: it opens into the same signer and PIN under the current key", async () => {
    const tenant = await createTenant(db);
    const certs = createTestCertificates({ nit: tenant.company.nit, password: CANARY_CERTIFICATE_PASSWORD });
    await saveDianCredential({ db: createPostgresDb(db.client), secretBox: old }, tenant, certs);
    const [before] = await rows([tenant]);
    expect(before?.api_key_key_id).toBe(old.keyId);
    const report = await resealCredentials({ serviceDb: service, secretBox: rotated });
    expect(report.unopenable).toEqual([]);
    const [after] = await rows([tenant]);
    expect(after?.api_key_key_id).toBe(currentOnly.keyId);
    expect(after?.api_key_ciphertext).not.toBe(before?.api_key_ciphertext);
    const plaintext = await currentOnly.open(after?.api_key_ciphertext ?? "", identityOf(after as Row));
    expect(plaintext).toBe(await old.open(before?.api_key_ciphertext ?? "", identityOf(before as Row)));
    const { signer, softwarePin } = await openDianCredential(plaintext);
    expect(softwarePin).toBe(CANARY_SOFTWARE_PIN);
    expect(signer.certificate.serialNumber).toBe(certs.serialNumber);
    const data = new TextEncoder().encode("resealed");
    const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", signer.privateKey, data);
    expect(createVerify("sha256").update(data).verify(certs.certificatePem, Buffer.from(signature))).toBe(
      true,
    );
  });

  it("does not overwrite a row saved since it was read", async () => {
    const tenant = await createTenant(db);
    await store(tenant, old, "adapter-tax", "uat");
    const [row] = await rows([tenant]);
    const stale = await old.seal("sk_stale", identityOf(row as Row));
    const swapped = await service.call("einv_credential_reseal", {
      p_id: row?.id ?? "",
      p_expected_ciphertext: stale,
      p_api_key_ciphertext: await rotated.seal("sk_stale", identityOf(row as Row)),
      p_key_id: rotated.keyId,
    });
    expect(swapped).toBe(false);
    expect(await rows([tenant])).toEqual([row]);
  });
});

/** Runs `npm run credentials:reseal`'s command with `env`; its exit code and output. */
function runReseal(
  env: Record<string, string>,
): Promise<{ code: number | null; output: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "node_modules/.bin/deno",
      ["run", "--allow-net", "--allow-env", "--allow-read", "--allow-sys", "scripts/credentials/reseal.ts"],
      {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "/tmp",
          DENO_NO_UPDATE_CHECK: "1",
          ...env,
        },
      },
    );
    let stdout = "";
    let output = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      output += chunk;
    });
    child.stderr.on("data", (chunk) => (output += chunk));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, output, stdout }));
  });
}

describe("npm run credentials:reseal", () => {
  it("re-seals under Deno, reporting counts and never a key; run again, it changes nothing", async (ctx) => {
    if (!db.url) ctx.skip(); // PGlite has no URL to hand a child process
    const tenants = await seed();
    const env = {
      SUPABASE_URL: TEST_URL,
      SUPABASE_PUBLISHABLE_KEYS: TEST_API_KEY,
      EINV_DB_TRANSPORT: "postgres",
      DATABASE_URL: db.url ?? "",
      EINV_CREDENTIALS_KEY: CURRENT,
      EINV_CREDENTIALS_PREVIOUS_KEYS: OLD,
    };
    const first = await runReseal(env);
    expect(first.code, first.output).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(report).toMatchObject({ key_id: rotated.keyId, unopenable: [] });
    expect(report.resealed).toBeGreaterThanOrEqual(5);
    for (const row of await rows(tenants)) {
      expect(await currentOnly.open(row.api_key_ciphertext, identityOf(row))).toMatch(/^sk_sandbox_/);
    }

    const second = await runReseal(env);
    expect(second.code, second.output).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ resealed: 0, current: report.checked });

    const secrets = [
      CURRENT,
      OLD,
      ...tenants.flatMap((x) => [keyOf(x, "adapter-tax", "uat"), keyOf(x, "deliver", "prd")]),
    ];
    for (const text of [first.output, second.output]) {
      for (const secret of secrets) expect(text.includes(secret)).toBe(false);
    }

    const misconfigured = await runReseal({ ...env, EINV_CREDENTIALS_PREVIOUS_KEYS: "x" });
    expect(misconfigured.code).toBe(2);
    expect(misconfigured.output).toMatch(/EINV_CREDENTIALS_PREVIOUS_KEYS/);
    expect(misconfigured.output).not.toContain(CURRENT);
  }, 60_000);
});

describe("re-sealing webhook secrets", () => {
  it("puts each endpoint's secret, and the one a rotation replaced, under the current key; again: nothing", async () => {
    const tenant = await createTenant(db);
    const endpoint = await createWebhookEndpoint(db, old, tenant.org.id, "https://hooks.example.test/in");
    const identity = webhookSecretIdentity(tenant.org.id, endpoint.id);
    // a rotation under the old key left the first secret signing beside a second one
    const second = "whsec_c2Vjb25kLXNlY3JldC1vZi10aGUtcm90YXRpb24tMTI=";
    await db.superuser(
      `update public.webhook_endpoints
          set previous_secret_ciphertext = secret_ciphertext, previous_secret_key_id = secret_key_id,
              previous_secret_until = now() + interval '1 day', secret_ciphertext = $2
        where id = $1`,
      [endpoint.id, await old.seal(second, identity)],
    );
    const first = await resealWebhookSecrets({ serviceDb: service, secretBox: rotated, pageSize: 1 });
    expect(first.unopenable).toEqual([]);
    expect(first.resealed).toBeGreaterThanOrEqual(2);
    const [row] = await db.superuser<{
      secret_ciphertext: string;
      secret_key_id: string;
      previous_secret_ciphertext: string;
      previous_secret_key_id: string;
    }>(
      "select secret_ciphertext, secret_key_id, previous_secret_ciphertext, previous_secret_key_id from public.webhook_endpoints where id = $1",
      [endpoint.id],
    );
    expect([row?.secret_key_id, row?.previous_secret_key_id]).toEqual([currentOnly.keyId, currentOnly.keyId]);
    expect(await currentOnly.open(row?.secret_ciphertext ?? "", identity)).toBe(second);
    expect(await currentOnly.open(row?.previous_secret_ciphertext ?? "", identity)).toBe(endpoint.secret);
    const again = await resealWebhookSecrets({ serviceDb: service, secretBox: rotated });
    expect(again).toMatchObject({ resealed: 0, changed_meanwhile: 0, unopenable: [] });
    // a secret no configured key opens is listed, never guessed at
    const strange = await createWebhookEndpoint(
      db,
      await createSecretBox(STRANGE),
      tenant.org.id,
      "https://x.test/in",
    );
    const report = await resealWebhookSecrets({ serviceDb: service, secretBox: rotated });
    expect(report.unopenable).toEqual([{ webhook_id: strange.id, org_id: tenant.org.id, which: "current" }]);
  });
});
