/**
 * DIAN mode's secrets — the certificate's password, the software PIN, the private key, the PKCS#12
 * file itself — sent through /integrations/test and /integrations/save on every path (accepted,
 * kept, renewed, refused by each check, by the bounds, by the url rule, by DIAN, by someone not
 * allowed) and then used by /transmit, never appear in any answer (status line, headers, body), log
 * line, event or anywhere in the database outside the sealed column. Every table is scanned. (The
 * suite-wide scan looks for the password, PIN and keys too: devkit/canary.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { CANARY_CERTIFICATE_PASSWORD, CANARY_SOFTWARE_PIN } from "../../devkit/canary.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTestCertificates, type TestCertificates } from "../../devkit/dian/certificates.ts";
import { createDianNumberingDouble, dianFields } from "../../devkit/dian/numbering.ts";
import { withIterations } from "../../devkit/dian/pkcs12-files.ts";
import { createInvoice, createTenant, type Tenant } from "../../devkit/factories.ts";
import { createDianStandIn } from "../../sandbox/dian/index.ts";

let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;
let certs: TestCertificates;
const dian = createDianNumberingDouble();

beforeAll(async () => {
  db = await createTestDatabase();
  tenant = await createTenant(db);
  certs = createTestCertificates({ nit: tenant.company.nit, password: CANARY_CERTIFICATE_PASSWORD });
  // DIAN at the network edge: the stand-in trusts the company's certificate but has no numbering
  // range for it, so a transmission is refused by DIAN's rules after the whole path has run
  const standIn = createDianStandIn();
  standIn.trustCa(certs.caPem);
  t = await createTestApp(db, { dianNumbering: dian, providerFetch: standIn.fetch });
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

async function databaseText(): Promise<string> {
  const tables = await db.superuser<{ name: string }>(
    `select format('%I.%I', table_schema, table_name) as name from information_schema.tables
      where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`,
  );
  const dumps = await Promise.all(
    tables.map(({ name }) =>
      db.superuser<{ dump: string | null }>(`select string_agg(t::text, E'\\n') as dump from ${name} t`),
    ),
  );
  return dumps.map((rows) => rows[0]?.dump ?? "").join("\n");
}

describe("DIAN mode's secrets", () => {
  it("never leave the sealed column: not in answers, logs, events, errors or the database", async () => {
    const credential = { company_id: tenant.company.id, service: "adapter-tax", environment: "uat" };
    const fields = dianFields(certs);
    const stranger = createTestCertificates({ nit: "800123999", password: CANARY_CERTIFICATE_PASSWORD });
    const hostile = { ...certs, p12: withIterations(certs.p12, { key: 900_000_000n }) };
    const refusing = crypto.randomUUID();
    dian.answer(refusing, { operationCode: "302", operationDescription: "No registra prefijos", ranges: [] });
    const statuses = {
      test: await post("/integrations/test", { ...credential, ...fields }),
      save: await post("/integrations/save", { ...credential, ...fields }),
      testSaved: await post("/integrations/test", credential),
      saveKept: await post("/integrations/save", credential),
      newPin: await post("/integrations/save", { ...credential, software_pin: CANARY_SOFTWARE_PIN }),
      wrongPassword: await post("/integrations/save", {
        ...credential,
        ...dianFields({ ...certs, password: `${CANARY_CERTIFICATE_PASSWORD}x` }),
      }),
      otherNit: await post("/integrations/save", { ...credential, ...dianFields(stranger) }),
      hostile: await post("/integrations/test", { ...credential, ...dianFields(hostile) }),
      dianRefuses: await post("/integrations/save", {
        ...credential,
        ...dianFields(certs, { software_id: refusing }),
      }),
      badUrl: await post("/integrations/save", {
        ...credential,
        ...fields,
        url: "https://dian.example.com/",
      }),
      badPin: await post("/integrations/test", {
        ...credential,
        ...fields,
        software_pin: `${CANARY_SOFTWARE_PIN} x`,
      }),
      badPassword: await post("/integrations/test", {
        ...credential,
        ...fields,
        certificate: { p12_base64: "QUJD", password: CANARY_CERTIFICATE_PASSWORD.repeat(6) },
      }),
      apiKeyToo: await post("/integrations/save", {
        ...credential,
        ...fields,
        api_key: "sk_sandbox_key_1234",
      }),
      lector: await post("/integrations/save", { ...credential, ...fields }, tenant.lector),
    };
    // the saved credential at work: signed, sent to DIAN (the stand-in) and answered
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const transmit = await post("/transmit", { invoice_ids: [invoice.id] }, tenant.operador);

    expect({ ...statuses, transmit }).toEqual({
      test: 200,
      save: 200,
      testSaved: 200,
      saveKept: 200,
      newPin: 200,
      wrongPassword: 422,
      otherNit: 422,
      hostile: 400,
      dianRefuses: 422,
      badUrl: 400,
      badPin: 400,
      badPassword: 400,
      apiKeyToo: 400,
      lector: 403,
      transmit: 200,
    });
    expect(answers.at(-1)).toMatch(/"code":"(rejected|provider_refused)"/);

    const logs = t.logs.join("\n");
    const events = JSON.stringify(await db.superuser("select * from public.events"));
    const database = await databaseText();
    // the places scanned hold what the calls left
    expect(logs).toMatch(/credential saved/);
    expect(logs).toMatch(/DIAN answered GetNumberingRange/);
    expect(events).toMatch(/credential_saved/);
    // the sealed form is there, a few kilobytes of ciphertext
    expect(database).toMatch(/v1:[A-Za-z0-9_-]+:[A-Za-z0-9_-]{3000,}/);

    const p12 = Buffer.from(certs.p12).toString("base64");
    const secrets = {
      password: CANARY_CERTIFICATE_PASSWORD,
      pin: CANARY_SOFTWARE_PIN,
      key: certs.pkcs8Base64,
      keyPart: certs.pkcs8Base64.slice(800, 864),
      file: p12.slice(1000, 1064),
    };
    for (const [where, text] of [
      ["answers", answers.join("\n")],
      ["logs", logs],
      ["events", events],
      ["database", database],
    ] as const) {
      for (const [name, secret] of Object.entries(secrets)) {
        expect({ where, name, leaks: text.includes(secret) }).toEqual({ where, name, leaks: false });
      }
    }
  });
});
