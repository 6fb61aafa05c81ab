/**
 * A DIAN-mode adapter-tax credential in the provider directory: never built into a protocol client.
 * By default it becomes DIAN's own TaxAdapter (shared/providers/dian/wiring.ts); a hook handed in
 * gets the credential opened — DIAN's url
 * checked, the settings parsed, a signer that signs for the saved certificate and the PIN — and
 * a row that cannot be used as saved (its url, its settings, its sealed form) is refused like a
 * protocol credential's.
 */
import { createVerify } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { CANARY_CERTIFICATE_PASSWORD, CANARY_SOFTWARE_PIN } from "../../devkit/canary.ts";
import { saveDianCredential } from "../../devkit/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTestCertificates, type TestCertificates } from "../../devkit/dian/certificates.ts";
import { SOFTWARE_ID } from "../../devkit/dian/numbering.ts";
import { createTenant, type Tenant } from "../../devkit/factories.ts";
import { BusinessRuleError } from "../../shared/kernel/errors.ts";
import type { TaxAdapter } from "../../shared/ports/providers/protocol.ts";
import type { DianModeCredential } from "../../shared/providers/dian/connection.ts";
import { createProviderDirectory } from "../../shared/providers/directory.ts";

let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;
let certs: TestCertificates;

beforeAll(async () => {
  db = await createTestDatabase();
  t = await createTestApp(db);
  tenant = await createTenant(db);
  certs = createTestCertificates({ nit: tenant.company.nit, password: CANARY_CERTIFICATE_PASSWORD });
  await saveDianCredential(t.deps, tenant, certs);
});
afterAll(() => db?.close());

/** What the hook was handed, and the adapter it gives back (a marker: the adapter is not built here). */
const handed: DianModeCredential[] = [];
const MARKER = { dian: true } as unknown as TaxAdapter;

const directory = (withHook: boolean) =>
  createProviderDirectory({
    serviceDb: t.deps.db.asService(),
    secretBox: t.deps.secretBox,
    timeoutMs: 2_000,
    allowPrivateUrls: false,
    egress: t.deps.egress,
    ...(withHook
      ? {
          dianTaxAdapter: (credential: DianModeCredential) => {
            handed.push(credential);
            return MARKER;
          },
        }
      : {}),
  });

describe("a DIAN-mode credential in the provider directory", () => {
  it("becomes DIAN's own TaxAdapter when no hook is handed in (it checks DIAN mode's rules before sending)", async () => {
    const adapter = await directory(false).taxAdapter(tenant.org.id, tenant.company.id, "uat");
    expect(adapter.precheck).toBeTypeOf("function");
  });

  it("is handed to the dianTaxAdapter hook opened: url, settings, a signer for the saved certificate, the PIN", async () => {
    handed.length = 0;
    expect(await directory(true).taxAdapter(tenant.org.id, tenant.company.id, "uat")).toBe(MARKER);
    expect(handed).toHaveLength(1);
    const [credential] = handed as [DianModeCredential];
    expect({
      orgId: credential.orgId,
      companyId: credential.companyId,
      environment: credential.environment,
      url: credential.url.href,
      settings: credential.settings,
      softwarePin: credential.softwarePin,
      serial: credential.signer.certificate.serialNumber,
      fetch: typeof credential.fetch,
    }).toEqual({
      orgId: tenant.org.id,
      companyId: tenant.company.id,
      environment: "uat",
      url: "https://vpfe-hab.dian.gov.co/WcfDianCustomerServices.svc",
      settings: { provider: "dian", software_id: SOFTWARE_ID },
      softwarePin: CANARY_SOFTWARE_PIN,
      serial: certs.serialNumber,
      fetch: "function",
    });
    const data = new TextEncoder().encode("<ext:UBLExtensions/>");
    const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", credential.signer.privateKey, data);
    expect(createVerify("sha256").update(data).verify(certs.certificatePem, Buffer.from(signature))).toBe(
      true,
    );
  });

  it.each([
    [
      "a url that is no longer DIAN's",
      { url: "https://dian.example.com/WcfDianCustomerServices.svc" },
      /cannot be used: in DIAN mode the uat credential reaches only DIAN's habilitación host/,
    ],
    [
      "settings DIAN mode does not take",
      { settings: { provider: "dian" } },
      /cannot be used: its DIAN-mode settings are not valid; save it again\.$/,
    ],
  ])("refuses a saved row with %s as unusable", async (_what, options, message) => {
    const other = await createTenant(db);
    await saveDianCredential(t.deps, other, createTestCertificates({ nit: other.company.nit }), options);
    const error = await directory(true)
      .taxAdapter(other.org.id, other.company.id, "uat")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BusinessRuleError);
    expect((error as Error).message).toMatch(message);
  });

  it("refuses a sealed form moved from another company's row", async () => {
    const other = await createTenant(db);
    await saveDianCredential(t.deps, other, createTestCertificates({ nit: other.company.nit }));
    await db.superuser(
      `update einv_private.credentials c set api_key_ciphertext = s.api_key_ciphertext
         from einv_private.credentials s where s.company_id = $1 and c.company_id = $2`,
      [tenant.company.id, other.company.id],
    );
    await expect(directory(true).taxAdapter(other.org.id, other.company.id, "uat")).rejects.toThrow(
      /cannot be used: the stored credential cannot be decrypted for this company and service; save it again\./,
    );
  });
});
