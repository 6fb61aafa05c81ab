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

const clock = createTestClock(LATE_EVENING);
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
  // the service's clock is the test's, on 2026-11-20/21: so is the day FAD09c counts from
  standIn = createDianStandIn({ knobs: { today: "2026-11-21" } });
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
    await db.superuser<{ issue_date: string; issue_time: string; authority_code: string | null }>(
      "select issue_date::text, issue_time::text, authority_code from invoices where id = $1",
      [invoice.id],
    )
  )[0];

describe("DIAN direct", () => {
  it("issues a draft dated a week earlier at the clock's instant, and signs it then: DIAN accepts it", async () => {
    clock.set(LATE_EVENING);
    const invoice = await draft();
    const result = await transmit(invoice);
    expect(result, result.message).toMatchObject({ status: "transmitida", code: "accepted" });
    const xml = sent.at(-1);
    expect(text(xml, "cbc:IssueDate")).toBe("2026-11-20");
    expect(text(xml, "cbc:IssueTime")).toBe("23:30:12-05:00");
    expect(text(xml, "xades:SigningTime")).toBe("2026-11-20T23:30:12.345-05:00");
    const row = await stored(invoice);
    expect(row).toMatchObject({ issue_date: "2026-11-20", issue_time: "23:30:12-05" });
    expect(text(xml, "cbc:UUID")).toBe(row?.authority_code);
  });

  it("resends a document DIAN may hold with its issue date, signed when resent; the next day DIAN refuses it (FAD09e), and refused, it is issued anew and accepted", async () => {
    clock.set(LATE_EVENING);
    const invoice = await draft();
    // DIAN fails with a 500: whether it processed the document is unknown
    standIn.setKnobs({ failNext: [{ kind: "error", operation: "SendBillSync" }] });
    expect(await transmit(invoice)).toMatchObject({ status: "en_proceso", code: "outcome_unknown" });
    const first = sent.at(-1);
    expect(text(first, "cbc:IssueDate")).toBe("2026-11-20");

    // the next morning: asked first (DIAN never got it), then resent as it was issued — the same
    // CUFE, a new signature — which DIAN refuses, since it is signed on another day
    clock.set("2026-11-21T14:05:00Z");
    const resent = await transmit(invoice, true);
    expect(resent).toMatchObject({ status: "error", code: "rejected" });
    expect(resent.authority_rules?.map((r) => r.rule)).toContain("FAD09e");
    const second = sent.at(-1);
    expect(text(second, "cbc:UUID")).toBe(text(first, "cbc:UUID"));
    expect(text(second, "cbc:IssueTime")).toBe("23:30:12-05:00");
    expect(text(second, "xades:SigningTime")).toBe("2026-11-21T09:05:00.000-05:00");

    // refused: nothing of it at DIAN can be accepted any more; issued anew today, and accepted
    const anew = await transmit(invoice, true);
    expect(anew).toMatchObject({ status: "transmitida", code: "accepted" });
    expect(anew.message).toMatch(/; issued anew on 2026-11-21 09:05:00-05:00: it was dated 2026-11-20, /);
    const third = sent.at(-1);
    expect(text(third, "cbc:IssueDate")).toBe("2026-11-21");
    expect(text(third, "cbc:IssueTime")).toBe("09:05:00-05:00");
    expect(text(third, "cbc:UUID")).not.toBe(text(first, "cbc:UUID"));
    expect((await stored(invoice))?.authority_code).toBe(text(third, "cbc:UUID"));
  });
});
