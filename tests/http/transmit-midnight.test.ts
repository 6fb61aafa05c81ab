/**
 * When a document is issued and signed, in DIAN direct (DESIGN §12, docs/adr/0010): /transmit
 * through the real app and database, a company's DIAN-mode credential, and the DIAN stand-in at the
 * network edge checking what DIAN checks (FAD09e: the issue date is the signing date in Colombia).
 * The service's clock is the test's. A draft dated days earlier is issued and signed at the
 * clock's instant; a resend after an unknown outcome keeps its issue date (its CUFE) and is signed
 * when it is resent, so on a later day DIAN refuses it; refused, it is issued anew and accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { CANARY_SOFTWARE_PIN } from "../../devkit/canary.ts";
import { createTestClock } from "../../devkit/clock.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTestCertificates } from "../../devkit/dian/certificates.ts";
import { createDianNumberingDouble, dianFields, SOFTWARE_ID } from "../../devkit/dian/numbering.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import { createDianStandIn, type DianStandIn } from "../../sandbox/dian/index.ts";
import { HABILITACION_TECHNICAL_KEY } from "../../sandbox/dian/registry.ts";
import { fromBase64 } from "../../shared/ports/providers/deliver.ts";

/** 23:30:12 in Bogotá on 2026-11-20 (04:30:12 UTC on the 21st). */
const LATE_EVENING = "2026-11-21T04:30:12.345Z";

const base = createTestClock(LATE_EVENING);
/** Reads `first` once, then `later`: a claim just before midnight in Bogotá, its signature just after. */
let script: string[] = [];
const clock = {
  ...base,
  now: () => (script.length > 0 ? new Date(script.shift() as string) : base.now()),
};
let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;
let token: string;
let standIn: DianStandIn;
/** The documents the service sent DIAN, as signed XML, in order. */
const sent: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  tenant = await createTenant(db);
  const certs = createTestCertificates({ nit: tenant.company.nit });
  standIn = createDianStandIn();
  standIn.trustCa(certs.caPem);
  standIn.putIssuer({
    nit: tenant.company.nit,
    software: [{ id: SOFTWARE_ID, pin: CANARY_SOFTWARE_PIN, ownerNit: tenant.company.nit }],
    ranges: [
      {
        resolutionNumber: "18760000001",
        resolutionDate: "2019-01-19",
        prefix: "SETP",
        from: "990000000",
        to: "995000000",
        validFrom: "2019-01-19",
        validTo: "2030-01-19",
        technicalKey: HABILITACION_TECHNICAL_KEY, // the factories' company's
        softwareId: SOFTWARE_ID,
      },
    ],
  });
  // what was sent, read at the edge: the signed document inside each SendBillSync's ZIP
  const edge = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const body = await request.clone().text();
    if (body.includes("SendBillSync>")) sent.push(await signedDocumentOf(body));
    return standIn.fetch(request);
  };
  t = await createTestApp(db, { dianNumbering: createDianNumberingDouble(), providerFetch: edge, clock });
  const admin = await t.token(tenant.admin);
  const saved = await t.post(
    "/integrations/save",
    {
      org_id: tenant.org.id,
      company_id: tenant.company.id,
      service: "adapter-tax",
      environment: "uat",
      ...dianFields(certs),
    },
    admin,
  );
  expect(saved.status, await saved.clone().text()).toBe(200);
  token = await t.token(tenant.operador);
}, 120_000);
afterAll(() => db?.close());

/** The XML in the ZIP a SendBillSync envelope carries. */
async function signedDocumentOf(envelope: string): Promise<string> {
  const { unzipSync } = await import("fflate");
  const content = /<(?:\w+:)?contentFile>([^<]*)</.exec(envelope)?.[1] ?? "";
  const [xml] = Object.values(unzipSync(fromBase64(content)));
  return new TextDecoder().decode(xml);
}

const text = (xml: string | undefined, name: string) =>
  new RegExp(`<${name}(?: [^>]*)?>([^<]*)</${name}>`).exec(xml ?? "")?.[1];

interface Result {
  status: string;
  code: string;
  message: string;
  authority_rules?: { rule: string }[];
}

async function transmit(invoice: Invoice, reissue = false): Promise<Result> {
  const response = await t.post(
    "/transmit",
    { org_id: tenant.org.id, invoice_ids: [invoice.id], ...(reissue ? { reissue: true } : {}) },
    token,
  );
  expect(response.status).toBe(200);
  return ((await response.json()) as { results: Result[] }).results[0] as Result;
}

/** A draft dated days before it is sent: its own date is a preview. */
async function draft(): Promise<Invoice> {
  const invoice = await createInvoice(db, tenant.org, tenant.company);
  await db.superuser(
    "update invoices set issue_date = '2026-11-13', issue_time = '10:15:00-05' where id = $1",
    [invoice.id],
  );
  return invoice;
}

const stored = async (invoice: Invoice) =>
  (
    await db.superuser<{
      status: string;
      issue_date: string;
      issue_time: string;
      authority_code: string | null;
    }>("select status, issue_date::text, issue_time::text, authority_code from invoices where id = $1", [
      invoice.id,
    ])
  )[0];

describe("a claim just before midnight in Bogotá, its send just after", () => {
  it("is held back unsent (not signed on another day than its issue date: FAD09e), then issued on the new day", async () => {
    const invoice = await draft();
    const before = sent.length;
    // 23:59:59.900 in Bogotá when claimed; its turn to be signed comes on the 21st
    base.set("2026-11-21T05:00:00.300Z");
    script = ["2026-11-21T04:59:59.900Z"];
    const held = await transmit(invoice);
    // an entry of this call is `error`; the draft itself is released, `pendiente` again
    expect(held).toMatchObject({ status: "error", code: "not_sent_retry" });
    expect(held.message).toContain("FAD09e");
    expect(sent.length).toBe(before); // nothing reached DIAN
    expect(await stored(invoice)).toMatchObject({ status: "pendiente", issue_date: "2026-11-20" });

    const issued = await transmit(invoice);
    expect(issued).toMatchObject({ status: "transmitida", code: "accepted" });
    const xml = sent.at(-1);
    expect(text(xml, "cbc:IssueDate")).toBe("2026-11-21");
    expect(text(xml, "xades:SigningTime")?.slice(0, 10)).toBe("2026-11-21");
  });
});
