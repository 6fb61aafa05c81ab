/**
 * A canary key sent through /integrations/test and /integrations/save — accepted, kept, rejected,
 * echoed back by a provider in its answers and errors, refused by the URL policy or the schema, sent
 * by someone not allowed — never appears in any response (status line, headers, body), log line,
 * event, error or anywhere in the database outside its ciphertext. Every table is scanned.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, PUBLIC_TEST_ADDRESS, type TestApp } from "../../devkit/app.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Tenant } from "../../devkit/factories.ts";
import {
  createSandboxDeliver,
  createSandboxDocsgen,
  createSandboxProvider,
  createSandboxRouter,
} from "../../sandbox/index.ts";
import type { FetchLike } from "../../shared/ports/egress/exchange.ts";
import type { Resolver } from "../../shared/ports/egress/url-policy.ts";

const CANARY = `sk_sandbox_CANARY_${randomUUID().replaceAll("-", "")}`;
/** A second canary the sandbox refuses (it does not start with sk_sandbox_). */
const REJECTED = `sk_refused_CANARY_${randomUUID().replaceAll("-", "")}`;

let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;
let stranger: Tenant;
const adapterTax = createSandboxProvider({ knobs: { hangMs: 5_000 } });
const router = createSandboxRouter({
  adapterTax,
  docsgen: createSandboxDocsgen(),
  deliver: createSandboxDeliver(),
});
/** Every key the provider edge received, to show the canaries did travel there. */
const received = new Set<string>();

/** Providers that misbehave with the key: echo it in an answer, in an error, in garbage, in a failure. */
const edge: FetchLike = async (input, init) => {
  const request = new Request(input, init);
  const key = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
  received.add(key);
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  switch (new URL(request.url).hostname) {
    case "echo.provider.test":
      return json(200, { ok: false, message: `the key ${key} is not enabled` });
    case "echo401.provider.test":
      return json(401, { error: { code: "unauthorized", message: `unknown key ${key}` } });
    case "echo500.provider.test":
      return json(500, { error: { code: "internal", message: `crashed on ${key}` } });
    case "garbage.provider.test":
      return new Response(`<html>${key}</html>`, {
        status: 200,
        headers: { "content-type": "application/json" },
      });
    case "broken.provider.test":
      throw new TypeError(`connect ECONNRESET while sending Bearer ${key}`);
    default:
      return router(request);
  }
};

const resolver: Resolver = async (host) =>
  host === "rebind.provider.test" ? ["127.0.0.1"] : [PUBLIC_TEST_ADDRESS];

beforeAll(async () => {
  db = await createTestDatabase();
  t = await createTestApp(db, { env: { EINV_PROVIDER_TIMEOUT_MS: "300" }, providerFetch: edge, resolver });
  [tenant, stranger] = await Promise.all([createTenant(db), createTenant(db)]);
});
afterAll(() => db?.close());

/** Everything a caller got back, as text: status, headers and body. */
const answers: string[] = [];

async function post(route: string, body: Record<string, unknown>, who = tenant.admin): Promise<number> {
  const response = await t.post(route, { org_id: tenant.org.id, ...body }, await t.token(who));
  const headers = [...response.headers].map(([k, v]) => `${k}: ${v}`).join("\n");
  answers.push(`${response.status} ${response.statusText}\n${headers}\n\n${await response.text()}`);
  return response.status;
}

/** Every row of every table, as text. */
async function databaseText(): Promise<string> {
  const tables = await db.superuser<{ name: string }>(
    `select format('%I.%I', table_schema, table_name) as name from information_schema.tables
      where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`,
  );
  expect(tables.map((t) => t.name)).toEqual(
    expect.arrayContaining(["einv_private.credentials", "public.events", "public.invoices"]),
  );
  const dumps = await Promise.all(
    tables.map(({ name }) =>
      db.superuser<{ dump: string | null }>(`select string_agg(t::text, E'\\n') as dump from ${name} t`),
    ),
  );
  return dumps.map((rows) => rows[0]?.dump ?? "").join("\n");
}

describe("a canary key", () => {
  it("never leaves its ciphertext: not in answers, logs, events, errors or the database", async () => {
    const credential = { company_id: tenant.company.id, service: "adapter-tax", environment: "uat" };
    const sandbox = "https://sandbox.provider.test/adapter-tax";
    const given = (url: string, key = CANARY) => ({ ...credential, api_key: key, url });
    const statuses = {
      test: await post("/integrations/test", given(sandbox)),
      save: await post("/integrations/save", given(sandbox)),
      testSaved: await post("/integrations/test", credential),
      saveKept: await post("/integrations/save", { ...credential, url: sandbox }),
      saveMoved: await post("/integrations/save", {
        ...credential,
        url: "https://second.provider.test/adapter-tax",
      }),
      echoed: await post("/integrations/test", given("https://echo.provider.test/")),
      echoedSave: await post("/integrations/save", given("https://echo.provider.test/")),
      echoed401: await post("/integrations/save", given("https://echo401.provider.test/")),
      echoed500: await post("/integrations/save", given("https://echo500.provider.test/")),
      echoed500Test: await post("/integrations/test", given("https://echo500.provider.test/")),
      garbage: await post("/integrations/test", given("https://garbage.provider.test/")),
      garbageSave: await post("/integrations/save", given("https://garbage.provider.test/")),
      broken: await post("/integrations/test", given("https://broken.provider.test/")),
      brokenSave: await post("/integrations/save", given("https://broken.provider.test/")),
      rejected: await post("/integrations/test", given(sandbox, REJECTED)),
      rejectedSave: await post("/integrations/save", given(sandbox, REJECTED)),
      loopback: await post("/integrations/test", given("https://127.0.0.1/")),
      rebind: await post("/integrations/save", given("https://rebind.provider.test/")),
      badKey: await post("/integrations/test", given(sandbox, `${CANARY} x`)),
      badSettings: await post("/integrations/save", { ...given(sandbox), settings: [CANARY] }),
      lector: await post("/integrations/save", given(sandbox), tenant.lector),
      strangerCompany: await post("/integrations/test", {
        ...given(sandbox),
        company_id: stranger.company.id,
      }),
    };
    adapterTax.setKnobs({ failNext: [{ kind: "hang", on: "check", count: 2 }] });
    const slow = await post("/integrations/test", given(sandbox));
    const slowSave = await post("/integrations/save", given(sandbox));
    // the saved canary at work: a transmit opens it and sends it
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const transmit = await post("/transmit", { invoice_ids: [invoice.id] }, tenant.operador);

    expect({ ...statuses, slow, slowSave, transmit }).toEqual({
      test: 200,
      save: 200,
      testSaved: 200,
      saveKept: 200,
      saveMoved: 422,
      echoed: 200,
      echoedSave: 422,
      echoed401: 422,
      echoed500: 502,
      echoed500Test: 200,
      garbage: 200,
      garbageSave: 502,
      broken: 200,
      brokenSave: 502,
      rejected: 200,
      rejectedSave: 422,
      loopback: 400,
      rebind: 400,
      badKey: 400,
      badSettings: 400,
      lector: 403,
      strangerCompany: 404,
      slow: 200,
      slowSave: 504,
      transmit: 200,
    });
    // the canaries did reach the providers, so there was something to leak
    expect(received.has(CANARY)).toBe(true);
    expect(received.has(REJECTED)).toBe(true);

    const logs = t.logs.join("\n");
    const events = JSON.stringify(await db.superuser("select * from public.events"));
    const database = await databaseText();
    // and the places scanned are not empty: they hold what the calls left
    expect(logs).toMatch(/credential saved/);
    expect(logs).toMatch(/request failed/);
    expect(events).toMatch(/credential_saved/);
    expect(database).toContain(CANARY.slice(-4));
    const [row] = await db.superuser<{ api_key_ciphertext: string }>(
      "select api_key_ciphertext from einv_private.credentials where company_id = $1",
      [tenant.company.id],
    );
    const identity = { org_id: tenant.org.id, ...credential };
    expect(await t.deps.secretBox.open(row?.api_key_ciphertext ?? "", identity)).toBe(CANARY);

    for (const [where, text] of [
      ["answers", answers.join("\n")],
      ["logs", logs],
      ["events", events],
      ["database", database],
    ] as const) {
      for (const canary of [CANARY, REJECTED]) {
        expect({ where, leaks: text.includes(canary) }).toEqual({ where, leaks: false });
      }
    }
  });
});
