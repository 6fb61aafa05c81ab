/**
 * POST /deliver through the real app and database, with the sandbox adapter-tax and deliver
 * providers at the edge: the stamped PDF goes out, zipped with the AttachedDocument XML, and the
 * delivery is recorded apart from the invoice's fiscal status. (What the ZIP holds, and a provider
 * that cannot hand the XML over: tests/http/deliver-attached-document.test.ts.)
 */
import { unzipSync } from "fflate";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TestApp } from "../../devkit/app.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import type { TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import { createSandboxDeliver, type SandboxDeliver } from "../../sandbox/index.ts";
import { openRouteSuite, sandboxProviders } from "../support/route-suite.ts";
import { PROVIDERS } from "../support/routes.ts";

let db: TestDatabase;
let t: TestApp;
let mail: SandboxDeliver;
let tenant: Tenant;
let token: string;

beforeAll(async () => {
  mail = createSandboxDeliver();
  ({ db, t, tenant, token } = await openRouteSuite({
    env: { EINV_PROVIDER_TIMEOUT_MS: "1000" },
    providerFetch: sandboxProviders({ deliver: mail }),
    credentials: "router",
  }));
});
afterAll(() => db?.close());
beforeEach(() => mail.reset());

const deliver = (invoice: Pick<Invoice, "id">, extra: Record<string, unknown> = {}, as = token) =>
  t.post("/deliver", { org_id: tenant.org.id, invoice_id: invoice.id, ...extra }, as);

async function transmitted(): Promise<Invoice> {
  const invoice = await createInvoice(db, tenant.org, tenant.company);
  const response = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token);
  expect((await response.json()).results[0].status).toBe("transmitida");
  return invoice;
}

describe("POST /deliver", () => {
  it("e-mails the stamped PDF, zipped with the XML, to the buyer and records the delivery", async () => {
    const invoice = await transmitted();
    const response = await deliver(invoice);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ invoice_id: invoice.id, to: "cliente@test.example", status: "enviada" });
    expect(body.delivery_id).toMatch(/^[0-9a-f-]{36}$/);

    expect(mail.messages).toHaveLength(1);
    const [zipName, zip] = [...(mail.content(body.delivery_id)?.attachments ?? [])][0] ?? [];
    expect(zipName).toMatch(/^z\d{10}000\d{2}[0-9a-f]{8}\.zip$/);
    const files = unzipSync(zip ?? new Uint8Array());
    const pdf = files[zipName?.replace(/^z(.*)\.zip$/, "ad$1.pdf") ?? ""];
    expect(new TextDecoder().decode(pdf?.subarray(0, 5))).toBe("%PDF-");
    const [record] = await db.superuser("select status, recipient from deliveries where id = $1", [
      body.delivery_id,
    ]);
    expect(record).toEqual({ status: "enviada", recipient: "cliente@test.example" });
    const [rep] = await db.superuser("select stamped from representations where document_id = $1", [
      invoice.id,
    ]);
    expect(rep).toEqual({ stamped: true });
    const [fiscal] = await db.superuser("select status from invoices where id = $1", [invoice.id]);
    expect(fiscal).toEqual({ status: "transmitida" });
  });

  it("sends to `to` when given, reusing the current PDF", async () => {
    const invoice = await transmitted();
    await t.post("/representation", { org_id: tenant.org.id, invoice_id: invoice.id }, token);
    const body = await (await deliver(invoice, { to: "contabilidad@otra.example" })).json();
    expect(body).toMatchObject({ to: "contabilidad@otra.example", status: "enviada" });
    expect(mail.messages[0]?.to).toEqual(["contabilidad@otra.example"]);
  });

  it("records a bounced address as a delivery in error, and says so", async () => {
    const invoice = await transmitted();
    const body = await (await deliver(invoice, { to: "nadie@rebota.test" })).json();
    expect(body.status).toBe("error");
    const [record] = await db.superuser<{ status: string }>("select status from deliveries where id = $1", [
      body.delivery_id,
    ]);
    expect(record?.status).toBe("error");
  });

  it("answers 504 when the provider does not answer, with the delivery recorded as failed", async () => {
    const invoice = await transmitted();
    mail.setKnobs({ hangMs: 2_000, failNext: [{ kind: "hang" }] });
    const response = await deliver(invoice);
    expect(response.status).toBe(504);
    const rows = await db.superuser<{ status: string }>(
      "select status from deliveries where document_id = $1",
      [invoice.id],
    );
    expect(rows).toEqual([{ status: "error" }]);
  });

  it("answers 409 for an invoice that is not transmitted, sending nothing", async () => {
    const response = await deliver(await createInvoice(db, tenant.org, tenant.company));
    expect(response.status).toBe(409);
    expect(mail.received).toHaveLength(0);
  });

  it("answers 422 when there is no address, and 400 for a malformed `to`", async () => {
    const invoice = await transmitted();
    await db.superuser("alter table invoices disable trigger invoices_freeze_sent");
    await db.superuser("update invoices set buyer_email = null where id = $1", [invoice.id]);
    await db.superuser("alter table invoices enable trigger invoices_freeze_sent");
    const missing = await deliver(invoice);
    expect(missing.status).toBe(422);
    expect((await missing.json()).error.message).toMatch(/pass `to`/);
    const malformed = await deliver(invoice, { to: "not-an-address" });
    expect((await malformed.json()).error.details[0].field).toBe("to");
  });

  it("sends a one-line subject when the company's name holds line breaks or control characters", async () => {
    const other = await createTenant(db);
    await saveCredential(t.deps, other, { url: `${PROVIDERS}/adapter-tax` });
    await saveCredential(t.deps, other, { url: `${PROVIDERS}/deliver`, service: "deliver" });
    await db.superuser("update companies set trade_name = $1 where id = $2", [
      "Prueba\r\nBcc: espia@evil.test\t\u0007 S.A.S.",
      other.company.id,
    ]);
    // transmitted for real: the sandbox then holds it and hands its AttachedDocument over
    const invoice = await createInvoice(db, other.org, other.company);
    const as = await t.token(other.operador);
    const transmit = await t.post("/transmit", { org_id: other.org.id, invoice_ids: [invoice.id] }, as);
    expect((await transmit.json()).results[0].status).toBe("transmitida");
    const response = await t.post("/deliver", { org_id: other.org.id, invoice_id: invoice.id }, as);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.status).toBe("enviada");
    const [company] = await db.superuser<{ nit: string; legal_name: string }>(
      "select nit, legal_name from companies where id = $1",
      [other.company.id],
    );
    expect(mail.messages[0]?.subject).toBe(
      `${company?.nit};${company?.legal_name};${invoice.number};01;Prueba Bcc: espia@evil.test S.A.S.`,
    );
    const [record] = await db.superuser("select status from deliveries where id = $1", [body.delivery_id]);
    expect(record).toEqual({ status: "enviada" });
  });

  it("answers 422 for a message the protocol refuses, with the delivery recorded as failed", async () => {
    const invoice = await transmitted();
    await db.superuser("alter table invoices disable trigger invoices_freeze_sent");
    await db.superuser(
      "update invoices set buyer_email = 'cliente@test.example\nBcc: x@evil.test' where id = $1",
      [invoice.id],
    );
    await db.superuser("alter table invoices enable trigger invoices_freeze_sent");
    const response = await deliver(invoice);
    expect(response.status).toBe(422);
    const { error } = await response.json();
    expect(error.code).toBe("business_rule");
    expect(error.message).toMatch(/could not be sent/);
    expect(error.message).toMatch(/\bto\b/);
    expect(mail.received).toHaveLength(0);
    const rows = await db.superuser<{ status: string; message: string }>(
      "select status, message from deliveries where document_id = $1",
      [invoice.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.status).toBe("error");
    expect(rows[0]?.message).toMatch(/to/);
  });

  it("answers 422 when the company has no deliver credential", async () => {
    const other = await createTenant(db);
    await saveCredential(t.deps, other, { url: `${PROVIDERS}/adapter-tax` });
    const invoice = await createInvoice(db, other.org, other.company, { status: "transmitida" });
    const response = await t.post(
      "/deliver",
      { org_id: other.org.id, invoice_id: invoice.id },
      await t.token(other.admin),
    );
    expect(response.status).toBe(422);
    expect((await response.json()).error.message).toMatch(/no deliver credential/);
  });
});
