/**
 * A /transmit suite in DIAN direct mode (DESIGN §12, docs/adr/0010): the real app and database, a
 * company's DIAN-mode credential saved through /integrations/save, and the DIAN stand-in at the
 * network edge — its issuer registered with the habilitación range and the software — whose
 * SendBillSync documents are kept as signed XML, in order. The service's clock is the suite's.
 */
import { afterAll, beforeAll, expect } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { CANARY_SOFTWARE_PIN } from "../../devkit/canary.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTestCertificates } from "../../devkit/dian/certificates.ts";
import { createDianNumberingDouble, dianFields, SOFTWARE_ID } from "../../devkit/dian/numbering.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import { createDianStandIn, type DianStandIn } from "../../sandbox/dian/index.ts";
import { HABILITACION_TECHNICAL_KEY } from "../../sandbox/dian/registry.ts";
import type { Clock } from "../../shared/ports/clock.ts";
import { fromBase64 } from "../../shared/ports/providers/deliver.ts";

export interface TransmitResult {
  status: string;
  code: string;
  message: string;
  authority_rules?: { rule: string }[];
}

export interface DianDirectSuite {
  db: TestDatabase;
  t: TestApp;
  tenant: Tenant;
  /** The operador's token. */
  token: string;
  standIn: DianStandIn;
  /** The documents the service sent DIAN, as signed XML, in order. */
  sent: string[];
  transmit(invoice: Invoice, reissue?: boolean): Promise<TransmitResult>;
  /** A draft dated days before it is sent (2026-11-13): its own date is a preview. */
  draft(): Promise<Invoice>;
  /** The invoice's status, issue date and time, and CUFE, as stored. */
  stored(
    invoice: Invoice,
  ): Promise<
    { status: string; issue_date: string; issue_time: string; authority_code: string | null } | undefined
  >;
}

/** Opens the suite in `beforeAll` (closed in `afterAll`); its fields are set once that has run. */
export function useDianDirectSuite(options: {
  clock: Clock;
  standIn?: Parameters<typeof createDianStandIn>[0];
}): DianDirectSuite {
  const suite = { sent: [] as string[] } as DianDirectSuite;
  beforeAll(async () => {
    const db = await createTestDatabase();
    const tenant = await createTenant(db);
    const certs = createTestCertificates({ nit: tenant.company.nit });
    const standIn = createDianStandIn(options.standIn);
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
      if (body.includes("SendBillSync>")) suite.sent.push(await signedDocumentOf(body));
      return standIn.fetch(request);
    };
    const t = await createTestApp(db, {
      dianNumbering: createDianNumberingDouble(),
      providerFetch: edge,
      clock: options.clock,
    });
    const saved = await t.post(
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
    expect(saved.status, await saved.clone().text()).toBe(200);
    Object.assign(suite, { db, t, tenant, standIn, token: await t.token(tenant.operador) });
  }, 120_000);
  afterAll(() => suite.db?.close());

  suite.transmit = async (invoice, reissue = false) => {
    const response = await suite.t.post(
      "/transmit",
      { org_id: suite.tenant.org.id, invoice_ids: [invoice.id], ...(reissue ? { reissue: true } : {}) },
      suite.token,
    );
    expect(response.status).toBe(200);
    return ((await response.json()) as { results: TransmitResult[] }).results[0] as TransmitResult;
  };
  suite.draft = async () => {
    const invoice = await createInvoice(suite.db, suite.tenant.org, suite.tenant.company);
    await suite.db.superuser(
      "update invoices set issue_date = '2026-11-13', issue_time = '10:15:00-05' where id = $1",
      [invoice.id],
    );
    return invoice;
  };
  suite.stored = async (invoice) =>
    (
      await suite.db.superuser<{
        status: string;
        issue_date: string;
        issue_time: string;
        authority_code: string | null;
      }>("select status, issue_date::text, issue_time::text, authority_code from invoices where id = $1", [
        invoice.id,
      ])
    )[0];
  return suite;
}

/** The XML in the ZIP a SendBillSync envelope carries. */
async function signedDocumentOf(envelope: string): Promise<string> {
  const { unzipSync } = await import("fflate");
  const content = /<(?:\w+:)?contentFile>([^<]*)</.exec(envelope)?.[1] ?? "";
  const [xml] = Object.values(unzipSync(fromBase64(content)));
  return new TextDecoder().decode(xml);
}

/** The text of the first element `name` of `xml`. */
export const text = (xml: string | undefined, name: string) =>
  new RegExp(`<${name}(?: [^>]*)?>([^<]*)</${name}>`).exec(xml ?? "")?.[1];
