/**
 * The four credit-note routes through the real app and database, with the sandbox provider at the
 * network edge: a note is written for a transmitted invoice and sent at once with its CUDE and the
 * invoice's CUFE; what it may credit is checked by the database; reissue, refresh and the PDF follow
 * the one fiscal-document lifecycle.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TestApp } from "../../devkit/app.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import type { TestDatabase } from "../../devkit/database.ts";
import {
  createInvoice,
  createTenant,
  DEFAULT_LINES,
  type Invoice,
  type LineInput,
  type Tenant,
} from "../../devkit/factories.ts";
import { createSandboxProvider, type SandboxProvider } from "../../sandbox/provider.ts";
import { computeCude } from "../../shared/co/cufe.ts";
import { openRouteSuite } from "../support/route-suite.ts";

let db: TestDatabase;
let t: TestApp;
let sandbox: SandboxProvider;
let tenant: Tenant;
let token: string;

/** Every request the service made to the provider: what a submit carried, which queries it asked. */
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

const THREE_LINES: LineInput[] = [
  ...DEFAULT_LINES,
  { description: "Soporte mensual", quantity: 3, unitPrice: 20_000, taxRate: 19 },
];

/** A transmitted (accepted) invoice of the tenant, sent through /transmit. */
async function transmitted(lines: readonly LineInput[] = DEFAULT_LINES): Promise<Invoice> {
  const invoice = await createInvoice(db, tenant.org, tenant.company, { lines });
  const response = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token);
  expect((await response.json()).results[0].status).toBe("transmitida");
  return invoice;
}

const note = (body: Record<string, unknown>, as = token) =>
  t.post("/credit-notes", { org_id: tenant.org.id, concept_code: "1", reason: "Devolución", ...body }, as);

const stored = async (id: string) =>
  (
    await db.superuser<Record<string, unknown>>(
      `select number, status, authority_code, qr_text, subtotal::text, tax_total::text, total::text,
              concept_code, reason, submitted_attempt, attempt_count
         from credit_notes where id = $1`,
      [id],
    )
  )[0];

describe("POST /credit-notes", () => {
  it("credits the whole invoice, sends the note with its CUDE and the invoice's CUFE, and answers emitida", async () => {
    const invoice = await transmitted();
    const response = await note({ invoice_id: invoice.id, concept_code: "2", reason: "Anulación total" });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({
      credit_note_id: expect.any(String),
      status: "emitida",
      code: "accepted",
      message: "the authority accepted this credit note",
      authority_message: expect.stringMatching(/^La nota crédito electrónica NC\d+ ha sido autorizada\.$/),
    });
    const row = await stored(body.credit_note_id);
    expect(row).toMatchObject({
      status: "emitida",
      subtotal: "110000.00",
      tax_total: "19000.00",
      total: "129000.00",
    });
    expect(row?.number).toMatch(/^NC[0-9]+$/);

    // what went to the provider: a credit note, its invoice as billing reference, the PIN, no ClTec
    const [sent] = submitted(body.credit_note_id) as {
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
      kind: "credit_note",
      billing_reference: { number: invoice.number, authority_code: cufe?.authority_code },
      correction: { concept_code: "2", reason: "Anulación total" },
      issuer: { software_pin: "75315" },
    });
    expect(sent?.issuer).not.toHaveProperty("technical_key");

    // the CUDE, computed here independently from the note as stored and sent
    const cude = await computeCude({
      number: String(row?.number),
      issueDate: String(sent?.issue_date),
      issueTime: String(sent?.issue_time),
      subtotal: "110000.00",
      iva: "19000.00",
      inc: "0.00",
      ica: "0.00",
      total: "129000.00",
      issuerNit: tenant.company.nit,
      buyerId: String(sent?.buyer.id_number),
      softwarePin: "75315",
      environment: "uat",
    });
    expect(row?.authority_code).toBe(cude);
    expect(row?.qr_text).toContain(`CUDE: ${cude}`);
  });

  it("credits the listed lines only, numbers notes consecutively, and then credits what is left", async () => {
    const invoice = await transmitted(THREE_LINES);
    const first = await (await note({ invoice_id: invoice.id, line_ids: [invoice.lineIds[0]] })).json();
    const rest = await (
      await note({ invoice_id: invoice.id, concept_code: "3", reason: "Descuento" })
    ).json();
    const [a, b] = [await stored(first.credit_note_id), await stored(rest.credit_note_id)];
    expect(a?.subtotal).toBe("100000.00");
    expect(b?.subtotal).toBe("70000.00"); // 10.000 exempt + 3 × 20.000
    expect(Number(String(b?.number).slice(2))).toBe(Number(String(a?.number).slice(2)) + 1);
    const lines = await db.superuser<{ invoice_line_id: string }>(
      `select l.invoice_line_id from credit_note_lines l join credit_notes n on n.id = l.credit_note_id
        where n.invoice_id = $1 order by l.invoice_line_id`,
      [invoice.id],
    );
    expect(lines.map((l) => l.invoice_line_id)).toEqual([...invoice.lineIds].sort());
  });

  it("refuses, 422 and nothing created, a line already credited, a line of another invoice, and nothing left", async () => {
    const invoice = await transmitted();
    const other = await transmitted();
    await note({ invoice_id: invoice.id, line_ids: [invoice.lineIds[0]] });
    const count = async () =>
      (
        await db.superuser<{ n: number }>(
          "select count(*)::int as n from credit_notes where invoice_id = $1",
          [invoice.id],
        )
      )[0]?.n;
    const before = await count();
    for (const [lineIds, message] of [
      [
        [invoice.lineIds[0]],
        /is credited by another credit note that the authority accepted or may still accept/,
      ],
      [[other.lineIds[0]], /is not a line of this invoice/],
    ] as const) {
      const response = await note({ invoice_id: invoice.id, line_ids: lineIds });
      expect(response.status).toBe(422);
      const { error } = await response.json();
      expect(error).toMatchObject({ code: "business_rule", message: expect.stringMatching(message) });
    }
    await note({ invoice_id: invoice.id });
    const nothing = await note({ invoice_id: invoice.id });
    expect(nothing.status).toBe(422);
    expect((await nothing.json()).error.message).toMatch(/already been credited/);
    expect(await count()).toBe((before ?? 0) + 1);
  });

  it("an annulment must cover everything still uncredited: after a partial note, one that leaves a line out is 422", async () => {
    const invoice = await transmitted(THREE_LINES);
    await note({ invoice_id: invoice.id, line_ids: [invoice.lineIds[0]] });
    const partial = await note({ invoice_id: invoice.id, concept_code: "2", line_ids: [invoice.lineIds[1]] });
    expect(partial.status).toBe(422);
    expect((await partial.json()).error.message).toMatch(/annulment .* 1 line\(s\) would be left out/i);
    const rest = await note({ invoice_id: invoice.id, concept_code: "2", reason: "Anulación del saldo" });
    expect((await rest.json()).status).toBe("emitida");
  });

  it("answers 409 for an invoice that is not transmitted, and 404 for another org's", async () => {
    const draft = await createInvoice(db, tenant.org, tenant.company);
    const response = await note({ invoice_id: draft.id });
    expect(response.status).toBe(409);
    expect((await response.json()).error.message).toMatch(/this one is pendiente/);
    const stranger = await createTenant(db);
    const foreign = await createInvoice(db, stranger.org, stranger.company, { status: "transmitida" });
    expect((await note({ invoice_id: foreign.id })).status).toBe(404);
  });

  it("validates the body: concept codes are strings 1–6, a reason of 1–500 characters, distinct lines", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    for (const [body, field] of [
      [{ concept_code: 2 }, "concept_code"],
      [{ concept_code: "7" }, "concept_code"],
      [{ reason: "" }, "reason"],
      [{ reason: "x".repeat(501) }, "reason"],
      [{ line_ids: [invoice.lineIds[0], invoice.lineIds[0]] }, "line_ids"],
      [{ line_ids: [] }, "line_ids"],
    ] as const) {
      const response = await note({ invoice_id: invoice.id, ...body });
      expect(response.status).toBe(400);
      expect((await response.json()).error.details[0].field).toBe(field);
    }
  });

  it("lets a lector read notes but nobody create one, and the software PIN stays hidden", async () => {
    const invoice = await transmitted();
    expect((await note({ invoice_id: invoice.id }, await t.token(tenant.lector))).status).toBe(403);
  });
});

describe("an unknown outcome, a rejection, and their reissue", () => {
  it("a submit that times out leaves the note en_proceso; a reissue asks first and never sends it twice", async () => {
    const invoice = await transmitted();
    sandbox.setKnobs({ hangMs: 2_000, failNext: [{ kind: "hang", on: "submit" }] });
    const body = await (await note({ invoice_id: invoice.id })).json();
    expect(body.status).toBe("en_proceso");
    const reissue = () =>
      t.post("/credit-notes/reissue", { org_id: tenant.org.id, credit_note_id: body.credit_note_id }, token);
    // while a transmission holds it (its lease), nobody else may: 409
    await db.superuser("update credit_notes set lease_until = now() + interval '1 minute' where id = $1", [
      body.credit_note_id,
    ]);
    expect((await reissue()).status).toBe(409);
    // the timed-out transmission released it: idle, its outcome unknown
    await db.superuser("update credit_notes set lease_until = null where id = $1", [body.credit_note_id]);
    const again = await (await reissue()).json();
    // asked first: the provider had it, so its answer is recorded and nothing is sent again
    expect(again).toMatchObject({ credit_note_id: body.credit_note_id, status: "emitida", code: "accepted" });
    expect(sandbox.submissions.filter((s) => s.reference === body.credit_note_id)).toHaveLength(1);
    expect(submitted(body.credit_note_id)).toHaveLength(1);
    expect(queried(body.credit_note_id)).toHaveLength(1);
  });

  it("a rejected note is error, says to issue a new note (it cannot be edited), reissuable under a new key; an emitida one is 409", async () => {
    const invoice = await transmitted();
    const body = await (await note({ invoice_id: invoice.id, reason: "RECHAZAR por prueba" })).json();
    expect(body).toMatchObject({
      status: "error",
      code: "rejected",
      message:
        "the authority rejected this credit note (CAJ51; see authority_rules); a note cannot be edited: " +
        "issue a new note for its lines with /credit-notes (it replaces this one)",
      authority_message: expect.stringMatching(/^Documento rechazado\. CAJ51: /),
      authority_rules: [{ rule: "CAJ51", kind: "rechazo", message: expect.stringMatching(/^El motivo/) }],
    });
    const reissue = await t.post(
      "/credit-notes/reissue",
      { org_id: tenant.org.id, credit_note_id: body.credit_note_id },
      token,
    );
    // the same reason is rejected again
    expect(await reissue.json()).toMatchObject({ status: "error", code: "rejected" });
    expect(
      sandbox.received.filter((r) => r.reference === body.credit_note_id).map((r) => r.idempotency_key),
    ).toEqual([`doc-${body.credit_note_id}-submit-1`, `doc-${body.credit_note_id}-submit-2`]);
    const accepted = await (await note({ invoice_id: (await transmitted()).id })).json();
    const refused = await t.post(
      "/credit-notes/reissue",
      { org_id: tenant.org.id, credit_note_id: accepted.credit_note_id },
      token,
    );
    expect(refused.status).toBe(409);
  });

  it("a rejected note never locks its invoice: a later note takes its lines and discards it", async () => {
    const invoice = await transmitted();
    const rejected = await (
      await note({ invoice_id: invoice.id, concept_code: "2", reason: "RECHAZAR" })
    ).json();
    expect(rejected.status).toBe("error");
    const again = await (
      await note({ invoice_id: invoice.id, concept_code: "2", reason: "Anulación" })
    ).json();
    expect(again.status).toBe("emitida");
    const [old] = await db.superuser<{ status: string; last_code: string }>(
      "select status, last_code from credit_notes where id = $1",
      [rejected.credit_note_id],
    );
    expect(old).toEqual({ status: "descartada", last_code: "replaced" });
    const body = { org_id: tenant.org.id, credit_note_id: rejected.credit_note_id };
    expect((await t.post("/credit-notes/reissue", body, token)).status).toBe(409);
    expect((await t.post("/credit-notes/refresh", body, token)).status).toBe(409);
    // the lines now stand credited once, by the new note
    const [lines] = await db.superuser<{ standing: number }>(
      `select count(*)::int as standing from credit_note_lines l join credit_notes n on n.id = l.credit_note_id
        where n.invoice_id = $1 and l.released_at is null`,
      [invoice.id],
    );
    expect(lines?.standing).toBe(invoice.lineIds.length);
    expect((await note({ invoice_id: invoice.id })).status).toBe(422);
  });

  it("a note whose earlier submit may still arrive is never replaced: a new note is 422 until it is settled", async () => {
    const invoice = await transmitted();
    // a 503 on submit: the provider may have processed it (unknown outcome), here it did not
    sandbox.setKnobs({ failNext: [{ kind: "error", on: "submit" }] });
    const sent = await (await note({ invoice_id: invoice.id, line_ids: [invoice.lineIds[0]] })).json();
    expect(sent.status).toBe("en_proceso");
    const body = { org_id: tenant.org.id, credit_note_id: sent.credit_note_id };
    // the provider has no record of it yet: `error`, but the submit may still arrive
    const refreshed = await (await t.post("/credit-notes/refresh", body, token)).json();
    expect(refreshed.status).toBe("error");
    const refused = await note({ invoice_id: invoice.id, line_ids: [invoice.lineIds[0]] });
    expect(refused.status).toBe(422);
    expect((await refused.json()).error.message).toMatch(/reissue or refresh it instead/);
    // the way forward is the note itself: a reissue asks, then sends it under the same key
    const reissued = await (await t.post("/credit-notes/reissue", body, token)).json();
    expect(reissued.status).toBe("emitida");
    // the refused first request and the resend: one key, so the provider could never take it twice
    const keys = sandbox.received
      .filter((r) => r.reference === sent.credit_note_id)
      .map((r) => r.idempotency_key);
    expect(keys).toEqual([`doc-${sent.credit_note_id}-submit-1`, `doc-${sent.credit_note_id}-submit-1`]);
    expect((await note({ invoice_id: invoice.id, line_ids: [invoice.lineIds[0]] })).status).toBe(422);
  });

  it("a stale rejection is not taken for the answer to a later attempt: the note stays in doubt, never replaced", async () => {
    const invoice = await transmitted();
    const line = invoice.lineIds[0];
    const rejected = await (
      await note({ invoice_id: invoice.id, line_ids: [line], reason: "RECHAZAR" })
    ).json();
    expect(rejected.status).toBe("error");
    const body = { org_id: tenant.org.id, credit_note_id: rejected.credit_note_id };
    // the resend (a new key) is not processed: a 503, its outcome unknown
    sandbox.setKnobs({ failNext: [{ kind: "error", on: "submit" }] });
    expect((await (await t.post("/credit-notes/reissue", body, token)).json()).status).toBe("en_proceso");
    // the provider still reports the first attempt's rejection: that says nothing of the second
    expect((await (await t.post("/credit-notes/refresh", body, token)).json()).status).toBe("error");
    expect((await note({ invoice_id: invoice.id, line_ids: [line] })).status).toBe(422);
  });

  it("is sent in its invoice's environment, whatever the company's active one is now", async () => {
    const invoice = await transmitted(); // in uat
    await db.superuser("update companies set active_environment = 'prd' where id = $1", [tenant.company.id]);
    try {
      const body = await (await note({ invoice_id: invoice.id })).json();
      const [row] = await db.superuser<{ environment: string }>(
        "select environment from credit_notes where id = $1",
        [body.credit_note_id],
      );
      expect(row?.environment).toBe("uat");
      const [sent] = submitted(body.credit_note_id) as { environment: string }[];
      expect(sent?.environment).toBe("uat");
    } finally {
      await db.superuser("update companies set active_environment = 'uat' where id = $1", [
        tenant.company.id,
      ]);
    }
  });

  it("answers 409, not kept by an Idempotency-Key, while the invoice is still being transmitted", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "en_proceso" });
    const key = { "idempotency-key": `k-${crypto.randomUUID()}` };
    const response = await t.post(
      "/credit-notes",
      { org_id: tenant.org.id, invoice_id: invoice.id, concept_code: "2", reason: "Anulación" },
      token,
      key,
    );
    expect(response.status).toBe(409);
    expect((await response.json()).error.message).toMatch(/being transmitted/);
    const kept = await db.superuser("select 1 from einv_private.idempotency_keys where key = $1", [
      key["idempotency-key"],
    ]);
    expect(kept).toEqual([]);
  });

  it("a company without a software PIN: the note is error, not sent, with the reason", async () => {
    const bare = await createTenant(db);
    await saveCredential(t.deps, bare);
    await db.superuser("update companies set software_pin = null where id = $1", [bare.company.id]);
    const invoice = await createInvoice(db, bare.org, bare.company);
    const bareToken = await t.token(bare.operador);
    await t.post("/transmit", { org_id: bare.org.id, invoice_ids: [invoice.id] }, bareToken);
    const response = await t.post(
      "/credit-notes",
      { org_id: bare.org.id, invoice_id: invoice.id, concept_code: "2", reason: "Anulación" },
      bareToken,
    );
    const body = await response.json();
    expect(body).toMatchObject({
      status: "error",
      code: "check_failed",
      message: expect.stringMatching(/^not sent: .*software PIN/),
    });
    expect(body).not.toHaveProperty("authority_message");
    expect(
      calls.filter((c) => c.path.includes(body.credit_note_id) || c.body?.reference === body.credit_note_id),
    ).toEqual([]);
  });
});

describe("POST /credit-notes/refresh and /credit-notes/representation", () => {
  it("refreshes a note's status from the authority", async () => {
    const invoice = await transmitted();
    const { credit_note_id } = await (await note({ invoice_id: invoice.id })).json();
    const response = await t.post("/credit-notes/refresh", { org_id: tenant.org.id, credit_note_id }, token);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      credit_note_id,
      status: "emitida",
      code: "accepted",
      message: "the authority accepted this credit note",
      authority_message: expect.stringMatching(/ha sido autorizada/),
      authority_code: expect.stringMatching(/^[0-9a-f]{96}$/),
      checked_at: expect.any(String),
    });
  });

  it("keeps the stamped note's PDF under the org's credit-notes folder, cached while current", async () => {
    const invoice = await transmitted();
    const { credit_note_id } = await (await note({ invoice_id: invoice.id })).json();
    const represent = async (extra: Record<string, unknown> = {}) =>
      (
        await t.post(
          "/credit-notes/representation",
          { org_id: tenant.org.id, credit_note_id, ...extra },
          token,
        )
      ).json();
    const first = await represent();
    const [row] = await db.superuser<{ number: string }>("select number from credit_notes where id = $1", [
      credit_note_id,
    ]);
    expect(first).toMatchObject({ stamped: true, cached: false });
    expect(first.path).toMatch(
      new RegExp(
        `^${tenant.org.id}/credit-notes/${credit_note_id}/nota-credito-${row?.number}-[0-9a-f]{12}\\.pdf$`,
      ),
    );
    expect(await represent()).toEqual({ ...first, cached: true });
    expect((await represent({ regenerate: true })).cached).toBe(false);
  });

  it("answers 404 for another organization's note", async () => {
    const response = await t.post(
      "/credit-notes/refresh",
      { org_id: tenant.org.id, credit_note_id: crypto.randomUUID() },
      token,
    );
    expect(response.status).toBe(404);
  });
});
