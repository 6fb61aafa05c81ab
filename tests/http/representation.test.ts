/**
 * POST /representation through the real app and database: the PDF lands in the documents store
 * under the org's folder, is reused while current, re-rendered when the invoice changes state or on
 * regenerate, and stamped only once the authority accepted it.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import type { TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import {
  createSandboxDeliver,
  createSandboxDocsgen,
  createSandboxProvider,
  createSandboxRouter,
  type SandboxProvider,
} from "../../sandbox/index.ts";
import { type DocumentKind, INVOICE, kindsOf } from "../support/document-kinds.ts";
import { openRouteSuite } from "../support/route-suite.ts";

let db: TestDatabase;
let t: TestApp;
let sandbox: SandboxProvider;
let tenant: Tenant;
let token: string;

beforeAll(async () => {
  sandbox = createSandboxProvider();
  ({ db, t, tenant, token } = await openRouteSuite({ providerFetch: sandbox.fetch }));
});
afterAll(() => db?.close());
beforeEach(() => sandbox.reset());

interface Representation {
  path: string;
  filename: string;
  stamped: boolean;
  cached: boolean;
  generated_at: string;
}

async function represent(
  invoice: Pick<Invoice, "id">,
  extra: Record<string, unknown> = {},
  kind: DocumentKind = INVOICE,
): Promise<Representation> {
  const response = await t.post(
    kind.routes.representation,
    { org_id: tenant.org.id, [kind.idField]: invoice.id, ...extra },
    token,
  );
  expect(response.status).toBe(200);
  return response.json();
}
const suite = () => ({ db, t, tenant, token });

const pdfAt = (path: string) => readFileSync(t.documents.file(path));

describe("POST /representation, what only invoices have", () => {
  it("renders an unsent invoice, unstamped, into the org's folder of the bucket", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const rep = await represent(invoice);
    expect(rep).toMatchObject({ stamped: false, cached: false });
    expect(rep.filename).toMatch(new RegExp(`^factura-${invoice.number}-[0-9a-f]{12}\\.pdf$`));
    expect(rep.path).toBe(`${tenant.org.id}/invoices/${invoice.id}/${rep.filename}`);
    expect(Date.parse(rep.generated_at)).not.toBeNaN();
    expect(pdfAt(rep.path).subarray(0, 5).toString()).toBe("%PDF-");
    const [object] = await db.superuser("select bucket_id from storage.objects where name = $1", [rep.path]);
    expect(object).toEqual({ bucket_id: "service-documentos" });
  });

  it("stamps the PDF once the invoice is accepted, and re-renders because the status changed", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const before = await represent(invoice);
    const unstamped = pdfAt(before.path);
    const sent = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token);
    expect((await sent.json()).results[0].status).toBe("transmitida");
    const after = await represent(invoice);
    expect(after).toMatchObject({ stamped: true, cached: false });
    expect(after.path).not.toBe(before.path); // a new version beside the old one
    expect(pdfAt(after.path)).not.toEqual(unstamped);
    const [record] = await db.superuser(
      "select stamped, renderer from representations where document_id = $1",
      [invoice.id],
    );
    expect(record).toEqual({ stamped: true, renderer: "builtin" });
  });

  it("answers 422, renders nothing and stores nothing for an invoice past the render budget", async () => {
    // 120 lines of 1,000-character unbroken words: within the database's limits, past 100 pages
    const lines = Array.from({ length: 120 }, () => ({
      description: "W".repeat(1000),
      quantity: 1,
      unitPrice: 1000,
      taxRate: 19,
    }));
    const invoice = await createInvoice(db, tenant.org, tenant.company, { lines });
    const response = await t.post(
      "/representation",
      { org_id: tenant.org.id, invoice_id: invoice.id },
      token,
    );
    expect(response.status).toBe(422);
    const { error } = await response.json();
    expect(error.code).toBe("business_rule");
    expect(error.message).toMatch(/too large to render: its PDF would pass 100 pages/);
    const stored = await db.superuser("select 1 from public.representations where document_id = $1", [
      invoice.id,
    ]);
    expect(stored).toEqual([]);
  });
});

describe.each(kindsOf("representation"))("POST %s (%s)", (route, _name, kind) => {
  it("answers from the stored file while it is current, and renders again on regenerate", async () => {
    const document = { id: await kind.any(suite()) };
    const first = await represent(document, {}, kind);
    const bytes = pdfAt(first.path);
    const second = await represent(document, {}, kind);
    expect(second).toEqual({ ...first, cached: true });
    const forced = await represent(document, { regenerate: true }, kind);
    expect(forced.cached).toBe(false);
    expect(Date.parse(forced.generated_at)).toBeGreaterThanOrEqual(Date.parse(first.generated_at));
    expect(pdfAt(forced.path)).toEqual(bytes); // identical inputs, identical bytes
  });

  it("keeps showing the issuer as it was sent, even after the company is renamed", async () => {
    const sent = { id: (await kind.send(suite())).id };
    const shown = await represent(sent, {}, kind);
    await db.superuser("update companies set legal_name = 'Nombre Nuevo S.A.S.' where id = $1", [
      tenant.company.id,
    ]);
    try {
      expect(await represent(sent, {}, kind)).toEqual({ ...shown, cached: true });
      expect(await represent(sent, { regenerate: true }, kind)).toMatchObject({ path: shown.path });
    } finally {
      await db.superuser("update companies set legal_name = $2 where id = $1", [
        tenant.company.id,
        `Empresa ${tenant.company.nit} S.A.S.`,
      ]);
    }
  });

  it("answers 404 for another organization's document and 403 to a lector", async () => {
    const foreign = await kind.foreign(suite());
    const response = await t.post(route, { org_id: tenant.org.id, [kind.idField]: foreign }, token);
    expect(response.status).toBe(404);
    const lector = await t.post(
      route,
      { org_id: tenant.org.id, [kind.idField]: foreign },
      await t.token(tenant.lector),
    );
    expect(lector.status).toBe(403);
  });

  it("accepts ids in upper case and files the PDF under the org's lower-case folder", async () => {
    const id = await kind.any(suite());
    const response = await t.post(
      route,
      { org_id: tenant.org.id.toUpperCase(), [kind.idField]: id.toUpperCase() },
      token,
    );
    expect(response.status).toBe(200);
    expect((await response.json()).path.startsWith(`${tenant.org.id}/${kind.folder}/${id}/`)).toBe(true);
  });

  it("answers 400 for a regenerate that is not a boolean", async () => {
    const response = await t.post(
      route,
      { org_id: tenant.org.id, [kind.idField]: crypto.randomUUID(), regenerate: "yes" },
      token,
    );
    expect((await response.json()).error.details[0].field).toBe("regenerate");
  });
});

describe("POST /representation with a docsgen provider", () => {
  it("takes the base PDF from the company's docsgen provider and stamps it once accepted", async () => {
    const docsgen = createSandboxDocsgen();
    const providers = createSandboxRouter({
      adapterTax: createSandboxProvider(),
      docsgen,
      deliver: createSandboxDeliver(),
    });
    const app = await createTestApp(db, { providerFetch: providers });
    const other = await createTenant(db);
    await saveCredential(app.deps, other, { url: "https://providers.test/adapter-tax" });
    await saveCredential(app.deps, other, { url: "https://providers.test/docsgen", service: "docsgen" });
    const as = await app.token(other.admin);
    const invoice = await createInvoice(db, other.org, other.company);
    const body = { org_id: other.org.id, invoice_id: invoice.id };

    const draft = await (await app.post("/representation", body, as)).json();
    expect(draft).toMatchObject({ stamped: false, cached: false });
    expect(docsgen.renders).toHaveLength(1);
    await app.post("/transmit", { org_id: other.org.id, invoice_ids: [invoice.id] }, as);
    const stamped = await (await app.post("/representation", body, as)).json();
    expect(stamped).toMatchObject({ stamped: true, cached: false });
    expect(docsgen.renders).toHaveLength(2);

    const { PDFDocument } = await import("pdf-lib");
    const pdf = await PDFDocument.load(readFileSync(app.documents.file(stamped.path)), {
      updateMetadata: false,
    });
    expect(pdf.getTitle()).toMatch(/^DOCSGEN SANDBOX/);
    const [record] = await db.superuser("select renderer from representations where document_id = $1", [
      invoice.id,
    ]);
    expect(record).toEqual({ renderer: "docsgen" });
  });

  it("answers a current PDF without opening the credential; only a render needs it usable", async () => {
    const docsgen = createSandboxDocsgen();
    const app = await createTestApp(db, {
      providerFetch: createSandboxRouter({
        adapterTax: createSandboxProvider(),
        docsgen,
        deliver: createSandboxDeliver(),
      }),
    });
    const other = await createTenant(db);
    await saveCredential(app.deps, other, { url: "https://providers.test/docsgen", service: "docsgen" });
    const as = await app.token(other.admin);
    const invoice = await createInvoice(db, other.org, other.company);
    const body = { org_id: other.org.id, invoice_id: invoice.id };
    expect(await (await app.post("/representation", body, as)).json()).toMatchObject({ cached: false });

    // the saved URL becomes one the policy refuses (as an older, laxer policy might have let in)
    await db.superuser(
      "update einv_private.credentials set url = 'http://10.1.2.3/docsgen' where org_id = $1 and service = 'docsgen'",
      [other.org.id],
    );
    const cached = await app.post("/representation", body, as);
    expect(cached.status).toBe(200);
    expect(await cached.json()).toMatchObject({ cached: true });
    const regenerated = await app.post("/representation", { ...body, regenerate: true }, as);
    expect(regenerated.status).toBe(422);
    expect((await regenerated.json()).error.message).toMatch(
      /docsgen credential for uat cannot be used: .*save it again/,
    );
    expect(docsgen.renders).toHaveLength(1);
  });
});
