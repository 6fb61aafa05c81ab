/**
 * A retail (B2C) sale: the buyer is DIAN's final consumer (`222222222222`, type 13, "Consumidor
 * final", no check digit). Through the real app and database with the sandbox at the edge, it is
 * transmitted and accepted, and its PDF renders with that buyer; the same id under another type is
 * refused before anything is sent.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestApp } from "../../devkit/app.ts";
import type { TestDatabase } from "../../devkit/database.ts";
import { createInvoice, type Invoice, type Tenant } from "../../devkit/factories.ts";
import { documentTexts } from "../../devkit/pdf/support.ts";
import { createSandboxProvider, type SandboxProvider } from "../../sandbox/index.ts";
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

async function retailInvoice(idType = "13"): Promise<Invoice> {
  const invoice = await createInvoice(db, tenant.org, tenant.company);
  await db.superuser(
    `update invoices set buyer_id_type = $2, buyer_id_number = '222222222222', buyer_check_digit = null,
            buyer_name = 'Consumidor final', buyer_email = null, buyer_address = null where id = $1`,
    [invoice.id, idType],
  );
  return invoice;
}

const transmit = async (invoice: Invoice) =>
  (await (await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token)).json())
    .results[0];

describe("an invoice to DIAN's final consumer", () => {
  it("is transmitted and accepted (transmitida), and its stamped PDF names the final consumer", async () => {
    const invoice = await retailInvoice();
    expect(await transmit(invoice)).toMatchObject({ status: "transmitida" });
    const response = await t.post(
      "/representation",
      { org_id: tenant.org.id, invoice_id: invoice.id },
      token,
    );
    expect(response.status).toBe(200);
    const rep = await response.json();
    expect(rep.stamped).toBe(true);
    const texts = (await documentTexts(readFileSync(t.documents.file(rep.path)))).flat().join("\n");
    expect(texts).toContain("Consumidor final");
    expect(texts).toMatch(/222\.?222\.?222\.?222/);
  });

  it("is refused before anything is sent when the final consumer's id is given under another type", async () => {
    const invoice = await retailInvoice("31");
    const before = sandbox.submissions.length;
    const entry = await transmit(invoice);
    expect(entry).toMatchObject({ status: "error" });
    expect(entry.message).toMatch(/final consumer 222222222222 is identified with document type 13/);
    expect(sandbox.submissions.length).toBe(before);
  });
});
