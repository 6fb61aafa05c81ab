/**
 * POST /deliver and /credit-notes/deliver through the real app and database, with the sandbox
 * adapter-tax and deliver providers at the edge: the stamped PDF goes out, zipped with the
 * AttachedDocument XML, under DIAN's subject and file names, and the delivery is recorded apart from
 * the document's fiscal status. The cases that hold for both kinds run once per kind. (What the ZIP holds, and a provider
 * that cannot hand the XML over: tests/http/deliver-attached-document.test.ts.)
 */
import { unzipSync } from "fflate";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TestApp } from "../../devkit/app.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import type { TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import { createSandboxDeliver, type SandboxDeliver, type SandboxFetch } from "../../sandbox/index.ts";
import { sandboxSigners } from "../../sandbox/signers.ts";
import {
  expectSignedAttachedDocument,
  readAttachedDocument,
  sandboxCa,
  text,
} from "../support/attached-document.ts";
import { type DocumentKind, INVOICE, kindsOf } from "../support/document-kinds.ts";
import { openRouteSuite, type RouteSuite, sandboxProviders } from "../support/route-suite.ts";
import { PROVIDERS } from "../support/routes.ts";

let db: TestDatabase;
let t: TestApp;
let mail: SandboxDeliver;
let providers: SandboxFetch;
let tenant: Tenant;
let token: string;

// the sandbox signs AttachedDocuments with certificates it generates once per process (~0.4 s):
// generated before the timed provider calls that fetch them
beforeAll(() => sandboxSigners(), 60_000);
beforeAll(async () => {
  mail = createSandboxDeliver();
  providers = sandboxProviders({ deliver: mail });
  ({ db, t, tenant, token } = await openRouteSuite({
    env: { EINV_PROVIDER_TIMEOUT_MS: "1000" },
    providerFetch: providers,
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

/** A document of the kind the authority did not accept: a pending invoice, a rejected note. */
async function unaccepted(kind: DocumentKind): Promise<string> {
  if (kind === INVOICE) return (await createInvoice(db, tenant.org, tenant.company)).id;
  const invoice = await transmitted();
  const debit = kind.kind === "debit_note";
  const response = await t.post(
    debit ? "/debit-notes" : "/credit-notes",
    {
      org_id: tenant.org.id,
      invoice_id: invoice.id,
      // the sandbox rejects a note whose reason says RECHAZAR (docs/sandbox.md)
      concept_code: "2",
      reason: "RECHAZAR por prueba",
      ...(debit
        ? { lines: [{ description: "Gastos de cobranza", quantity: "1", unit_price: "15000" }] }
        : {}),
    },
    token,
  );
  const note = await response.json();
  expect(note.status).toBe("error");
  return note[kind.idField];
}

describe.each(kindsOf("deliver"))("POST %s (%s)", (route, _name, kind) => {
  const suite = (): RouteSuite => ({ db, t, tenant, token });
  const deliverIt = (id: string, extra: Record<string, unknown> = {}) =>
    t.post(route, { org_id: tenant.org.id, [kind.idField]: id, ...extra }, token);

  it("e-mails the stamped PDF, zipped with its AttachedDocument, to the buyer, with DIAN's subject, and records the delivery", async () => {
    const { id, status } = await kind.send(suite());
    expect(status).toBe(kind.accepted);
    const response = await deliverIt(id);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({
      [kind.idField]: id,
      to: "cliente@test.example",
      status: "enviada",
      code: "sent",
      message: "Sent to cliente@test.example.",
      provider_message: "Mensaje enviado a cliente@test.example.",
    });
    expect(body.delivery_id).toMatch(/^[0-9a-f-]{36}$/);

    expect(mail.messages).toHaveLength(1);
    const [zipName, zip] = [...(mail.content(body.delivery_id)?.attachments ?? [])][0] ?? [];
    expect(zipName).toMatch(/^z\d{10}000\d{2}[0-9a-f]{8}\.zip$/);
    const files = unzipSync(zip ?? new Uint8Array());
    const pdf = files[zipName?.replace(/^z(.*)\.zip$/, "ad$1.pdf") ?? ""];
    expect(new TextDecoder().decode(pdf?.subarray(0, 5))).toBe("%PDF-");
    // the AttachedDocument holds this document: an Invoice with its CUFE, a CreditNote with its CUDE
    const [row] = await db.superuser<{ number: string; authority_code: string }>(
      `select number, authority_code from ${kind.table} where id = $1`,
      [id],
    );
    const xml = files[zipName?.replace(/^z(.*)\.zip$/, "ad$1.xml") ?? ""] ?? new Uint8Array();
    const { document } = readAttachedDocument(xml);
    expect(document["cbc:UUID"]).toMatchObject({ "#text": row?.authority_code });
    expect(text(document["cbc:ID"])).toBe(row?.number);
    const ca = await sandboxCa(providers, "/adapter-tax");
    await expectSignedAttachedDocument(xml, ca, kind.kind);

    // DIAN's subject: NIT;legal name;number;type code;trade name
    const [company] = await db.superuser<{ nit: string; legal_name: string; trade_name: string | null }>(
      "select nit, legal_name, trade_name from companies where id = $1",
      [tenant.company.id],
    );
    expect(mail.messages[0]?.subject).toBe(
      `${company?.nit};${company?.legal_name};${row?.number};${kind.typeCode};${company?.trade_name ?? company?.legal_name}`,
    );
    const [record] = await db.superuser(
      "select status, recipient, document_type from deliveries where id = $1",
      [body.delivery_id],
    );
    expect(record).toEqual({
      status: "enviada",
      recipient: "cliente@test.example",
      document_type: kind.kind,
    });
    const [rep] = await db.superuser("select stamped from representations where document_id = $1", [id]);
    expect(rep).toEqual({ stamped: true });
    const [fiscal] = await db.superuser(`select status from ${kind.table} where id = $1`, [id]);
    expect(fiscal).toEqual({ status: kind.accepted });
  });

  it("sends to `to` when given, reusing the current PDF", async () => {
    const { id } = await kind.send(suite());
    await t.post(kind.routes.representation, { org_id: tenant.org.id, [kind.idField]: id }, token);
    const body = await (await deliverIt(id, { to: "contabilidad@otra.example" })).json();
    expect(body).toMatchObject({ to: "contabilidad@otra.example", status: "enviada" });
    expect(mail.messages[0]?.to).toEqual(["contabilidad@otra.example"]);
  });

  it("records a bounced address as a delivery in error, and says so", async () => {
    const { id } = await kind.send(suite());
    const body = await (await deliverIt(id, { to: "nadie@rebota.test" })).json();
    expect(body).toMatchObject({
      status: "error",
      code: "delivery_rejected",
      message: expect.stringMatching(/^The delivery provider refused the e-mail to nadie@rebota\.test/),
      provider_message: expect.stringMatching(/rebote permanente/),
    });
    const [record] = await db.superuser<{ status: string }>("select status from deliveries where id = $1", [
      body.delivery_id,
    ]);
    expect(record?.status).toBe("error");
  });

  it("answers 504 when the provider does not answer, with the delivery recorded as failed", async () => {
    const { id } = await kind.send(suite());
    mail.setKnobs({ hangMs: 2_000, failNext: [{ kind: "hang" }] });
    const response = await deliverIt(id);
    expect(response.status).toBe(504);
    const rows = await db.superuser<{ status: string }>(
      "select status from deliveries where document_id = $1",
      [id],
    );
    expect(rows).toEqual([{ status: "error" }]);
  });

  it("answers 409 when the authority did not accept the document, sending nothing", async () => {
    const response = await deliverIt(await unaccepted(kind));
    expect(response.status).toBe(409);
    expect((await response.json()).error.message).toContain(`(${kind.accepted})`);
    expect(mail.received).toHaveLength(0);
  });
});

describe("a credit note's delivery", () => {
  it("says in its text which invoice the note corrects", async () => {
    const invoice = await transmitted();
    const note = await (
      await t.post(
        "/credit-notes",
        { org_id: tenant.org.id, invoice_id: invoice.id, concept_code: "2", reason: "Anulación" },
        token,
      )
    ).json();
    const body = await (
      await t.post(
        "/credit-notes/deliver",
        { org_id: tenant.org.id, credit_note_id: note.credit_note_id },
        token,
      )
    ).json();
    expect(body.status).toBe("enviada");
    const { text: message } = mail.content(body.delivery_id) ?? { text: "" };
    expect(message).toContain("nota crédito electrónica");
    expect(message).toContain(`corrige la factura electrónica ${invoice.number}`);
    expect(message).toMatch(/\(CUDE [0-9a-f]{96}\)/);
  });

  it("gives a note and its invoice, FE1 and FV1 of one issuer, each its own package name", async () => {
    // an issuer numbering under two prefixes (two DIAN resolutions), FE and FV
    const issuer = await createTenant(db);
    await saveCredential(t.deps, issuer, { url: `${PROVIDERS}/adapter-tax` });
    await saveCredential(t.deps, issuer, { url: `${PROVIDERS}/deliver`, service: "deliver" });
    const as = await t.token(issuer.operador);
    const post = (path: string, body: Record<string, unknown>) =>
      t.post(path, { org_id: issuer.org.id, ...body }, as).then((r) => r.json());
    const names: string[] = [];
    for (const prefix of ["FE", "FV"]) {
      await db.superuser("update companies set invoice_prefix = $1, resolution_from = 1 where id = $2", [
        prefix,
        issuer.company.id,
      ]);
      const invoice = await createInvoice(db, issuer.org, issuer.company);
      await db.superuser("update invoices set number = $1 where id = $2", [`${prefix}1`, invoice.id]);
      const sent = await post("/transmit", { invoice_ids: [invoice.id] });
      expect(sent.results[0]).toMatchObject({ status: "transmitida" });
      const body = await post("/deliver", { invoice_id: invoice.id });
      expect(body.status).toBe("enviada");
      names.push(...(mail.content(body.delivery_id)?.attachments.keys() ?? []));
      const note = await post("/credit-notes", {
        invoice_id: invoice.id,
        concept_code: "2",
        reason: "Anulación",
      });
      const noted = await post("/credit-notes/deliver", { credit_note_id: note.credit_note_id });
      expect(noted.status).toBe("enviada");
      names.push(...(mail.content(noted.delivery_id)?.attachments.keys() ?? []));
    }
    expect(names).toHaveLength(4);
    expect(new Set(names).size).toBe(4);
    // consecutive packages of the issuer, in the order they were sent
    const consecutives = names.map((name) => Number.parseInt(name.slice(-12, -4), 16));
    expect(consecutives.slice(1).map((c, i) => c - (consecutives[i] ?? 0))).toEqual([1, 1, 1]);
  });
});

describe("POST /deliver", () => {
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
