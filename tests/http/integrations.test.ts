/**
 * POST /integrations/test and /integrations/save through the real app and database, with the sandbox
 * providers at the edge: who may call them, what they check, what a save stores (sealed, with the
 * key's id, whole), what is kept when not given, the bounds of every field, and the events.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTenant, type Tenant } from "../../devkit/factories.ts";
import { IntegrationSaveResponse } from "../../functions/integrations/save.ts";
import { IntegrationTestResponse } from "../../functions/integrations/test.ts";
import {
  createSandboxDeliver,
  createSandboxDocsgen,
  createSandboxProvider,
  createSandboxRouter,
} from "../../sandbox/index.ts";

const PROVIDERS = "https://sandbox.provider.test";
const KEY = "sk_sandbox_admin_key_1234";
const OTHER_KEY = "sk_sandbox_other_key_9876";
const BAD_KEY = "sk_wrong_key_5678";

let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;
let stranger: Tenant;
let token: string;
/** Every request that reached the provider edge. */
const sent: Request[] = [];
const router = createSandboxRouter({
  adapterTax: createSandboxProvider(),
  docsgen: createSandboxDocsgen(),
  deliver: createSandboxDeliver(),
});

beforeAll(async () => {
  db = await createTestDatabase();
  t = await createTestApp(db, {
    providerFetch: (input, init) => {
      sent.push(new Request(input, init));
      return router(input, init);
    },
  });
  [tenant, stranger] = await Promise.all([createTenant(db), createTenant(db)]);
  token = await t.token(tenant.admin);
});
afterAll(() => db?.close());
beforeEach(() => {
  sent.length = 0;
});

type Fields = Record<string, unknown>;
const target = (extra: Fields = {}) => ({
  org_id: tenant.org.id,
  company_id: tenant.company.id,
  service: "adapter-tax",
  environment: "uat",
  ...extra,
});
const test = (extra: Fields = {}, as = token) => t.post("/integrations/test", target(extra), as);
const save = (extra: Fields = {}, as = token) => t.post("/integrations/save", target(extra), as);
const url = (service = "adapter-tax") => `${PROVIDERS}/${service}`;

interface CredentialRecord {
  url: string;
  settings: Record<string, unknown>;
  api_key_ciphertext: string;
  api_key_hint: string;
  api_key_key_id: string | null;
  verified_at: string | null;
}

async function stored(extra: { company_id?: string; service?: string; environment?: string } = {}) {
  const rows = await db.superuser<CredentialRecord>(
    `select url, settings, api_key_ciphertext, api_key_hint, api_key_key_id, verified_at::text
       from einv_private.credentials where company_id = $1 and service = $2 and environment = $3`,
    [extra.company_id ?? tenant.company.id, extra.service ?? "adapter-tax", extra.environment ?? "uat"],
  );
  return rows;
}

const open = (ciphertext: string, service = "adapter-tax", environment = "uat") =>
  t.deps.secretBox.open(ciphertext, {
    org_id: tenant.org.id,
    company_id: tenant.company.id,
    service,
    environment,
  });

const checksSent = () =>
  sent.map((r) => ({ url: r.url, method: r.method, authorization: r.headers.get("authorization") }));

describe("POST /integrations/test", () => {
  it("answers ok for a key the provider accepts, at the url given with it", async () => {
    const response = await test({ api_key: KEY, url: url() });
    expect(response.status).toBe(200);
    const body = IntegrationTestResponse.parse(await response.json());
    expect(body).toMatchObject({
      ok: true,
      company_id: tenant.company.id,
      service: "adapter-tax",
      environment: "uat",
      message: "The provider accepted the API key.",
      provider_message: "Sandbox API key accepted.",
    });
    expect(Date.now() - Date.parse(body.checked_at)).toBeLessThan(60_000);
    expect(checksSent()).toEqual([
      { url: `${url()}/credentials/check`, method: "GET", authorization: `Bearer ${KEY}` },
    ]);
  });

  it("answers ok: false with HTTP 200 for a key the provider rejects", async () => {
    const response = await test({ api_key: BAD_KEY, url: url() });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.ok).toBe(false);
    expect(body.message).toMatch(/rejected the API key \(HTTP 401\)/);
  });

  it("checks each service at its own url", async () => {
    for (const service of ["docsgen", "deliver"]) {
      const body = await (await test({ service, api_key: KEY, url: url(service) })).json();
      expect(body).toMatchObject({ ok: true, service });
    }
    expect(sent.map((r) => r.url)).toEqual([
      `${url("docsgen")}/credentials/check`,
      `${url("deliver")}/credentials/check`,
    ]);
  });

  it("tests the saved key when none is given at the saved url, and at no other", async () => {
    const company = await createTenant(db);
    const as = await t.token(company.admin);
    const scope = { org_id: company.org.id, company_id: company.company.id };
    expect((await save({ ...scope, api_key: OTHER_KEY, url: url() }, as)).status).toBe(200);
    sent.length = 0;

    expect(await (await test(scope, as)).json()).toMatchObject({ ok: true });
    expect(await (await test({ ...scope, url: url() }, as)).json()).toMatchObject({ ok: true });
    const elsewhere = await test({ ...scope, url: `${PROVIDERS}/deliver` }, as);
    expect(elsewhere.status).toBe(422);
    expect((await elsewhere.json()).error).toMatchObject({
      code: "business_rule",
      message: expect.stringMatching(/only sent to its saved url; to use another url, send api_key with it/),
    });
    expect(checksSent()).toEqual([
      { url: `${url()}/credentials/check`, method: "GET", authorization: `Bearer ${OTHER_KEY}` },
      { url: `${url()}/credentials/check`, method: "GET", authorization: `Bearer ${OTHER_KEY}` },
    ]);
  });

  it("answers 422 when there is nothing to test: no key given or saved, or no url given or saved", async () => {
    const noKey = await test({ url: url(), environment: "prd" });
    expect(noKey.status).toBe(422);
    expect((await noKey.json()).error).toMatchObject({ code: "business_rule", message: /send api_key/ });
    const noUrl = await test({ api_key: KEY, environment: "prd" });
    expect(noUrl.status).toBe(422);
    expect((await noUrl.json()).error.message).toMatch(/send url/);
    expect(sent).toHaveLength(0);
  });
});

describe("POST /integrations/save", () => {
  it("checks the key, then stores it sealed with the key's id, and answers without it", async () => {
    const settings = { sender: "facturas@empresa.example", retries: 2 };
    const response = await save({ service: "deliver", api_key: KEY, url: url("deliver"), settings });
    expect(response.status).toBe(200);
    const body = IntegrationSaveResponse.parse(await response.json());
    expect(body).toEqual({
      company_id: tenant.company.id,
      service: "deliver",
      environment: "uat",
      url: url("deliver"),
      settings,
      api_key_hint: "1234",
      verified_at: expect.any(String),
    });
    expect(JSON.stringify(body)).not.toContain(KEY);
    expect(checksSent()).toEqual([
      { url: `${url("deliver")}/credentials/check`, method: "GET", authorization: `Bearer ${KEY}` },
    ]);

    const [row] = await stored({ service: "deliver" });
    expect(row).toMatchObject({ url: url("deliver"), settings, api_key_hint: "1234" });
    expect(row?.api_key_key_id).toBe(t.deps.secretBox.keyId);
    expect(row?.api_key_ciphertext).toMatch(/^v1:/);
    expect(row?.api_key_ciphertext).not.toContain(KEY);
    expect(await open(row?.api_key_ciphertext ?? "", "deliver")).toBe(KEY);
    expect(Date.parse(body.verified_at)).toBe(Date.parse(row?.verified_at ?? ""));
  });

  it("answers 422 credential_rejected and stores nothing when the key does not authenticate", async () => {
    const response = await save({ environment: "prd", api_key: BAD_KEY, url: url() });
    expect(response.status).toBe(422);
    const { error } = await response.json();
    expect(error.code).toBe("credential_rejected");
    expect(error.message).toMatch(/^The key was not saved: The provider rejected the API key \(HTTP 401\)/);
    expect(await stored({ environment: "prd" })).toEqual([]);
  });

  it("leaves the saved credential as it was when a new key is rejected", async () => {
    expect((await save({ service: "docsgen", api_key: KEY, url: url("docsgen") })).status).toBe(200);
    const [before] = await stored({ service: "docsgen" });
    expect((await save({ service: "docsgen", api_key: BAD_KEY, url: url("docsgen") })).status).toBe(422);
    expect(await stored({ service: "docsgen" })).toEqual([before]);
  });

  it("keeps the saved key when none is given, checked at the saved url; a new url needs the key", async () => {
    const company = await createTenant(db);
    const as = await t.token(company.admin);
    const scope = { org_id: company.org.id, company_id: company.company.id };
    await save({ ...scope, api_key: OTHER_KEY, url: url(), settings: { a: 1 } }, as);
    sent.length = 0;

    const kept = await save({ ...scope, settings: { a: 2 } }, as);
    expect(kept.status).toBe(200);
    expect(await kept.json()).toMatchObject({ url: url(), settings: { a: 2 }, api_key_hint: "9876" });
    const moved = "https://moved.provider.test/adapter-tax";
    const refused = await save({ ...scope, url: moved }, as);
    expect(refused.status).toBe(422);
    expect((await refused.json()).error.message).toMatch(/send api_key with it/);
    expect(checksSent()).toEqual([
      { url: `${url()}/credentials/check`, method: "GET", authorization: `Bearer ${OTHER_KEY}` },
    ]);
    const [row] = await db.superuser<{ api_key_ciphertext: string; url: string }>(
      "select api_key_ciphertext, url from einv_private.credentials where company_id = $1",
      [company.company.id],
    );
    expect(row?.url).toBe(url());
    const identity = { ...scope, service: "adapter-tax", environment: "uat" };
    expect(await t.deps.secretBox.open(row?.api_key_ciphertext ?? "", identity)).toBe(OTHER_KEY);
  });

  it("answers 422 without api_key when no key is saved, and without url when none is saved", async () => {
    const noKey = await save({ environment: "prd", url: url() });
    expect(noKey.status).toBe(422);
    expect((await noKey.json()).error).toMatchObject({ code: "business_rule", message: /send api_key/ });
    const noUrl = await save({ environment: "prd", api_key: KEY });
    expect(noUrl.status).toBe(422);
    expect(sent).toHaveLength(0);
    expect(await stored({ environment: "prd" })).toEqual([]);
  });

  it("leaves one consistent row when saves of one credential race", async () => {
    const company = await createTenant(db);
    const as = await t.token(company.admin);
    const scope = { org_id: company.org.id, company_id: company.company.id };
    const n = 8;
    const saves = Array.from({ length: n }, (_, i) => ({
      api_key: `sk_sandbox_race_${i}_key${1000 + i}`,
      url: `https://p${i}.provider.test/adapter-tax`,
      settings: { n: i },
    }));
    const responses = await Promise.all(saves.map((s) => save({ ...scope, ...s }, as)));
    expect(responses.map((r) => r.status)).toEqual(Array(n).fill(200));

    const rows = await db.superuser<CredentialRecord>(
      `select url, settings, api_key_ciphertext, api_key_hint from einv_private.credentials
        where company_id = $1`,
      [company.company.id],
    );
    expect(rows).toHaveLength(1);
    const row = rows[0] as CredentialRecord;
    const winner = saves.findIndex((s) => s.url === row.url);
    expect(winner).toBeGreaterThanOrEqual(0);
    const identity = { ...scope, service: "adapter-tax", environment: "uat" };
    // url, settings, hint and key all come from the same save
    expect({
      settings: row.settings,
      hint: row.api_key_hint,
      key: await t.deps.secretBox.open(row.api_key_ciphertext, identity),
    }).toEqual({
      settings: { n: winner },
      hint: String(1000 + winner),
      key: saves[winner]?.api_key,
    });
  });
});

describe("who may test and save", () => {
  it.each([
    ["an operador", "operador"],
    ["a lector", "lector"],
  ] as const)("refuses %s of the organization with 403, sending nothing", async (_who, role) => {
    const as = await t.token(tenant[role]);
    for (const call of [test, save]) {
      const response = await call({ api_key: KEY, url: url() }, as);
      expect(response.status).toBe(403);
      expect((await response.json()).error.code).toBe("forbidden");
    }
    expect(sent).toHaveLength(0);
  });

  it("refuses an admin of another organization with 403", async () => {
    const as = await t.token(stranger.admin);
    for (const call of [test, save]) {
      expect((await call({ api_key: KEY, url: url() }, as)).status).toBe(403);
    }
    expect(sent).toHaveLength(0);
  });

  it("answers 404 for a company of another organization, sending and storing nothing", async () => {
    for (const call of [test, save]) {
      const response = await call({ company_id: stranger.company.id, api_key: KEY, url: url() });
      expect(response.status).toBe(404);
      expect((await response.json()).error).toMatchObject({
        code: "not_found",
        message: "Company not found in this organization.",
      });
    }
    expect(sent).toHaveLength(0);
    expect(await stored({ company_id: stranger.company.id })).toEqual([]);
  });

  it("answers 401 without a token", async () => {
    expect((await t.post("/integrations/test", target({ api_key: KEY, url: url() }))).status).toBe(401);
  });
});

describe("bounds", () => {
  const deep = (levels: number): unknown => (levels === 0 ? 1 : { d: deep(levels - 1) });
  /** A settings object whose compact JSON is exactly `bytes` long. */
  const sized = (bytes: number) => ({ s: "x".repeat(bytes - '{"s":""}'.length) });

  it.each([
    ["an unknown service", { service: "sms" }, "service"],
    ["an unknown environment", { environment: "dev" }, "environment"],
    ["a company id that is not a UUID", { company_id: "acme" }, "company_id"],
    ["a key of 7 characters", { api_key: "sk_1234" }, "api_key"],
    ["a key of 513 characters", { api_key: `sk_sandbox_${"k".repeat(502)}` }, "api_key"],
    ["a key with a space", { api_key: "sk_sandbox_ key_1234" }, "api_key"],
    ["a key with a line break", { api_key: "sk_sandbox_key\r\nX-Evil: 1" }, "api_key"],
    ["a url of 2049 characters", { url: `${PROVIDERS}/${"p".repeat(2049 - PROVIDERS.length - 1)}` }, "url"],
    ["settings that are not an object", { settings: [1, 2] }, "settings"],
    ["settings of 8 KiB and one byte", { settings: sized(8193) }, "settings"],
    ["settings nested 9 levels deep", { settings: deep(9) }, "settings"],
    ["a settings key of 201 characters", { settings: { ["k".repeat(201)]: 1 } }, "settings"],
  ])("refuses %s with 400 naming the field, sending nothing", async (_what, fields, field) => {
    const response = await save({ api_key: KEY, url: url(), ...fields });
    expect(response.status).toBe(400);
    const { error } = await response.json();
    expect(error.code).toBe("validation_failed");
    expect(error.details.map((d: { field: string }) => d.field.split(".")[0])).toContain(field);
    expect(sent).toHaveLength(0);
  });

  it("accepts settings of exactly 8 KiB nested 8 levels deep", async () => {
    expect(JSON.stringify(sized(8192))).toHaveLength(8192);
    for (const settings of [sized(8192), deep(7)]) {
      const response = await save({
        service: "docsgen",
        environment: "prd",
        api_key: KEY,
        url: url(),
        settings,
      });
      expect(response.status).toBe(200);
      expect((await response.json()).settings).toEqual(settings);
    }
  });
});

describe("events", () => {
  interface EventRow {
    kind: string;
    actor_id: string | null;
    data: Record<string, unknown>;
  }
  const events = async (company: string) =>
    db.superuser<EventRow>(
      `select kind, actor_id, data from public.events
        where document_type = 'credential' and document_id = $1 order by id`,
      [company],
    );

  it("records who tested and saved what, and how it went, without the key", async () => {
    const company = await createTenant(db);
    const as = await t.token(company.admin);
    const scope = { org_id: company.org.id, company_id: company.company.id };
    await test({ ...scope, api_key: KEY, url: url() }, as);
    await test({ ...scope, api_key: BAD_KEY, url: url() }, as);
    await save({ ...scope, api_key: BAD_KEY, url: url() }, as);
    await save({ ...scope, api_key: KEY, url: url() }, as);
    await test({ ...scope, environment: "uat" }, as);

    const rows = await events(company.company.id);
    const common = { company_id: company.company.id, service: "adapter-tax", environment: "uat", url: url() };
    expect(rows.map((r) => ({ kind: r.kind, actor: r.actor_id, ...r.data }))).toEqual([
      {
        kind: "credential_tested",
        actor: company.admin.id,
        ...common,
        outcome: "ok",
        message: "The provider accepted the API key.",
        api_key_hint: "1234",
        key_source: "given",
      },
      {
        kind: "credential_tested",
        actor: company.admin.id,
        ...common,
        outcome: "failed",
        message: expect.stringMatching(/rejected the API key/),
        api_key_hint: "5678",
        key_source: "given",
      },
      {
        kind: "credential_save_refused",
        actor: company.admin.id,
        ...common,
        outcome: "rejected",
        message: expect.stringMatching(/rejected the API key/),
        api_key_hint: "5678",
        key_source: "given",
      },
      {
        kind: "credential_saved",
        actor: company.admin.id,
        ...common,
        outcome: "saved",
        message: "The provider accepted the API key.",
        api_key_hint: "1234",
        key_source: "given",
      },
      {
        kind: "credential_tested",
        actor: company.admin.id,
        ...common,
        outcome: "ok",
        message: "The provider accepted the API key.",
        api_key_hint: "1234",
        key_source: "saved",
      },
    ]);
    const all = JSON.stringify(rows);
    expect(all).not.toContain(KEY);
    expect(all).not.toContain(BAD_KEY);
  });

  it("lets the organization's admins read them, and nobody else: not its operadores or lectores", async () => {
    await test({ api_key: KEY, url: url() });
    const read = (claims: Record<string, unknown>) =>
      db.client.transaction(async (s) => {
        await s.query(
          "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
          [JSON.stringify(claims)],
        );
        return s.query("select kind from public.events where document_id = $1", [tenant.company.id]);
      });
    expect((await read(tenant.admin.claims)).length).toBeGreaterThan(0);
    expect(await read(tenant.operador.claims)).toEqual([]);
    expect(await read(tenant.lector.claims)).toEqual([]);
    expect(await read(stranger.admin.claims)).toEqual([]);
  });
});

describe("sealing", () => {
  const PLACES: [string, string][] = [
    ["adapter-tax", "uat"],
    ["deliver", "uat"],
    ["adapter-tax", "prd"],
  ];

  it("binds a ciphertext to its row: moved to another company, service or environment, it does not open", async () => {
    const [from, to] = [await createTenant(db), await createTenant(db)];
    const [asFrom, asTo] = [await t.token(from.admin), await t.token(to.admin)];
    const at = (x: Tenant) => ({ org_id: x.org.id, company_id: x.company.id });
    expect((await save({ ...at(from), api_key: KEY, url: url() }, asFrom)).status).toBe(200);
    // the other company has its own credential in each place the ciphertext is moved to
    for (const [service, environment] of PLACES) {
      const fields = { ...at(to), service, environment, api_key: OTHER_KEY, url: url(service) };
      expect((await save(fields, asTo)).status).toBe(200);
    }
    // as someone with the database but not the credentials key would move it
    await db.superuser(
      `update einv_private.credentials c set api_key_ciphertext = s.api_key_ciphertext
         from einv_private.credentials s
        where s.company_id = $1 and c.company_id = $2`,
      [from.company.id, to.company.id],
    );
    sent.length = 0;

    for (const [service, environment] of PLACES) {
      const where = { ...at(to), service, environment };
      const [row] = await db.superuser<{ api_key_ciphertext: string }>(
        `select api_key_ciphertext from einv_private.credentials
          where company_id = $1 and service = $2 and environment = $3`,
        [to.company.id, service, environment],
      );
      await expect(t.deps.secretBox.open(row?.api_key_ciphertext ?? "", where)).rejects.toThrow(
        /cannot be decrypted/,
      );
      const tested = await test(where, asTo);
      expect(tested.status).toBe(200);
      expect(await tested.json()).toMatchObject({
        ok: false,
        message: expect.stringMatching(/^The saved API key cannot be opened .*save it again with api_key\.$/),
      });
      const kept = await save(where, asTo);
      expect(kept.status).toBe(422);
      expect((await kept.json()).error.message).toMatch(/cannot be opened/);
    }
    expect(sent).toHaveLength(0);
    // in its own row it still opens
    const [own] = await stored({ company_id: from.company.id });
    const identity = { ...at(from), service: "adapter-tax", environment: "uat" };
    expect(await t.deps.secretBox.open(own?.api_key_ciphertext ?? "", identity)).toBe(KEY);
  });
});
