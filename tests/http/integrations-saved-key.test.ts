/**
 * A saved (sealed) provider key goes to its saved url and nowhere else. An admin — or whoever holds
 * an admin's session — who names another url in /integrations/test or /integrations/save without
 * `api_key` gets a 422 saying the key must come with it, and the other server hears nothing: no
 * check, no re-pointed credential for later documents. Over real HTTP on loopback (the local
 * development setting): the provider is the sandbox server, the "attacker" a second server that
 * records every request it gets.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Tenant } from "../../devkit/factories.ts";
import { createSandboxProvider } from "../../sandbox/index.ts";
import { type RunningSandbox, startSandboxServer } from "../../sandbox/server.ts";

const KEY = "sk_sandbox_saved_key_1234";
const OTHER_KEY = "sk_sandbox_given_key_9876";

let db: TestDatabase;
let t: TestApp;
let provider: RunningSandbox;
let attacker: Server;
let attackerUrl: string;
/** Every request the attacker's server received: its path and Authorization header. */
const heard: { path: string; authorization: string | undefined }[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  // no provider fetch handed in: provider calls go over the network, to loopback
  t = await createTestApp(db, { env: { EINV_ALLOW_PRIVATE_PROVIDER_URLS: "true" } });
  provider = await startSandboxServer(createSandboxProvider(), { port: 0 });
  attacker = createServer((req, res) => {
    heard.push({ path: req.url ?? "", authorization: req.headers.authorization });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: true, message: "Key accepted." }));
  });
  await new Promise<void>((done) => attacker.listen(0, "127.0.0.1", done));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/adapter-tax`;
});
afterAll(async () => {
  await provider?.close();
  attacker?.closeAllConnections();
  await new Promise((done) => attacker?.close(done));
  await db?.close();
});

async function savedCredential(): Promise<{ tenant: Tenant; token: string; where: Record<string, string> }> {
  const tenant = await createTenant(db);
  const token = await t.token(tenant.admin);
  const where = {
    org_id: tenant.org.id,
    company_id: tenant.company.id,
    service: "adapter-tax",
    environment: "uat",
  };
  const saved = await t.post(
    "/integrations/save",
    { ...where, api_key: KEY, url: `${provider.url}/adapter-tax` },
    token,
  );
  expect(saved.status).toBe(200);
  return { tenant, token, where };
}

const storedUrl = async (tenant: Tenant) =>
  (
    await db.superuser<{ url: string }>("select url from einv_private.credentials where company_id = $1", [
      tenant.company.id,
    ])
  ).map((r) => r.url);

describe("a saved key", () => {
  it("is never sent to another url: test and save naming one without api_key are 422, and it hears nothing", async () => {
    const { tenant, token, where } = await savedCredential();
    heard.length = 0;
    const elsewhere = [
      attackerUrl,
      attackerUrl.replace("127.0.0.1", "localhost"),
      `${attackerUrl}/credentials/check`,
      // the saved url's host with another port or path is another url too
      `${provider.url}/docsgen`,
    ];
    for (const url of elsewhere) {
      for (const route of ["test", "save"] as const) {
        const response = await t.post(`/integrations/${route}`, { ...where, url }, token);
        expect({ url, route, status: response.status }).toEqual({ url, route, status: 422 });
        expect((await response.json()).error).toMatchObject({
          code: "business_rule",
          message: expect.stringMatching(/only sent to its saved url.*send api_key/),
        });
      }
    }
    expect(heard).toEqual([]);
    expect(await storedUrl(tenant)).toEqual([`${provider.url}/adapter-tax`]);

    // and later documents still go to the saved url, with the saved key
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const transmit = await t.post(
      "/transmit",
      { org_id: tenant.org.id, invoice_ids: [invoice.id] },
      await t.token(tenant.operador),
    );
    expect((await transmit.json()).results[0]).toMatchObject({ status: "transmitida" });
    expect(heard).toEqual([]);
  });

  it("is still used at its saved url, however the request spells it", async () => {
    const { token, where } = await savedCredential();
    heard.length = 0;
    const saved = `${provider.url}/adapter-tax`;
    const tested = await t.post("/integrations/test", where, token);
    expect(await tested.json()).toMatchObject({ ok: true });
    for (const url of [saved, saved.replace("http://", "HTTP://")]) {
      expect(await (await t.post("/integrations/test", { ...where, url }, token)).json()).toMatchObject({
        ok: true,
      });
    }
    const kept = await t.post("/integrations/save", { ...where, url: saved, settings: { a: 1 } }, token);
    expect(kept.status).toBe(200);
    expect(await kept.json()).toMatchObject({ url: saved, settings: { a: 1 }, api_key_hint: "1234" });
    expect(heard).toEqual([]);
  });

  it("is replaced, not sent, when a new url comes with its key", async () => {
    const { tenant, token, where } = await savedCredential();
    heard.length = 0;
    const moved = await t.post(
      "/integrations/save",
      { ...where, url: attackerUrl, api_key: OTHER_KEY },
      token,
    );
    expect(moved.status).toBe(200);
    expect(heard).toEqual([{ path: "/adapter-tax/credentials/check", authorization: `Bearer ${OTHER_KEY}` }]);
    expect(await storedUrl(tenant)).toEqual([attackerUrl]);
  });
});
