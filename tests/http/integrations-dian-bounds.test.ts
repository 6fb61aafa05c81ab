/**
 * The bounds of DIAN mode's fields in /integrations/save and /integrations/test: each refused field
 * is a 400 naming it, DIAN is asked nothing and nothing is stored — DIAN mode's fields outside it and
 * `api_key` inside it, its settings, the certificate file (encoding, size, its algorithms and the
 * key-derivation work it declares: refused before any of it runs), the password and PIN, the key's
 * size, and the url (DIAN's
 * host for the environment only, except a private target when local development allows it).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { CANARY_CERTIFICATE_PASSWORD } from "../../devkit/canary.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTestCertificates, type TestCertificates } from "../../devkit/dian/certificates.ts";
import { createDianNumberingDouble, dianFields, TEST_SET_ID } from "../../devkit/dian/numbering.ts";
import { pkcs12File, withIterations } from "../../devkit/dian/pkcs12-files.ts";
import { createTenant, type Tenant } from "../../devkit/factories.ts";

let db: TestDatabase;
let t: TestApp;
let local: TestApp;
let tenant: Tenant;
let certs: TestCertificates;
const dian = createDianNumberingDouble();

beforeAll(async () => {
  db = await createTestDatabase();
  [t, local] = await Promise.all([
    createTestApp(db, { dianNumbering: dian }),
    createTestApp(db, { dianNumbering: dian, env: { EINV_ALLOW_PRIVATE_PROVIDER_URLS: "true" } }),
  ]);
  tenant = await createTenant(db);
  certs = createTestCertificates({ nit: tenant.company.nit, password: CANARY_CERTIFICATE_PASSWORD });
});
afterAll(() => db?.close());
beforeEach(() => {
  dian.queries.length = 0;
});

const call = async (route: "test" | "save", fields: Record<string, unknown>, app = t) =>
  app.post(
    `/integrations/${route}`,
    {
      org_id: tenant.org.id,
      company_id: tenant.company.id,
      service: "adapter-tax",
      environment: "uat",
      ...fields,
    },
    await app.token(tenant.admin),
  );

const stored = async () =>
  db.superuser("select 1 from einv_private.credentials where company_id = $1", [tenant.company.id]);

/** Both routes answer 400 naming `field` (and `message`, when given), having sent and stored nothing. */
async function refusedNaming(fields: Record<string, unknown>, field: string, message?: RegExp, app = t) {
  for (const route of ["test", "save"] as const) {
    const response = await call(route, fields, app);
    expect(response.status, `${route} ${field}`).toBe(400);
    const { error } = await response.json();
    expect(error.code).toBe("validation_failed");
    const detail = (error.details as { field: string; message: string }[]).find((d) => d.field === field);
    expect(detail, `${route}: ${JSON.stringify(error.details)}`).toBeDefined();
    if (message) expect(detail?.message).toMatch(message);
  }
  expect(dian.queries).toEqual([]);
  expect(await stored()).toEqual([]);
}

const dianMode = () => dianFields(certs);
const withSettings = (settings: Record<string, unknown>) => ({ ...dianMode(), settings });
const withCertificate = (certificate: unknown) => ({ ...dianMode(), certificate });

describe("DIAN mode's fields", () => {
  it.each([
    [
      "certificate",
      () => ({ api_key: "sk_sandbox_key_1234", url: "https://p.test/", certificate: dianMode().certificate }),
    ],
    [
      "software_pin",
      () => ({ api_key: "sk_sandbox_key_1234", url: "https://p.test/", software_pin: "12345" }),
    ],
  ])("refuses %s outside DIAN mode", async (field, fields) => {
    await refusedNaming(fields(), field, /is taken only in DIAN mode/);
    await refusedNaming({ ...fields(), settings: { provider: "other" } }, field);
  });

  it("refuses api_key in DIAN mode, and DIAN mode for another service than adapter-tax", async () => {
    await refusedNaming(
      { ...dianMode(), api_key: "sk_sandbox_key_1234" },
      "api_key",
      /not used in DIAN mode/,
    );
    await refusedNaming(
      { ...dianMode(), service: "deliver" },
      "settings.provider",
      /adapter-tax credential only/,
    );
  });

  it.each([
    ["settings.software_id", { provider: "dian" }, /expected string|required/i],
    ["settings.software_id", { provider: "dian", software_id: "x".repeat(101) }, /at most 100/],
    [
      "settings.software_id",
      { provider: "dian", software_id: "56f2ae4e 9812" },
      /letters, digits and hyphens/,
    ],
    ["settings.test_set_id", { provider: "dian", software_id: "s1", test_set_id: "set-1" }, /GUID/],
    [
      "settings.software_provider_nit",
      { provider: "dian", software_id: "s1", software_provider_nit: "12" },
      /5 to 15 digits/,
    ],
    ["settings.pin", { provider: "dian", software_id: "s1", pin: "12345" }, /not a setting of DIAN mode/],
  ])("refuses %s as DIAN mode's settings have it", async (field, settings, message) => {
    await refusedNaming(withSettings(settings), field, message);
  });

  it("takes test_set_id in habilitación only", async () => {
    const settings = { provider: "dian", software_id: "s1", test_set_id: TEST_SET_ID };
    await refusedNaming({ ...withSettings(settings), environment: "prd" }, "settings.test_set_id", /uat/);
  });

  it.each([
    ["not base64", { p12_base64: "%%%%", password: "x" }, "certificate.p12_base64", /standard base64/],
    [
      "a base64 length that is not whole",
      { p12_base64: "QUJDRA=", password: "x" },
      "certificate.p12_base64",
      /base64/,
    ],
    [
      "a file over 16 KiB",
      { p12_base64: Buffer.alloc(16_385).toString("base64"), password: "x" },
      "certificate.p12_base64",
      /decodes to 16385 bytes; a certificate file is at most 16384 bytes/,
    ],
    [
      "a text over 23,000 characters",
      { p12_base64: "A".repeat(23_004), password: "x" },
      "certificate.p12_base64",
      /at most 23000/,
    ],
    ["an empty password", { p12_base64: "QUJD", password: "" }, "certificate.password", /empty/],
    [
      "a password of 129 characters",
      { p12_base64: "QUJD", password: "p".repeat(129) },
      "certificate.password",
      /at most 128/,
    ],
    ["no password", { p12_base64: "QUJD" }, "certificate.password", undefined],
    [
      "a field it does not have",
      { p12_base64: "QUJD", password: "x", pfx: "QUJD" },
      "certificate.pfx",
      undefined,
    ],
  ])("refuses a certificate with %s", async (_what, certificate, field, message) => {
    await refusedNaming(withCertificate(certificate), field, message);
  });

  it.each([
    ["empty", "", /empty/],
    ["of 101 characters", "1".repeat(101), /at most 100/],
    ["with a space", "123 45", /visible ASCII/],
  ])("refuses a software_pin %s", async (_what, pin, message) => {
    await refusedNaming({ ...dianMode(), software_pin: pin }, "software_pin", message);
  });
});

describe("the cost of the certificate file", () => {
  it("refuses a file declaring more key-derivation work than the cap, before deriving any of it", async () => {
    const hostile = { ...certs, p12: withIterations(certs.p12, { mac: 2_000_000_000n }) };
    const started = performance.now();
    await refusedNaming(
      dianFields(hostile),
      "certificate.p12_base64",
      /^the certificate file asks for 6,000,004,096 units of password key-derivation work to open \(iterations × blocks × each hash's weight; OpenSSL's defaults cost 12,288\); at most 64,000 are accepted/,
    );
    // two billion iterations at about a microsecond each would be half an hour: none of it ran
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("refuses, naming it, the algorithm of the file that froze every tenant (hmacWithSHA224, 199,999 iterations)", async () => {
    const file = withIterations(
      pkcs12File(certs, { mac: null, key: { algorithm: "aes256", prf: "sha224", iterations: 1 } }),
      { key: 199_999n },
    );
    const started = performance.now();
    await refusedNaming(
      dianFields({ ...certs, p12: file }),
      "certificate.p12_base64",
      /^the certificate file is not supported: its private key derives its key with PBKDF2 and hmacWithSHA224 \(1\.2\.840\.113549\.2\.8\);/,
    );
    // node-forge ran those iterations as SHA-512/224 for 5–7 s a request, holding every tenant's
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it("refuses a key outside 2048–4096 bits as a certificate DIAN mode does not take", async () => {
    const small = createTestCertificates({
      nit: tenant.company.nit,
      password: CANARY_CERTIFICATE_PASSWORD,
      bits: 1024,
    });
    const response = await call("save", dianFields(small));
    expect(response.status).toBe(422);
    expect((await response.json()).error.message).toBe(
      "The credential was not saved: The certificate's key has 1024 bits; DIAN mode takes RSA keys of 2048 to 4096 bits.",
    );
    expect(dian.queries).toEqual([]);
  });
});

describe("where DIAN mode may connect", () => {
  it.each([
    ["another host", "https://dian.example.com/WcfDianCustomerServices.svc"],
    ["production's host in uat", "https://vpfe.dian.gov.co/WcfDianCustomerServices.svc"],
    ["plain http to DIAN's host", "http://vpfe-hab.dian.gov.co/WcfDianCustomerServices.svc"],
    ["another port", "https://vpfe-hab.dian.gov.co:8443/WcfDianCustomerServices.svc"],
    ["a loopback address", "https://127.0.0.1/WcfDianCustomerServices.svc"],
  ])("refuses %s as the url, naming it", async (_what, url) => {
    await refusedNaming({ ...dianMode(), url }, "url", /^The url is not allowed: /);
  });

  it("names DIAN's habilitación host in the refusal", async () => {
    const response = await call("test", { ...dianMode(), url: "https://dian.example.com/" });
    expect((await response.json()).error.details[0].message).toBe(
      "The url is not allowed: in DIAN mode the uat credential reaches only DIAN's habilitación host, https://vpfe-hab.dian.gov.co/.",
    );
  });

  it("reaches a private target (the local stand-in) when local development allows private urls, and still no public host but DIAN's", async () => {
    const standIn = "http://127.0.0.1:8099/dian/WcfDianCustomerServices.svc";
    const response = await call("test", { ...dianMode(), url: standIn }, local);
    expect(await response.json()).toMatchObject({ ok: true });
    expect(dian.queries.map((q) => q.url.href)).toEqual([standIn]);
    dian.queries.length = 0;
    await refusedNaming(
      { ...dianMode(), url: "https://dian.example.com/" },
      "url",
      /or, in local development, a private address/,
      local,
    );
  });
});
