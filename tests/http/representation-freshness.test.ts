/**
 * When /representation may answer from the stored PDF (`cached: true`) and when it must render
 * again: the stored file is current only while everything the PDF shows is unchanged — the
 * document's content, its issuer while it is a draft, its fiscal state, and the renderer. What the
 * PDF does not show (the DIAN technical key) never makes it stale.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import {
  createSandboxDeliver,
  createSandboxDocsgen,
  createSandboxProvider,
  createSandboxRouter,
} from "../../sandbox/index.ts";
import { type DocumentKind, INVOICE, kindsOf } from "../support/document-kinds.ts";

let db: TestDatabase;
let t: TestApp;

const providers = createSandboxRouter({
  adapterTax: createSandboxProvider(),
  docsgen: createSandboxDocsgen(),
  deliver: createSandboxDeliver(),
});

beforeAll(async () => {
  db = await createTestDatabase();
  t = await createTestApp(db, { providerFetch: providers });
});
afterAll(() => db?.close());

interface Representation {
  path: string;
  filename: string;
  stamped: boolean;
  cached: boolean;
  generated_at: string;
}

async function setup(): Promise<{ tenant: Tenant; token: string }> {
  const tenant = await createTenant(db);
  await saveCredential(t.deps, tenant, { url: "https://providers.test/adapter-tax" });
  return { tenant, token: await t.token(tenant.operador) };
}

async function represent(
  tenant: Tenant,
  token: string,
  invoice: Pick<Invoice, "id">,
  kind: DocumentKind = INVOICE,
): Promise<Representation> {
  const response = await t.post(
    kind.routes.representation,
    { org_id: tenant.org.id, [kind.idField]: invoice.id },
    token,
  );
  expect(response.status).toBe(200);
  return response.json();
}

const pdfAt = (path: string) => readFileSync(t.documents.file(path));

describe("a stored PDF", () => {
  it("is not served for a draft whose amounts changed since it was rendered", async () => {
    const { tenant, token } = await setup();
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const before = await represent(tenant, token, invoice);
    // the operator corrects the first line's price, as a draft allows (the database computes the
    // line's base and tax, and the invoice's totals, again)
    await db.superuser("update invoice_lines set unit_price = 60000 where invoice_id = $1 and position = 1", [
      invoice.id,
    ]);
    const after = await represent(tenant, token, invoice);
    expect(after.cached).toBe(false);
    expect(after.path).not.toBe(before.path);
    expect(pdfAt(after.path)).not.toEqual(pdfAt(before.path));
    expect(await represent(tenant, token, invoice)).toEqual({ ...after, cached: true });
    // stored as a PDF for whoever downloads it
    const [object] = await db.superuser(
      "select metadata->>'mimetype' as type from storage.objects where name = $1",
      [after.path],
    );
    expect(object).toEqual({ type: "application/pdf" });
  });

  it("is not served for a draft whose buyer changed", async () => {
    const { tenant, token } = await setup();
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const before = await represent(tenant, token, invoice);
    await db.superuser("update invoices set buyer_name = 'Otro Cliente S.A.S.' where id = $1", [invoice.id]);
    const after = await represent(tenant, token, invoice);
    expect(after).toMatchObject({ cached: false });
    expect(after.path).not.toBe(before.path);
  });

  it("is not served for a draft whose company was renamed (a draft shows the company as it is now)", async () => {
    const { tenant, token } = await setup();
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const before = await represent(tenant, token, invoice);
    await db.superuser("update companies set legal_name = 'Nombre Nuevo S.A.S.' where id = $1", [
      tenant.company.id,
    ]);
    const after = await represent(tenant, token, invoice);
    expect(after.cached).toBe(false);
    expect(after.path).not.toBe(before.path);
  });

  it("is not served once the invoice is accepted, and the new one carries the validation", async () => {
    const { tenant, token } = await setup();
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const draft = await represent(tenant, token, invoice);
    expect(draft.stamped).toBe(false);
    const sent = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token);
    expect((await sent.json()).results[0].status).toBe("transmitida");
    const accepted = await represent(tenant, token, invoice);
    expect(accepted).toMatchObject({ cached: false, stamped: true });
    expect(await represent(tenant, token, invoice)).toEqual({ ...accepted, cached: true });
  });
});

describe.each(kindsOf("representation"))("a stored PDF, by POST %s (%s)", (_route, _name, kind) => {
  it("is still served when only the DIAN technical key changed: the PDF does not show it", async () => {
    const { tenant, token } = await setup();
    const invoice = { id: await kind.any({ db, t, tenant, token }) };
    const before = await represent(tenant, token, invoice, kind);
    await db.superuser(
      "update companies set technical_key = 'ffffffffffffffffffffffffffffffffffffffff' where id = $1",
      [tenant.company.id],
    );
    expect(await represent(tenant, token, invoice, kind)).toEqual({ ...before, cached: true });
  });

  it("is not served once the company renders through a docsgen provider, nor after it stops", async () => {
    const { tenant, token } = await setup();
    const invoice = { id: await kind.any({ db, t, tenant, token }) };
    const builtin = await represent(tenant, token, invoice, kind);
    await saveCredential(t.deps, tenant, { url: "https://providers.test/docsgen", service: "docsgen" });
    const docsgen = await represent(tenant, token, invoice, kind);
    expect(docsgen.cached).toBe(false);
    expect(docsgen.path).not.toBe(builtin.path);
    const [record] = await db.superuser("select renderer from representations where document_id = $1", [
      invoice.id,
    ]);
    expect(record).toEqual({ renderer: "docsgen" });
    expect(await represent(tenant, token, invoice, kind)).toEqual({ ...docsgen, cached: true });

    await db.superuser("delete from einv_private.credentials where company_id = $1 and service = 'docsgen'", [
      tenant.company.id,
    ]);
    const again = await represent(tenant, token, invoice, kind);
    expect(again.cached).toBe(false);
    expect(again.path).toBe(builtin.path); // the same content as the first render, so the same name
  });
});
