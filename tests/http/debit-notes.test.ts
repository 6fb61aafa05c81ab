/**
 * The debit-note routes through the real app and database, with the sandbox provider at the network
 * edge: a note charging interest, an expense or a price change is written for a transmitted invoice
 * and sent at once with its CUDE and the invoice's CUFE; its lines are computed as an invoice's; a
 * rejection, an unknown outcome and their reissue, idempotency and events follow the one lifecycle.
 * Refresh, representation and deliver of every kind are in the kind-generic suites
 * (tests/support/document-kinds.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TestApp } from "../../devkit/app.ts";
import type { TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import { createSandboxProvider, type SandboxProvider } from "../../sandbox/provider.ts";
import { computeCude } from "../../shared/co/cufe.ts";
import { openRouteSuite } from "../support/route-suite.ts";

let db: TestDatabase;
let t: TestApp;
let sandbox: SandboxProvider;
let tenant: Tenant;
let token: string;

/** What every submit to the provider carried, and which references were queried. */
let calls: { method: string; path: string; body: Record<string, unknown> | null }[] = [];
const submitted = (reference: string) =>
  calls.filter((c) => c.method === "POST" && c.body?.reference === reference).map((c) => c.body ?? {});
const queried = (reference: string) => calls.filter((c) => c.method === "GET" && c.path.endsWith(reference));

beforeAll(async () => {
  sandbox = createSandboxProvider();
  const recording = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const text = request.method === "POST" ? await request.clone().text() : "";
    calls.push({
      method: request.method,
      path: new URL(request.url).pathname,
      body: text ? JSON.parse(text) : null,
    });
    return sandbox.fetch(request);
  };
  ({ db, t, tenant, token } = await openRouteSuite({
    env: { EINV_PROVIDER_TIMEOUT_MS: "300" },
    providerFetch: recording,
  }));
});
afterAll(() => db?.close());
beforeEach(() => {
  sandbox.reset();
  calls = [];
});

/** A transmitted (accepted) invoice of the tenant, sent through /transmit. */
async function transmitted(): Promise<Invoice> {
  const invoice = await createInvoice(db, tenant.org, tenant.company);
  const response = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token);
  expect((await response.json()).results[0].status).toBe("transmitida");
  return invoice;
}

const INTEREST = { description: "Intereses de mora: 30 días al 2 %", quantity: "1", unit_price: "47600" };

const note = (body: Record<string, unknown>, as = token, headers?: Record<string, string>) =>
  t.post(
    "/debit-notes",
    { org_id: tenant.org.id, concept_code: "1", reason: "Intereses de mora", lines: [INTEREST], ...body },
    as,
    headers,
  );

const stored = async (id: string) =>
  (
    await db.superuser<Record<string, unknown>>(
      `select number, status, authority_code, qr_text, subtotal::text, tax_total::text, total::text,
              concept_code, reason, environment
         from debit_notes where id = $1`,
      [id],
    )
  )[0];

const reissue = (debit_note_id: string) =>
  t.post("/debit-notes/reissue", { org_id: tenant.org.id, debit_note_id }, token);

describe("POST /debit-notes", () => {
  it("charges interest: sends a debit note with its CUDE and the invoice's CUFE, and answers emitida", async () => {
    const invoice = await transmitted();
    const response = await note({ invoice_id: invoice.id });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({
      debit_note_id: expect.any(String),
      status: "emitida",
      code: "accepted",
      message: "the authority accepted this debit note",
      authority_message: expect.stringMatching(/^La nota débito electrónica ND\d+ ha sido autorizada\.$/),
    });
    const row = await stored(body.debit_note_id);
    expect(row).toMatchObject({
      status: "emitida",
      subtotal: "47600.00",
      tax_total: "0.00",
      total: "47600.00",
      concept_code: "1",
      environment: "uat",
    });
    expect(row?.number).toMatch(/^ND[0-9]+$/);

    const [sent] = submitted(body.debit_note_id) as {
      issue_date: string;
      issue_time: string;
      buyer: { id_number: string };
      issuer: Record<string, unknown>;
    }[];
    const [cufe] = await db.superuser<{ authority_code: string }>(
      "select authority_code from invoices where id = $1",
      [invoice.id],
    );
    expect(sent).toMatchObject({
      kind: "debit_note",
      number: row?.number,
      billing_reference: { number: invoice.number, authority_code: cufe?.authority_code },
      correction: { concept_code: "1", reason: "Intereses de mora" },
      issuer: { software_pin: "75315" },
    });
    expect(sent?.issuer).not.toHaveProperty("technical_key");

    // the CUDE, computed here independently from the note as stored and sent
    const cude = await computeCude({
      number: String(row?.number),
      issueDate: String(sent?.issue_date),
      issueTime: String(sent?.issue_time),
      subtotal: "47600.00",
      iva: "0.00",
      inc: "0.00",
      ica: "0.00",
      total: "47600.00",
      issuerNit: tenant.company.nit,
      buyerId: String(sent?.buyer.id_number),
      softwarePin: "75315",
      environment: "uat",
    });
    expect(row?.authority_code).toBe(cude);
    expect(row?.qr_text).toContain(`CUDE: ${cude}`);
  });

  it("a price change with IVA and an expense: lines computed as an invoice's, numbers consecutive", async () => {
    const invoice = await transmitted();
    const price = await (
      await note({
        invoice_id: invoice.id,
        concept_code: "3",
        reason: "Ajuste de precio pactado",
        lines: [
          {
            description: "Mayor valor del servicio",
            quantity: "2",
            unit_price: "12500",
            taxes: [{ code: "01", percent: 19 }],
          },
        ],
      })
    ).json();
    const expense = await (
      await note({
        invoice_id: invoice.id,
        concept_code: "2",
        reason: "Gastos de envío",
        lines: [{ description: "Envío", quantity: "1", unit_price: "8000.50" }],
      })
    ).json();
    const [a, b] = [await stored(price.debit_note_id), await stored(expense.debit_note_id)];
    expect(a).toMatchObject({
      status: "emitida",
      subtotal: "25000.00",
      tax_total: "4750.00",
      total: "29750.00",
    });
    expect(b).toMatchObject({ status: "emitida", subtotal: "8000.50", tax_total: "0.00", total: "8000.50" });
    expect(Number(String(b?.number).slice(2))).toBe(Number(String(a?.number).slice(2)) + 1);
    const [sent] = submitted(price.debit_note_id) as { totals: Record<string, unknown>; lines: unknown[] }[];
    expect(sent?.lines).toHaveLength(1);
    // debit notes never count as credit: a later credit note still credits the whole invoice
    const credit = await t.post(
      "/credit-notes",
      { org_id: tenant.org.id, invoice_id: invoice.id, concept_code: "2", reason: "Anulación" },
      token,
    );
    expect((await credit.json()).status).toBe("emitida");
  });

  it("answers 409 for an invoice that is not transmitted, and 404 for another org's; nothing is created", async () => {
    const draft = await createInvoice(db, tenant.org, tenant.company);
    const response = await note({ invoice_id: draft.id });
    expect(response.status).toBe(409);
    expect((await response.json()).error.message).toMatch(/this one is pendiente/);
    const stranger = await createTenant(db);
    const foreign = await createInvoice(db, stranger.org, stranger.company, { status: "transmitida" });
    expect((await note({ invoice_id: foreign.id })).status).toBe(404);
    const rows = await db.superuser("select id from debit_notes where invoice_id in ($1, $2)", [
      draft.id,
      foreign.id,
    ]);
    expect(rows).toEqual([]);
  });

  it("validates the body: concepts 1–4 as strings, a reason of 1–500 characters, 1 or more well-formed lines", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    for (const [body, field] of [
      [{ concept_code: 1 }, "concept_code"],
      [{ concept_code: "5" }, "concept_code"],
      [{ reason: " " }, "reason"],
      [{ reason: "x".repeat(501) }, "reason"],
      [{ lines: [] }, "lines"],
      [{ lines: [{ ...INTEREST, quantity: "0" }] }, "lines.0.quantity"],
      [{ lines: [{ ...INTEREST, unit_price: "-1" }] }, "lines.0.unit_price"],
      [{ lines: [{ ...INTEREST, line_id: invoice.lineIds[0] }] }, "lines.0.line_id"],
    ] as const) {
      const response = await note({ invoice_id: invoice.id, ...body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((await response.json()).error.details[0].field).toBe(field);
    }
  });

  it("a tax the database refuses (IVA at 18 %) is 400 naming the field, and takes no number", async () => {
    const invoice = await transmitted();
    const first = await (await note({ invoice_id: invoice.id })).json();
    const refused = await note({
      invoice_id: invoice.id,
      lines: [{ ...INTEREST, taxes: [{ code: "01", percent: 18 }] }],
    });
    expect(refused.status).toBe(400);
    const { error } = await refused.json();
    expect(error.details[0]).toMatchObject({
      field: "lines.0.taxes.0.percent",
      message: expect.stringMatching(/18 is not a rate of IVA/),
    });
    const next = await (await note({ invoice_id: invoice.id })).json();
    const [a, b] = [await stored(first.debit_note_id), await stored(next.debit_note_id)];
    expect(Number(String(b?.number).slice(2))).toBe(Number(String(a?.number).slice(2)) + 1);
  });

  it("a lector may not create one", async () => {
    const invoice = await transmitted();
    expect((await note({ invoice_id: invoice.id }, await t.token(tenant.lector))).status).toBe(403);
  });

  it("replays under an Idempotency-Key: the same note, and no second one", async () => {
    const invoice = await transmitted();
    const key = { "idempotency-key": `k-${crypto.randomUUID()}` };
    const first = await note({ invoice_id: invoice.id }, token, key);
    expect(first.status).toBe(200);
    const body = await first.json();
    const again = await note({ invoice_id: invoice.id }, token, key);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(body);
    expect((await note({ invoice_id: invoice.id, reason: "Otra" }, token, key)).status).toBe(409);
    const notes = await db.superuser("select id from debit_notes where invoice_id = $1", [invoice.id]);
    expect(notes).toEqual([{ id: body.debit_note_id }]);
  });

  it("records its changes as debit_note events: created, then emitida", async () => {
    const invoice = await transmitted();
    const { debit_note_id } = await (await note({ invoice_id: invoice.id })).json();
    const events = await db.superuser<{ kind: string; status: string; code: string | null }>(
      "select kind, status, code from einv_private.outbox where document_id = $1 order by id",
      [debit_note_id],
    );
    expect(events.map((e) => `${e.kind}.${e.status}`)).toContain("debit_note.emitida");
    expect(new Set(events.map((e) => e.kind))).toEqual(new Set(["debit_note"]));
    expect(events.at(-1)).toEqual({ kind: "debit_note", status: "emitida", code: "accepted" });
  });
});

describe("an unknown outcome, a rejection, and their reissue", () => {
  it("a submit that times out leaves the note en_proceso; a reissue asks first and never sends it twice", async () => {
    const invoice = await transmitted();
    sandbox.setKnobs({ hangMs: 2_000, failNext: [{ kind: "hang", on: "submit" }] });
    const body = await (await note({ invoice_id: invoice.id })).json();
    expect(body.status).toBe("en_proceso");
    await db.superuser("update debit_notes set lease_until = now() + interval '1 minute' where id = $1", [
      body.debit_note_id,
    ]);
    expect((await reissue(body.debit_note_id)).status).toBe(409);
    await db.superuser("update debit_notes set lease_until = null where id = $1", [body.debit_note_id]);
    const again = await (await reissue(body.debit_note_id)).json();
    expect(again).toMatchObject({ debit_note_id: body.debit_note_id, status: "emitida", code: "accepted" });
    expect(sandbox.submissions.filter((s) => s.reference === body.debit_note_id)).toHaveLength(1);
    expect(submitted(body.debit_note_id)).toHaveLength(1);
    expect(queried(body.debit_note_id)).toHaveLength(1);
  });

  it("a rejected note is error with DIAN's rule, reissuable under a new key; an emitida one is 409", async () => {
    const invoice = await transmitted();
    const body = await (await note({ invoice_id: invoice.id, reason: "RECHAZAR por prueba" })).json();
    expect(body).toMatchObject({
      status: "error",
      code: "rejected",
      message: expect.stringMatching(/\(DAJ51; see authority_rules\).*\/debit-notes\/reissue/),
      authority_rules: [{ rule: "DAJ51", kind: "rechazo", message: expect.stringMatching(/nota débito/) }],
    });
    expect(await (await reissue(body.debit_note_id)).json()).toMatchObject({
      status: "error",
      code: "rejected",
    });
    expect(
      sandbox.received.filter((r) => r.reference === body.debit_note_id).map((r) => r.idempotency_key),
    ).toEqual([`doc-${body.debit_note_id}-submit-1`, `doc-${body.debit_note_id}-submit-2`]);
    // a rejected debit note takes nothing from its invoice: another note stands beside it
    const accepted = await (await note({ invoice_id: invoice.id })).json();
    expect(accepted.status).toBe("emitida");
    expect((await stored(body.debit_note_id))?.status).toBe("error");
    expect((await reissue(accepted.debit_note_id)).status).toBe(409);
  });

  it("a company without a software PIN: the note is error, not sent, with the reason", async () => {
    const invoice = await transmitted();
    await db.superuser("update companies set software_pin = null where id = $1", [tenant.company.id]);
    try {
      const body = await (await note({ invoice_id: invoice.id })).json();
      expect(body).toMatchObject({
        status: "error",
        code: "check_failed",
        message: expect.stringMatching(/^not sent: .*software PIN/),
      });
      expect(calls.filter((c) => c.body?.reference === body.debit_note_id)).toEqual([]);
    } finally {
      await db.superuser("update companies set software_pin = '75315' where id = $1", [tenant.company.id]);
    }
  });
});
