/**
 * A saved DIAN-mode credential: what is not sent again is kept (the certificate, the PIN, the url,
 * the settings) and used only at the saved url; a renewed certificate keeps the PIN and a new PIN
 * keeps the certificate; the sealed form is bound to its row; switching to or from a provider key
 * never takes one for the other; and the events say who did what, how it went, without a secret.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { CANARY_CERTIFICATE_PASSWORD, CANARY_SOFTWARE_PIN } from "../../devkit/canary.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTestCertificates } from "../../devkit/dian/certificates.ts";
import {
  createDianNumberingDouble,
  dianFields,
  SOFTWARE_ID,
  TEST_SET_ID,
} from "../../devkit/dian/numbering.ts";
import { createTenant, type Tenant } from "../../devkit/factories.ts";
import {
  createSandboxDeliver,
  createSandboxDocsgen,
  createSandboxProvider,
  createSandboxRouter,
} from "../../sandbox/index.ts";
import { openDianCredential } from "../../shared/providers/dian/credential.ts";

const HABILITACION = "https://vpfe-hab.dian.gov.co/WcfDianCustomerServices.svc";
const SANDBOX = "https://sandbox.provider.test/adapter-tax";
const KEY = "sk_sandbox_switch_key_4321";

let db: TestDatabase;
let t: TestApp;
const dian = createDianNumberingDouble();
const router = createSandboxRouter({
  adapterTax: createSandboxProvider(),
  docsgen: createSandboxDocsgen(),
  deliver: createSandboxDeliver(),
});

beforeAll(async () => {
  db = await createTestDatabase();
  t = await createTestApp(db, { dianNumbering: dian, providerFetch: (input, init) => router(input, init) });
});
afterAll(() => db?.close());
beforeEach(() => {
  dian.queries.length = 0;
});

async function company() {
  const tenant = await createTenant(db);
  const certs = createTestCertificates({ nit: tenant.company.nit, password: CANARY_CERTIFICATE_PASSWORD });
  const token = await t.token(tenant.admin);
  const call = (route: "test" | "save", fields: Record<string, unknown> = {}) =>
    t.post(
      `/integrations/${route}`,
      {
        org_id: tenant.org.id,
        company_id: tenant.company.id,
        service: "adapter-tax",
        environment: "uat",
        ...fields,
      },
      token,
    );
  return { tenant, certs, call };
}

const identity = (tenant: Tenant) => ({
  org_id: tenant.org.id,
  company_id: tenant.company.id,
  service: "adapter-tax",
  environment: "uat",
});

async function saved(tenant: Tenant) {
  const [row] = await db.superuser<{
    url: string;
    settings: Record<string, unknown>;
    api_key_ciphertext: string;
  }>("select url, settings, api_key_ciphertext from einv_private.credentials where company_id = $1", [
    tenant.company.id,
  ]);
  if (!row) return undefined;
  const credential = await openDianCredential(
    await t.deps.secretBox.open(row.api_key_ciphertext, identity(tenant)),
  );
  return { ...row, serial: credential.signer.certificate.serialNumber, pin: credential.softwarePin };
}

describe("a saved DIAN-mode credential", () => {
  it("keeps what is not sent again, checked with the saved certificate at the saved url", async () => {
    const { tenant, certs, call } = await company();
    expect((await call("save", dianFields(certs))).status).toBe(200);
    dian.queries.length = 0;
    const kept = await call("save", {
      settings: { provider: "dian", software_id: SOFTWARE_ID, test_set_id: TEST_SET_ID },
    });
    expect(kept.status).toBe(200);
    expect(await kept.json()).toMatchObject({
      url: HABILITACION,
      settings: { test_set_id: TEST_SET_ID },
      certificate: { serial: certs.serialNumber },
    });
    expect(dian.queries.map((q) => [q.url.href, q.signer.certificate.serialNumber])).toEqual([
      [HABILITACION, certs.serialNumber],
    ]);
    expect(await saved(tenant)).toMatchObject({ serial: certs.serialNumber, pin: CANARY_SOFTWARE_PIN });
    // and without settings, the saved ones (still DIAN mode)
    expect((await call("save")).status).toBe(200);
    expect((await saved(tenant))?.settings).toEqual({
      provider: "dian",
      software_id: SOFTWARE_ID,
      test_set_id: TEST_SET_ID,
    });
  });

  it("uses the saved certificate and PIN only at the saved url: another one needs them sent again", async () => {
    const { tenant, certs, call } = await company();
    await call("save", dianFields(certs));
    dian.queries.length = 0;
    const standIn = "https://vpfe-hab.dian.gov.co/Other.svc";
    for (const route of ["test", "save"] as const) {
      const moved = await call(route, { url: standIn });
      expect(moved.status).toBe(422);
      expect((await moved.json()).error).toMatchObject({
        code: "business_rule",
        message:
          "The saved certificate and PIN of the company's adapter-tax credential in uat (DIAN mode) are only used at its saved url; to use another url, send certificate and software_pin with it.",
      });
    }
    expect(dian.queries).toEqual([]);
    // with both sent again, it moves
    expect((await call("save", { ...dianFields(certs), url: standIn })).status).toBe(200);
    expect((await saved(tenant))?.url).toBe(standIn);
  });

  it("keeps the PIN when a renewed certificate is sent alone, and the certificate when a new PIN is", async () => {
    const { tenant, certs, call } = await company();
    await call("save", dianFields(certs));
    const renewed = createTestCertificates({
      nit: tenant.company.nit,
      password: CANARY_CERTIFICATE_PASSWORD,
    });
    const { certificate } = dianFields(renewed);
    expect((await call("save", { certificate })).status).toBe(200);
    expect(await saved(tenant)).toMatchObject({ serial: renewed.serialNumber, pin: CANARY_SOFTWARE_PIN });
    expect((await call("save", { software_pin: "98765" })).status).toBe(200);
    expect(await saved(tenant)).toMatchObject({ serial: renewed.serialNumber, pin: "98765" });
  });

  it("does not open in another company's row: test says so, save refuses, DIAN is asked nothing", async () => {
    const from = await company();
    const to = await company();
    await from.call("save", dianFields(from.certs));
    await to.call("save", dianFields(to.certs));
    await db.superuser(
      `update einv_private.credentials c set api_key_ciphertext = s.api_key_ciphertext
         from einv_private.credentials s where s.company_id = $1 and c.company_id = $2`,
      [from.tenant.company.id, to.tenant.company.id],
    );
    dian.queries.length = 0;
    expect(await (await to.call("test")).json()).toMatchObject({
      ok: false,
      message: expect.stringMatching(
        /^The saved certificate cannot be opened \(.*\); save it again with certificate and software_pin\.$/,
      ),
    });
    expect((await to.call("save")).status).toBe(422);
    expect(dian.queries).toEqual([]);
  });
});

describe("switching between a provider key and DIAN mode", () => {
  it("never takes DIAN mode's sealed form for a key, nor a key for a certificate", async () => {
    const { tenant, certs, call } = await company();
    expect((await call("save", dianFields(certs))).status).toBe(200);
    // to a provider: the key and url must come with it
    const noKey = await call("save", { settings: {}, url: SANDBOX });
    expect(noKey.status).toBe(422);
    expect((await noKey.json()).error.message).toMatch(/No API key is saved .*; send api_key\./);
    const noUrl = await call("test", { settings: {}, api_key: KEY });
    expect(noUrl.status).toBe(422);
    expect((await noUrl.json()).error.message).toMatch(/send url\./);
    expect((await call("save", { settings: {}, api_key: KEY, url: SANDBOX })).status).toBe(200);
    // and back: the key is no certificate
    const noCertificate = await call("save", { settings: { provider: "dian", software_id: SOFTWARE_ID } });
    expect(noCertificate.status).toBe(422);
    expect((await noCertificate.json()).error.message).toBe(
      "No certificate and PIN are saved for the company's adapter-tax credential in uat (DIAN mode); send certificate and software_pin.",
    );
    const back = await call("save", dianFields(certs));
    expect(back.status).toBe(200);
    // the provider's url is not DIAN's: the default endpoint was taken
    expect((await back.json()).url).toBe(HABILITACION);
    expect(await saved(tenant)).toMatchObject({ serial: certs.serialNumber });
  });
});

describe("events of DIAN mode", () => {
  it("record who tested and saved which certificate, how it went, and no secret", async () => {
    const { tenant, certs, call } = await company();
    await call("test", dianFields(certs));
    await call("save", dianFields({ ...certs, password: "wrong-password" }));
    await call("save", dianFields(certs));
    const rows = await db.superuser<{ kind: string; actor_id: string; data: Record<string, unknown> }>(
      `select kind, actor_id, data from public.events
        where document_type = 'credential' and document_id = $1 order by id`,
      [tenant.company.id],
    );
    const common = {
      company_id: tenant.company.id,
      service: "adapter-tax",
      environment: "uat",
      url: HABILITACION,
      api_key_hint: "",
      key_source: "given",
    };
    expect(rows.map((r) => ({ kind: r.kind, actor: r.actor_id, ...r.data }))).toEqual([
      {
        kind: "credential_tested",
        actor: tenant.admin.id,
        ...common,
        outcome: "ok",
        message: expect.stringMatching(/^The certificate of NIT \d+ opens/),
      },
      {
        kind: "credential_save_refused",
        actor: tenant.admin.id,
        ...common,
        outcome: "rejected",
        message:
          "The certificate does not open: the certificate's password is wrong or the file is not a PKCS#12.",
      },
      {
        kind: "credential_saved",
        actor: tenant.admin.id,
        ...common,
        outcome: "saved",
        message: expect.stringMatching(/DIAN knows the software/),
      },
    ]);
    const text = JSON.stringify(rows);
    for (const secret of [
      CANARY_CERTIFICATE_PASSWORD,
      CANARY_SOFTWARE_PIN,
      certs.pkcs8Base64.slice(800, 864),
    ]) {
      expect(text).not.toContain(secret);
    }
  });
});
