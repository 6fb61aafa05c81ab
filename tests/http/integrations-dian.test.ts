/**
 * DIAN mode of the adapter-tax credential through the real app and database: /integrations/save
 * checks the certificate (opens, the company's NIT, in force) and asks DIAN whether it knows the
 * software and its ranges, then seals the opened key, the certificate and the PIN — which
 * `openDianCredential` turns back into a signer that signs; /integrations/test does the same
 * without storing, on an unsaved credential or the saved one. The verdicts on each of DIAN's
 * answers are tested with a double at the seam (devkit/dian/numbering.ts); the last part asks DIAN
 * itself — the stand-in at the network edge, through the real client. The certificates are generated.
 */
import { createVerify } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { CANARY_CERTIFICATE_PASSWORD, CANARY_SOFTWARE_PIN } from "../../devkit/canary.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTestCertificates, type TestCertificates } from "../../devkit/dian/certificates.ts";
import { TEST_RESOLUTION } from "../../devkit/dian/documents.ts";
import {
  createDianNumberingDouble,
  dianFields,
  SOFTWARE_ID,
  TEST_SET_ID,
} from "../../devkit/dian/numbering.ts";
import { createTenant, type Tenant } from "../../devkit/factories.ts";
import { IntegrationSaveResponse } from "../../functions/integrations/save.ts";
import { IntegrationTestResponse } from "../../functions/integrations/test.ts";
import { createDianStandIn } from "../../sandbox/dian/index.ts";
import { HABILITACION_TECHNICAL_KEY } from "../../sandbox/dian/registry.ts";
import { ProviderTimeoutError, ProviderUnauthorizedError } from "../../shared/ports/providers/errors.ts";
import { openDianCredential } from "../../shared/providers/dian/credential.ts";

const HABILITACION = "https://vpfe-hab.dian.gov.co/WcfDianCustomerServices.svc";
const PRODUCTION = "https://vpfe.dian.gov.co/WcfDianCustomerServices.svc";
const DAY = 86_400_000;

let db: TestDatabase;
let t: TestApp;
/** The app as deployed: DIAN's own client, reaching DIAN (the stand-in) at the network edge. */
let real: TestApp;
const dian = createDianNumberingDouble();
const standIn = createDianStandIn();

beforeAll(async () => {
  db = await createTestDatabase();
  [t, real] = await Promise.all([
    createTestApp(db, { dianNumbering: dian }),
    createTestApp(db, { providerFetch: standIn.fetch }),
  ]);
});
afterAll(() => db?.close());
beforeEach(() => {
  dian.queries.length = 0;
});

/** A company of its own, with an admin's token and certificates for its NIT. */
async function company(options: { algorithm?: "aes256" | "3des" } = {}) {
  const tenant = await createTenant(db);
  const certs = createTestCertificates({
    nit: tenant.company.nit,
    password: CANARY_CERTIFICATE_PASSWORD,
    ...options,
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
  return { tenant, certs, call };
}

async function row(tenant: Tenant, environment = "uat") {
  const [found] = await db.superuser<{
    url: string;
    settings: Record<string, unknown>;
    api_key_ciphertext: string;
    api_key_hint: string;
    api_key_key_id: string;
  }>(
    `select url, settings, api_key_ciphertext, api_key_hint, api_key_key_id from einv_private.credentials
      where company_id = $1 and service = 'adapter-tax' and environment = $2`,
    [tenant.company.id, environment],
  );
  return found;
}

/** The saved credential, opened the way the DIAN adapter will open it. */
async function opened(tenant: Tenant, environment = "uat") {
  const saved = await row(tenant, environment);
  const identity = {
    org_id: tenant.org.id,
    company_id: tenant.company.id,
    service: "adapter-tax",
    environment,
  };
  return openDianCredential(await t.deps.secretBox.open(saved?.api_key_ciphertext ?? "", identity));
}

async function signs(signer: Awaited<ReturnType<typeof opened>>["signer"], certs: TestCertificates) {
  const data = new TextEncoder().encode("<wsa:To/>");
  const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", signer.privateKey, data);
  return createVerify("sha256").update(data).verify(certs.certificatePem, Buffer.from(signature));
}

describe("saving a DIAN-mode credential", () => {
  it("checks, then seals the opened key, certificate and PIN; the answer shows the certificate, not the key", async () => {
    const { tenant, certs, call } = await company();
    const response = await call("save", dianFields(certs, { test_set_id: TEST_SET_ID }));
    expect(response.status).toBe(200);
    const body = IntegrationSaveResponse.parse(await response.json());
    expect(body).toEqual({
      company_id: tenant.company.id,
      service: "adapter-tax",
      environment: "uat",
      url: HABILITACION,
      settings: { provider: "dian", software_id: SOFTWARE_ID, test_set_id: TEST_SET_ID },
      api_key_hint: "",
      verified_at: expect.any(String),
      certificate: {
        subject: `C=CO,1.3.6.1.4.1.23267.2.3=${certs.nit},SERIALNUMBER=${certs.nit},CN=Empresa Demo S.A.S.`,
        nit: certs.nit,
        serial: certs.serialNumber,
        not_after: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    });
    // DIAN was asked about this company, this software, with this certificate, at habilitación
    expect(dian.queries).toHaveLength(1);
    const [query] = dian.queries;
    expect({
      url: query?.url.href,
      accountCode: query?.accountCode,
      accountCodeT: query?.accountCodeT,
      softwareCode: query?.softwareCode,
      serial: query?.signer.certificate.serialNumber,
    }).toEqual({
      url: HABILITACION,
      accountCode: tenant.company.nit,
      accountCodeT: tenant.company.nit,
      softwareCode: SOFTWARE_ID,
      serial: certs.serialNumber,
    });

    const saved = await row(tenant);
    expect(saved).toMatchObject({
      url: HABILITACION,
      api_key_hint: "",
      api_key_key_id: t.deps.secretBox.keyId,
    });
    expect(saved?.api_key_ciphertext).toMatch(/^v1:/);
    const { signer, softwarePin } = await opened(tenant);
    expect(softwarePin).toBe(CANARY_SOFTWARE_PIN);
    expect(signer.certificate.serialNumber).toBe(certs.serialNumber);
    expect(await signs(signer, certs)).toBe(true);
  });

  it("takes a 3DES file, defaults to DIAN's production endpoint in prd, and a software provider's NIT", async () => {
    const { tenant, certs, call } = await company({ algorithm: "3des" });
    const response = await call("save", {
      environment: "prd",
      ...dianFields(certs, { software_provider_nit: "800197268" }),
    });
    expect(response.status).toBe(200);
    expect((await response.json()).url).toBe(PRODUCTION);
    expect(dian.queries.map((q) => [q.url.href, q.accountCode, q.accountCodeT])).toEqual([
      [PRODUCTION, tenant.company.nit, "800197268"],
    ]);
    expect(await signs((await opened(tenant, "prd")).signer, certs)).toBe(true);
  });

  it("takes a certificate whose NIT carries the check digit, as DIAN does", async () => {
    const tenant = await createTenant(db);
    const [{ check_digit: dv } = { check_digit: "" }] = await db.superuser<{ check_digit: string }>(
      "select check_digit from public.companies where id = $1",
      [tenant.company.id],
    );
    const certs = createTestCertificates({
      nit: `${tenant.company.nit}${dv}`,
      password: CANARY_CERTIFICATE_PASSWORD,
    });
    const response = await t.post(
      "/integrations/save",
      {
        org_id: tenant.org.id,
        company_id: tenant.company.id,
        service: "adapter-tax",
        environment: "uat",
        ...dianFields(certs),
      },
      await t.token(tenant.admin),
    );
    expect(response.status).toBe(200);
  });

  const cert = (nit: string, dates: { notBefore?: Date; notAfter?: Date } = {}) =>
    createTestCertificates({ nit, password: CANARY_CERTIFICATE_PASSWORD, ...dates });
  it.each([
    [
      "a wrong password",
      (own: TestCertificates) => ({ ...own, password: "not-the-password" }),
      "The certificate does not open: the certificate's password is wrong or the file is not a PKCS#12.",
    ],
    [
      "another company's certificate",
      () => cert("800999111"),
      /^The certificate is NIT 800999111's, not the company's \(NIT \d+-\d\)\.$/,
    ],
    [
      "an expired certificate",
      (own: TestCertificates) =>
        cert(own.nit, {
          notBefore: new Date(Date.now() - 400 * DAY),
          notAfter: new Date(Date.now() - 2 * DAY),
        }),
      /^The certificate expired on \d{4}-\d\d-\d\dT[\d:.]+Z\.$/,
    ],
    [
      "a certificate not valid yet",
      (own: TestCertificates) =>
        cert(own.nit, {
          notBefore: new Date(Date.now() + 3 * DAY),
          notAfter: new Date(Date.now() + 300 * DAY),
        }),
      /^The certificate is not valid yet: it is valid from \d{4}-\d\d-\d\dT[\d:.]+Z\.$/,
    ],
  ] as const)(
    "refuses %s: save 422 credential_rejected, test ok false; DIAN asked nothing, nothing stored",
    async (_what, make, message) => {
      const { tenant, certs, call } = await company();
      const given = make(certs);
      const saved = await call("save", dianFields(given));
      expect(saved.status).toBe(422);
      const { error } = await saved.json();
      expect(error.code).toBe("credential_rejected");
      expect(error.message).toMatch(/^The credential was not saved: /);
      expect(error.message.replace(/^The credential was not saved: /, "")).toMatch(message);
      const tested = IntegrationTestResponse.parse(await (await call("test", dianFields(given))).json());
      expect(tested.ok).toBe(false);
      expect(tested.message).toMatch(message);
      expect(dian.queries).toEqual([]);
      expect(await row(tenant)).toBeUndefined();
    },
  );
});

describe("DIAN's verdict on the software (GetNumberingRange)", () => {
  const said = (operationCode: string, operationDescription: string) => ({
    operationCode,
    operationDescription,
    ranges: [],
  });
  it.each([
    [
      "401",
      said("401", "NIT: 900 no autorizado para consultar rangos de numeración del NIT: 901"),
      /^DIAN says the certificate's NIT may not consult the numbering ranges of NIT \d+ \(401\): the certificate must be the company's/,
    ],
    [
      "301",
      said("301", "No fue encontrado ningún rango de numeración para el NIT: 901."),
      /^DIAN has no authorized numbering range in force for NIT \d+ \(301\): ask for a numbering resolution/,
    ],
    [
      "302",
      said("302", `No registra prefijos asociados al código de software: ${SOFTWARE_ID}.`),
      /^DIAN has no numbering range associated with the software 56f2ae4e-.* check settings\.software_id\.$/,
    ],
    [
      "303",
      said("303", "El código del software no corresponde al NIT: 901."),
      /^DIAN says the software 56f2ae4e-\S+ does not belong to NIT \d+ .*check settings\.software_id and settings\.software_provider_nit\.$/,
    ],
    ["100 without ranges", said("100", "Acción completada OK."), /^DIAN lists no numbering range in force/],
    [
      "DIAN refusing the certificate",
      new ProviderUnauthorizedError("DIAN refused the certificate (SOAP Fault Client).", {
        operation: "check_credential",
        maybeProcessed: false,
      }),
      /^DIAN refused the certificate \(SOAP Fault Client\)\.$/,
    ],
  ])(
    "turns %s into save 422 credential_rejected and test ok false, with what to fix",
    async (_code, answer, message) => {
      const { tenant, certs, call } = await company();
      const softwareId = crypto.randomUUID();
      dian.answer(softwareId, answer);
      const fields = dianFields(certs, { software_id: softwareId });
      const saved = await call("save", fields);
      expect(saved.status).toBe(422);
      const { error } = await saved.json();
      expect(error.code).toBe("credential_rejected");
      const expected = new RegExp(message.source.replaceAll("56f2ae4e-", softwareId.slice(0, 9)));
      expect(error.message.replace(/^The credential was not saved: /, "")).toMatch(expected);
      const tested = await (await call("test", fields)).json();
      expect(tested).toMatchObject({ ok: false, certificate: { serial: certs.serialNumber } });
      expect(await row(tenant)).toBeUndefined();
    },
  );

  it("answers 502 when DIAN fails (500), 504 when it does not answer, storing nothing; test says ok false", async () => {
    const { tenant, certs, call } = await company();
    const [failing, silent] = [crypto.randomUUID(), crypto.randomUUID()];
    dian.answer(failing, {
      operationCode: "500",
      operationDescription: "Ha ocurrido un error en el servicio solicitado, por favor intente mas tarde.",
      ranges: [],
    });
    dian.answer(
      silent,
      new ProviderTimeoutError("DIAN did not answer GetNumberingRange within 400 ms.", {
        operation: "check_credential",
        maybeProcessed: false,
      }),
    );
    const failed = await call("save", dianFields(certs, { software_id: failing }));
    expect(failed.status).toBe(502);
    expect((await failed.json()).error).toMatchObject({
      code: "provider_error",
      message: "DIAN's web service failed on GetNumberingRange (OperationCode 500); try again later.",
    });
    const timedOut = await call("save", dianFields(certs, { software_id: silent }));
    expect(timedOut.status).toBe(504);
    expect(await (await call("test", dianFields(certs, { software_id: silent }))).json()).toMatchObject({
      ok: false,
      message: "DIAN did not answer GetNumberingRange within 400 ms.",
    });
    expect(await row(tenant)).toBeUndefined();
  });

  it("asks DIAN itself through the real client: a software DIAN knows is saved, one it does not is refused", async () => {
    const { tenant, certs, call } = await company();
    standIn.trustCa(certs.caPem);
    standIn.putIssuer({
      nit: tenant.company.nit,
      software: [{ id: SOFTWARE_ID, pin: CANARY_SOFTWARE_PIN, ownerNit: tenant.company.nit }],
      ranges: [
        {
          resolutionNumber: TEST_RESOLUTION.number,
          resolutionDate: TEST_RESOLUTION.start_date,
          prefix: TEST_RESOLUTION.prefix,
          from: TEST_RESOLUTION.from,
          to: TEST_RESOLUTION.to,
          validFrom: TEST_RESOLUTION.start_date,
          validTo: TEST_RESOLUTION.end_date,
          technicalKey: HABILITACION_TECHNICAL_KEY,
          softwareId: SOFTWARE_ID,
        },
      ],
    });
    const saved = await call("save", dianFields(certs), real);
    expect(saved.status).toBe(200);
    expect(await row(tenant)).toBeDefined();
    const unknown = await call("save", dianFields(certs, { software_id: crypto.randomUUID() }), real);
    expect(unknown.status).toBe(422);
    expect((await unknown.json()).error).toMatchObject({
      code: "credential_rejected",
      message: expect.stringMatching(/no numbering range associated with the software/),
    });
    expect(await (await call("test", dianFields(certs), real)).json()).toMatchObject({
      ok: true,
      certificate: { nit: certs.nit },
    });
  });
});

describe("testing a DIAN-mode credential", () => {
  it("tests one never saved, whole (settings in the body), storing nothing; then the saved one, from nothing but its name", async () => {
    const { tenant, certs, call } = await company();
    const first = IntegrationTestResponse.parse(await (await call("test", dianFields(certs))).json());
    expect(first).toEqual({
      ok: true,
      company_id: tenant.company.id,
      service: "adapter-tax",
      environment: "uat",
      message: expect.stringMatching(
        new RegExp(
          `^The certificate of NIT ${certs.nit} opens and is in force until \\d{4}-\\d\\d-\\d\\d\\. DIAN knows the software ${SOFTWARE_ID} and its numbering ranges for NIT ${certs.nit}: SETP 990000000–995000000 \\(resolution 18760000001, 2019-01-19 to 2030-01-19\\)\\.$`,
        ),
      ),
      checked_at: expect.any(String),
      certificate: {
        subject: expect.any(String),
        nit: certs.nit,
        serial: certs.serialNumber,
        not_after: expect.any(String),
      },
    });
    expect(await row(tenant)).toBeUndefined();
    expect((await call("save", dianFields(certs))).status).toBe(200);
    dian.queries.length = 0;
    const saved = IntegrationTestResponse.parse(await (await call("test", {})).json());
    expect(saved).toMatchObject({ ok: true, certificate: { serial: certs.serialNumber } });
    expect(dian.queries.map((q) => [q.url.href, q.signer.certificate.serialNumber])).toEqual([
      [HABILITACION, certs.serialNumber],
    ]);
    expect(saved.warnings).toBeUndefined();
  });

  it("warns about a software PIN a CUDE gives away (short, or digits only), given or saved, never repeating it", async () => {
    const { certs, call } = await company();
    const warned = [
      {
        code: "software_pin_guessable",
        message: expect.stringMatching(
          /^The software PIN is guessable: .* at least 13 random letters of both cases and digits \(22 if only digits\)/,
        ),
      },
    ];
    for (const pin of ["12345", "k7Qp2vXn9", "123456789012345", "k7Qp2vXn9L", "1234567890123456"]) {
      const response = await call("test", { ...dianFields(certs), software_pin: pin });
      const text = await response.text();
      expect(JSON.parse(text), pin).toMatchObject({ ok: true, warnings: warned });
      expect(text).not.toContain(pin);
    }
    for (const pin of ["k7Qp2vXn9LmZr", "1234567890123456789012"]) {
      const body = IntegrationTestResponse.parse(
        await (await call("test", { ...dianFields(certs), software_pin: pin })).json(),
      );
      expect(body.warnings, pin).toBeUndefined();
    }
    // the saved PIN is judged too when none is sent
    expect((await call("save", { ...dianFields(certs), software_pin: "54321" })).status).toBe(200);
    expect(await (await call("test", {})).json()).toMatchObject({ ok: true, warnings: warned });
  });
});
