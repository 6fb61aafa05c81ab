/**
 * When a document is issued (DESIGN §12, docs/adr/0010): through the real app and database, with
 * the sandbox provider at the network edge and the service's clock set by the test. A draft is
 * dated by the claim that first sends it, in Colombia's time, whatever its own date said; a credit
 * note at its creation; a resend of what may be at the provider keeps its stamp (the same
 * CUFE/CUDE); a document sent afresh on a later day, when nothing of it at the authority can still
 * be accepted, is dated anew and says so. What is sent, stored, encoded in the QR, hashed into the
 * CUFE/CUDE and printed in the PDF is that stamp.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { createTestClock } from "../../devkit/clock.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import { documentTexts } from "../../devkit/pdf/support.ts";
import { createSandboxProvider, type SandboxProvider } from "../../sandbox/provider.ts";
import { computeCude, computeCufe } from "../../shared/co/cufe.ts";

/** 23:30:12 in Bogotá on 2026-11-20 is 04:30:12 UTC on the 21st (Colombia is UTC−5 all year). */
const LATE_EVENING = "2026-11-21T04:30:12.345Z";
/** The next morning in Bogotá, 09:05:00−05:00 on 2026-11-21. */
const NEXT_MORNING = "2026-11-21T14:05:00Z";

const clock = createTestClock(LATE_EVENING);
let db: TestDatabase;
let t: TestApp;
let sandbox: SandboxProvider;
let tenant: Tenant;
let token: string;

/** The submits the service made, as the provider received them. */
let submits: Record<string, unknown>[] = [];
const submitsOf = (reference: string) => submits.filter((s) => s.reference === reference);
/** Answers a submit instead of the sandbox, when it returns an answer. */
let intercept: ((submit: Record<string, unknown>) => Response | undefined) | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  sandbox = createSandboxProvider();
  const recording = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    if (request.method === "POST" && new URL(request.url).pathname.endsWith("/documents")) {
      const submit = JSON.parse(await request.clone().text());
      submits.push(submit);
      const answer = intercept?.(submit);
      if (answer) return answer;
    }
    return sandbox.fetch(request);
  };
  t = await createTestApp(db, { env: { EINV_PROVIDER_TIMEOUT_MS: "300" }, providerFetch: recording, clock });
  tenant = await createTenant(db);
  await saveCredential(t.deps, tenant);
  token = await t.token(tenant.operador);
});
afterAll(() => db?.close());
beforeEach(() => {
  sandbox.reset();
  submits = [];
  intercept = undefined;
  clock.set(LATE_EVENING);
});

interface Result {
  status: string;
  code: string;
  message: string;
}

async function call<T>(route: string, body: Record<string, unknown>): Promise<T> {
  const response = await t.post(route, { org_id: tenant.org.id, ...body }, token);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as T;
}

async function transmit(invoice: Invoice, reissue = false): Promise<Result> {
  const { results } = await call<{ results: Result[] }>("/transmit", {
    invoice_ids: [invoice.id],
    ...(reissue ? { reissue: true } : {}),
  });
  return results[0] as Result;
}

/** A draft whose own date and time say something else than the claim will: a preview. */
async function draft(): Promise<Invoice> {
  const invoice = await createInvoice(db, tenant.org, tenant.company);
  await db.superuser(
    "update invoices set issue_date = '2026-11-03', issue_time = '08:00:00+00' where id = $1",
    [invoice.id],
  );
  return invoice;
}

interface Stored {
  issue_date: string;
  issue_time: string;
  status: string;
  authority_code: string | null;
  qr_text: string | null;
  number: string;
  subtotal: string;
  tax_total: string;
  total: string;
  buyer_id_number: string;
}

const stored = async (table: "invoices" | "credit_notes", id: string): Promise<Stored> => {
  const buyer =
    table === "invoices"
      ? "d.buyer_id_number"
      : "(select i.buyer_id_number from invoices i where i.id = d.invoice_id)";
  const [row] = await db.superuser<Stored>(
    `select d.issue_date::text, d.issue_time::text, d.status, d.authority_code, d.qr_text, d.number,
            d.subtotal::text, d.tax_total::text, d.total::text, ${buyer} as buyer_id_number
       from ${table} d where d.id = $1`,
    [id],
  );
  if (!row) throw new Error(`no ${table} row ${id}`);
  return row;
};

/** The CUFE of an invoice with these amounts and this issue date and time (its lines are all IVA). */
const cufeOf = (row: Stored, issueDate: string, issueTime: string) =>
  computeCufe({
    number: row.number,
    issueDate,
    issueTime,
    subtotal: row.subtotal,
    iva: row.tax_total,
    inc: "0.00",
    ica: "0.00",
    total: row.total,
    issuerNit: tenant.company.nit,
    buyerId: row.buyer_id_number,
    technicalKey: "fc8eac422eba16e22ffd8c6f94b3f40a6e38162c", // the factories' company's
    environment: "uat",
  });

describe("a draft sent at 23:30 in Bogotá (04:30 UTC the next day)", () => {
  it("is issued that Bogotá day at 23:30:12-05:00, whatever its own date said: sent, stored, hashed, in the QR and the PDF", async () => {
    const invoice = await draft();
    expect(await transmit(invoice)).toMatchObject({ status: "transmitida", code: "accepted" });

    const [sent] = submitsOf(invoice.id);
    expect(sent).toMatchObject({ issue_date: "2026-11-20", issue_time: "23:30:12-05:00" });
    const row = await stored("invoices", invoice.id);
    expect(row).toMatchObject({ issue_date: "2026-11-20", issue_time: "23:30:12-05" });
    expect(row.authority_code).toBe(await cufeOf(row, "2026-11-20", "23:30:12-05:00"));
    expect(row.qr_text).toContain("FecFac: 2026-11-20\nHorFac: 23:30:12-05:00\n");

    const { path } = await call<{ path: string }>("/representation", { invoice_id: invoice.id });
    const text = (await documentTexts(readFileSync(t.documents.file(path)))).flat().join("\n");
    expect(text).toContain("20/11/2026");
    expect(text).toContain("23:30:12 (UTC-05:00)");
    expect(text).not.toContain("03/11/2026");

    const [claimed] = await db.superuser<{ data: Record<string, unknown> }>(
      "select data from events where document_id = $1 and kind = 'transmit_claimed'",
      [invoice.id],
    );
    expect(claimed?.data).toMatchObject({ issue_date: "2026-11-20", issue_time: "23:30:12-05" });
  });

  it("a draft released unsent is a draft again: sent the next day, it is dated that day", async () => {
    const invoice = await draft();
    sandbox.setKnobs({ failNext: [{ kind: "rate_limited", count: 3, reference: invoice.id }] });
    expect(await transmit(invoice)).toMatchObject({ code: "not_sent_retry" });
    expect(await stored("invoices", invoice.id)).toMatchObject({ status: "pendiente" });
    clock.set(NEXT_MORNING);
    const result = await transmit(invoice);
    expect(result).toMatchObject({ status: "transmitida", message: "the authority accepted this invoice" });
    expect(submitsOf(invoice.id).at(-1)).toMatchObject({
      issue_date: "2026-11-21",
      issue_time: "09:05:00-05:00",
    });
  });
});

describe("a resend after an unknown outcome", () => {
  it("keeps the issue date and time, even the next day, so the CUFE never changes", async () => {
    const invoice = await draft();
    // the submit fails in a way that may have reached the provider: the outcome is unknown
    sandbox.setKnobs({ failNext: [{ kind: "error", reference: invoice.id }] });
    expect(await transmit(invoice)).toMatchObject({ status: "en_proceso", code: "outcome_unknown" });
    const before = await stored("invoices", invoice.id);
    expect(before).toMatchObject({ issue_date: "2026-11-20", issue_time: "23:30:12-05" });

    clock.set(NEXT_MORNING);
    // asked first (the provider never got it), then sent again under the same key, as it was
    const again = await transmit(invoice, true);
    expect(again).toMatchObject({ status: "transmitida", message: "the authority accepted this invoice" });
    const [first, second] = submitsOf(invoice.id);
    expect(second).toEqual(first);
    expect(second).toMatchObject({ issue_date: "2026-11-20", issue_time: "23:30:12-05:00" });
    const after = await stored("invoices", invoice.id);
    expect(after).toMatchObject({ issue_date: "2026-11-20", issue_time: "23:30:12-05" });
    expect(after.authority_code).toBe(await cufeOf(after, "2026-11-20", "23:30:12-05:00"));
  });
});

describe("a resend after the authority definitely refused every attempt", () => {
  /** Rejected at its first submit (a rule the authority applied that day); the next one is accepted. */
  async function rejectedOnce(): Promise<Invoice> {
    const invoice = await draft();
    intercept = (submit) =>
      submit.reference === invoice.id
        ? Response.json({
            reference: invoice.id,
            provider_reference: `prv-${invoice.id}`,
            status: "rejected",
            message: "Documento rechazado",
          })
        : undefined;
    expect(await transmit(invoice)).toMatchObject({ status: "error", code: "rejected" });
    intercept = undefined;
    return invoice;
  }

  it("the same day keeps its stamp, and says nothing of it", async () => {
    const invoice = await rejectedOnce();
    clock.set("2026-11-21T04:59:59Z"); // 23:59:59 in Bogotá, still the 20th
    const result = await transmit(invoice, true);
    expect(result).toEqual({
      ...result,
      status: "transmitida",
      message: "the authority accepted this invoice",
    });
    expect(await stored("invoices", invoice.id)).toMatchObject({
      issue_date: "2026-11-20",
      issue_time: "23:30:12-05",
    });
  });

  it("the next day is issued anew, that day, and its message says so", async () => {
    const invoice = await rejectedOnce();
    clock.set(NEXT_MORNING);
    const result = await transmit(invoice, true);
    expect(result.status).toBe("transmitida");
    expect(result.message).toBe(
      "the authority accepted this invoice; issued anew on 2026-11-21 09:05:00-05:00: it was dated " +
        "2026-11-20, a day it can no longer be signed on, and nothing of it at the authority could still be accepted",
    );
    expect(submitsOf(invoice.id).at(-1)).toMatchObject({
      issue_date: "2026-11-21",
      issue_time: "09:05:00-05:00",
    });
    const row = await stored("invoices", invoice.id);
    expect(row).toMatchObject({ issue_date: "2026-11-21", issue_time: "09:05:00-05" });
    expect(row.authority_code).toBe(await cufeOf(row, "2026-11-21", "09:05:00-05:00"));
    // the claim's event and the attempt's both say so
    const [claimed, attempt] = await db
      .superuser<{ data: Record<string, unknown> }>(
        `select data from events where document_id = $1 and kind in ('transmit_claimed', 'transmit_attempt')
        order by id desc limit 2`,
        [invoice.id],
      )
      .then((rows) => rows.reverse());
    const before = { issue_date: "2026-11-20", issue_time: "23:30:12-05" };
    expect(claimed?.data).toMatchObject({ issue_date: "2026-11-21", restamped_from: before });
    expect(attempt?.data).toMatchObject({ status: "transmitida", restamped_from: before });
  });
});

describe("a credit note", () => {
  async function accepted(): Promise<Invoice> {
    const invoice = await draft();
    expect(await transmit(invoice)).toMatchObject({ status: "transmitida" });
    return invoice;
  }

  const cudeOf = (row: Stored, issueDate: string, issueTime: string) =>
    computeCude({
      number: row.number,
      issueDate,
      issueTime,
      subtotal: row.subtotal,
      iva: row.tax_total,
      inc: "0.00",
      ica: "0.00",
      total: row.total,
      issuerNit: tenant.company.nit,
      buyerId: row.buyer_id_number,
      softwarePin: "75315", // the factories' company's
      environment: "uat",
    });

  it("is issued at its creation by the service's clock, in Bogotá: at 23:30 its date is that Bogotá day", async () => {
    const invoice = await accepted();
    const note = await call<Result & { credit_note_id: string }>("/credit-notes", {
      invoice_id: invoice.id,
      concept_code: "2",
      reason: "Anulación",
    });
    expect(note).toMatchObject({ status: "emitida" });
    const row = await stored("credit_notes", note.credit_note_id);
    expect(row).toMatchObject({ issue_date: "2026-11-20", issue_time: "23:30:12-05" });
    expect(submitsOf(note.credit_note_id)[0]).toMatchObject({
      issue_date: "2026-11-20",
      issue_time: "23:30:12-05:00",
    });
    expect(row.authority_code).toBe(await cudeOf(row, "2026-11-20", "23:30:12-05:00"));
  });

  it("never sent, and reissued the next day, is issued anew and says so", async () => {
    const invoice = await accepted();
    // the provider refuses it without processing it, three times: nothing of it reached it
    sandbox.setKnobs({ failNext: [{ kind: "rate_limited", count: 3 }] });
    const note = await call<Result & { credit_note_id: string }>("/credit-notes", {
      invoice_id: invoice.id,
      concept_code: "2",
      reason: "Anulación",
    });
    expect(note).toMatchObject({ status: "error", code: "not_sent_retry" });
    clock.set(NEXT_MORNING);
    const again = await call<Result>("/credit-notes/reissue", { credit_note_id: note.credit_note_id });
    expect(again).toMatchObject({ status: "emitida", code: "accepted" });
    expect(again.message).toMatch(
      /^the authority accepted this credit note; issued anew on 2026-11-21 09:05:00-05:00: it was dated 2026-11-20, /,
    );
    const row = await stored("credit_notes", note.credit_note_id);
    expect(row).toMatchObject({ issue_date: "2026-11-21", issue_time: "09:05:00-05" });
    expect(row.authority_code).toBe(await cudeOf(row, "2026-11-21", "09:05:00-05:00"));
  });
});
