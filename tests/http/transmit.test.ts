/**
 * POST /transmit through the real app and database, with the sandbox provider in-process at the
 * network edge: outcomes, per-invoice independence, pre-send checks, reissue after an unknown
 * outcome, and exactly-once delivery under concurrent calls.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TestApp } from "../../devkit/app.ts";
import { SANDBOX_KEY, saveCredential } from "../../devkit/credentials.ts";
import { asRole, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import { createSandboxProvider, type SandboxProvider } from "../../sandbox/provider.ts";
import { openRouteSuite } from "../support/route-suite.ts";

let db: TestDatabase;
let t: TestApp;
let sandbox: SandboxProvider;
let tenant: Tenant;
let token: string;

beforeAll(async () => {
  sandbox = createSandboxProvider();
  ({ db, t, tenant, token } = await openRouteSuite({
    env: { EINV_PROVIDER_TIMEOUT_MS: "300", EINV_TRANSMIT_CONCURRENCY: "8" },
    providerFetch: sandbox.fetch,
  }));
});
afterAll(() => db?.close());
beforeEach(() => sandbox.reset());

type Entry = {
  invoice_id: string;
  status: string;
  code: string;
  message: string;
  authority_message?: string;
  authority_rules?: { rule: string; kind: string; message: string }[];
};

async function transmit(ids: string[], options: { reissue?: boolean; as?: string } = {}): Promise<Entry[]> {
  const response = await t.post(
    "/transmit",
    { org_id: tenant.org.id, invoice_ids: ids, ...(options.reissue ? { reissue: true } : {}) },
    options.as ?? token,
  );
  expect(response.status).toBe(200);
  const body = (await response.json()) as { results: Entry[] };
  expect(body.results.map((r) => r.invoice_id)).toEqual(ids);
  return body.results;
}

const invoices = (n: number, options?: Parameters<typeof createInvoice>[3]) =>
  Promise.all(Array.from({ length: n }, () => createInvoice(db, tenant.org, tenant.company, options)));

const row = async (invoice: Invoice) =>
  (
    await db.superuser<Record<string, unknown>>(
      "select status, authority_code, qr_text, provider_reference, environment, last_message, attempt_count from invoices where id = $1",
      [invoice.id],
    )
  )[0];

const sentTimes = (invoice: Invoice) => sandbox.submissions.filter((s) => s.reference === invoice.id).length;

describe("POST /transmit", () => {
  it("transmits a batch and records the authority's code, QR text and environment", async () => {
    const batch = await invoices(3);
    const results = await transmit(batch.map((i) => i.id));
    expect(results.map((r) => r.status)).toEqual(["transmitida", "transmitida", "transmitida"]);
    expect(results[0]).toEqual({
      invoice_id: (batch[0] as Invoice).id,
      status: "transmitida",
      code: "accepted",
      message: "the authority accepted this invoice",
      authority_message: expect.stringMatching(/^La factura electrónica \w+ ha sido autorizada\.$/),
    });
    const stored = await row(batch[0] as Invoice);
    expect(stored).toMatchObject({ status: "transmitida", environment: "uat", attempt_count: 1 });
    expect(stored?.authority_code).toMatch(/^[0-9a-f]{96}$/);
    expect(String(stored?.qr_text)).toContain(String(stored?.authority_code));
    expect(sandbox.documents.get((batch[0] as Invoice).id)?.authority_code).toBe(stored?.authority_code);
    const events = await db.superuser("select kind from events where document_id = $1 order by id", [
      (batch[0] as Invoice).id,
    ]);
    expect(events.map((e) => e.kind)).toEqual(["transmit_claimed", "transmit_attempt"]);
  });

  it("reports a rejected invoice as error with the authority's message while the others go through", async () => {
    const [good1, bad, good2] = await invoices(3);
    await db.superuser(
      "update invoices set buyer_id_number = '999999999', buyer_check_digit = einv_private.nit_check_digit('999999999') where id = $1",
      [bad?.id as string],
    );
    const results = await transmit([good1, bad, good2].map((i) => (i as Invoice).id));
    expect(results.map((r) => r.status)).toEqual(["transmitida", "error", "transmitida"]);
    expect(results.map((r) => r.code)).toEqual(["accepted", "rejected", "accepted"]);
    expect(results[1]?.message).toMatch(/FAJ44b/);
    expect(results[1]?.authority_rules).toEqual([
      { rule: "FAJ44b", kind: "rechazo", message: expect.stringMatching(/no está registrado en el RUT/) },
    ]);
    expect(results[1]?.authority_message).toMatch(/^Documento rechazado\. FAJ44b: /);
    expect(await row(bad as Invoice)).toMatchObject({ status: "error", authority_code: null });
  });

  it("passes the authority's notifications through: alone they never reject, with a rejection they are told apart", async () => {
    const [noticed, both] = await invoices(2);
    await db.superuser("update invoices set buyer_name = 'Cliente NOTIFICAR SAS' where id = $1", [
      (noticed as Invoice).id,
    ]);
    await db.superuser("update invoices set buyer_name = 'NOTIFICAR y RECHAZAR SAS' where id = $1", [
      (both as Invoice).id,
    ]);
    const results = await transmit([(noticed as Invoice).id, (both as Invoice).id]);
    const notification = { rule: "RUT01", kind: "notificacion", message: expect.stringMatching(/RUT/) };
    expect(results[0]).toMatchObject({
      status: "transmitida",
      code: "accepted",
      message: "the authority accepted this invoice, with notifications (RUT01; see authority_rules)",
      authority_rules: [notification],
    });
    expect(results[1]).toMatchObject({
      status: "error",
      code: "rejected",
      message: expect.stringMatching(/^the authority rejected this invoice \(FAJ43b; see authority_rules\)/),
      authority_rules: [{ rule: "FAJ43b", kind: "rechazo", message: expect.any(String) }, notification],
    });
    const [kept] = await db.superuser<{ last_code: string; authority_rules: unknown }>(
      "select last_code, authority_rules from invoices where id = $1",
      [(noticed as Invoice).id],
    );
    expect(kept).toEqual({ last_code: "accepted", authority_rules: [notification] });
  });

  it("refuses a buyer identified by NIT whose check digit is wrong or missing, naming the digit, without calling the provider", async () => {
    const [wrongDigit, noDigit] = await invoices(2);
    // 860000001's DIAN check digit is 8
    await db.superuser(
      "update invoices set buyer_id_number = '860000001', buyer_check_digit = '3' where id = $1",
      [(wrongDigit as Invoice).id],
    );
    await db.superuser(
      "update invoices set buyer_id_number = '860000001', buyer_check_digit = null where id = $1",
      [(noDigit as Invoice).id],
    );
    const results = await transmit([(wrongDigit as Invoice).id, (noDigit as Invoice).id]);
    expect(results.map((r) => r.code)).toEqual(["check_failed", "check_failed"]);
    const wrong = "buyer_check_digit 3 is wrong; the check digit of NIT 860000001 is 8";
    const missing = "buyer_check_digit is missing; the check digit of NIT 860000001 is 8";
    const because = "the authority would reject it (FAK24; see authority_rules)";
    expect(results.map((r) => r.message)).toEqual([
      `not sent: ${wrong}; ${because}`,
      `not sent: ${missing}; ${because}`,
    ]);
    expect(results.map((r) => r.authority_rules)).toEqual([
      [{ rule: "FAK24", kind: "rechazo", message: wrong }],
      [{ rule: "FAK24", kind: "rechazo", message: missing }],
    ]);
    expect(sandbox.received).toHaveLength(0);
    expect(await row(wrongDigit as Invoice)).toMatchObject({ status: "pendiente" });
  });

  it("refuses what DIAN would reject and the database lets through, with DIAN's rule ids: a municipality off DIVIPOLA (FAK09)", async () => {
    const [invoice] = await invoices(1);
    // five digits, as the database asks, in Bogotá's department: no such municipality in DIAN's list
    await db.superuser("update invoices set buyer_city_code = '11999' where id = $1", [
      (invoice as Invoice).id,
    ]);
    const [result] = await transmit([(invoice as Invoice).id]);
    const message = "buyer_city_code 11999 is not a DIVIPOLA municipality";
    expect(result).toEqual({
      invoice_id: (invoice as Invoice).id,
      status: "error",
      code: "check_failed",
      message: `not sent: ${message}; the authority would reject it (FAK09; see authority_rules)`,
      authority_rules: [{ rule: "FAK09", kind: "rechazo", message }],
    });
    expect(sandbox.received).toHaveLength(0);
    const [kept] = await db.superuser<Record<string, unknown>>(
      "select status, last_code, authority_rules from invoices where id = $1",
      [(invoice as Invoice).id],
    );
    expect(kept).toEqual({
      status: "pendiente",
      last_code: "check_failed",
      authority_rules: [{ rule: "FAK09", kind: "rechazo", message }],
    });
  });

  it("answers another organization's invoice as an error entry, 'not found', and never sends it", async () => {
    const other = await createTenant(db);
    const [foreign] = await Promise.all([createInvoice(db, other.org, other.company)]);
    const [mine] = await invoices(1);
    const results = await transmit([(foreign as Invoice).id, (mine as Invoice).id]);
    expect(results[0]).toEqual({
      invoice_id: (foreign as Invoice).id,
      status: "error",
      code: "not_found",
      message: "invoice not found",
    });
    expect(results[1]?.status).toBe("transmitida");
    expect(sentTimes(foreign as Invoice)).toBe(0);
    expect((await row(foreign as Invoice))?.status).toBe("pendiente");
  });

  it("refuses an invoice whose amounts the database cannot vouch for, without calling the provider", async () => {
    const [wrong] = await invoices(1);
    // totals can no longer differ from the lines: whoever writes one, the database computes it over
    const total = async () =>
      (await db.superuser("select total::text from invoices where id = $1", [(wrong as Invoice).id]))[0];
    await db.superuser("update invoices set total = total + 1 where id = $1", [(wrong as Invoice).id]);
    expect(await total()).toEqual({ total: "129000.00" });
    // a document discount larger than what it discounts: its problem, reported by the database
    const discount = [{ charge: false, reason_code: "00", amount: 200_000 }];
    await asRole(
      db,
      "authenticated",
      tenant.operador.claims,
      "update invoices set allowance_charges = $1::text::jsonb where id = $2",
      [JSON.stringify(discount), (wrong as Invoice).id],
    );
    const [result] = await transmit([(wrong as Invoice).id]);
    expect(result?.status).toBe("error");
    expect(result?.message).toMatch(
      /^not sent: allowance_charges: the invoice's discounts \(200000\.00\) exceed its amount with taxes and charges \(129000\.00\)/,
    );
    expect(sandbox.received).toHaveLength(0);
    // never sent: it stays an editable draft, with the reason
    expect(await row(wrong as Invoice)).toMatchObject({ status: "pendiente", last_message: result?.message });
    const fixed = await asRole(
      db,
      "authenticated",
      tenant.operador.claims,
      "update invoices set allowance_charges = '[]' where id = $1 returning id",
      [(wrong as Invoice).id],
    );
    expect(fixed).toHaveLength(1);
    expect((await transmit([(wrong as Invoice).id]))[0]?.status).toBe("transmitida");
  });

  it("never re-sends a transmitted invoice, and asks for reissue on one in error", async () => {
    const [sent, failed] = await invoices(2);
    await transmit([(sent as Invoice).id]);
    await db.superuser("update invoices set buyer_name = 'RECHAZAR SA' where id = $1", [
      (failed as Invoice).id,
    ]);
    await transmit([(failed as Invoice).id]);
    sandbox.reset();
    const results = await transmit([(sent as Invoice).id, (failed as Invoice).id]);
    expect(results[0]).toEqual({
      invoice_id: (sent as Invoice).id,
      status: "transmitida",
      code: "already_transmitted",
      message: expect.stringMatching(/already transmitted/),
    });
    expect(results[1]).toEqual({
      invoice_id: (failed as Invoice).id,
      status: "error",
      code: "reissue_required",
      message: "the last transmission ended in error; pass reissue: true to send it again",
    });
    expect(sandbox.received).toHaveLength(0);
  });

  it("leaves a timed-out invoice en_proceso, and a reissue finds it at the provider instead of re-sending", async () => {
    const [slow] = await invoices(1);
    const id = (slow as Invoice).id;
    sandbox.setKnobs({ hangMs: 2_000, failNext: [{ kind: "hang", reference: id }] });
    const [first] = await transmit([id]);
    expect(first).toMatchObject({
      status: "en_proceso",
      code: "outcome_unknown",
      message: expect.stringMatching(/unknown/),
    });
    expect(first).not.toHaveProperty("authority_message");
    expect(sentTimes(slow as Invoice)).toBe(1);

    const [again] = await transmit([id]);
    expect(again).toMatchObject({ status: "en_proceso", code: "in_progress" });
    expect(sandbox.received).toHaveLength(1);

    const [reissued] = await transmit([id], { reissue: true });
    expect(reissued?.status).toBe("transmitida");
    expect(sentTimes(slow as Invoice)).toBe(1);
    expect(sandbox.received).toHaveLength(1);
  });

  it("resends under the same idempotency key while the earlier submit may still arrive", async () => {
    const [lost] = await invoices(1);
    const id = (lost as Invoice).id;
    sandbox.setKnobs({
      failNext: [
        { kind: "error", reference: id },
        { kind: "error", on: "query", reference: id },
      ],
    });
    expect((await transmit([id]))[0]?.status).toBe("en_proceso"); // 503 on submit: unknown
    expect((await transmit([id], { reissue: true }))[0]?.status).toBe("en_proceso"); // 503 on the query
    expect((await transmit([id], { reissue: true }))[0]?.status).toBe("transmitida");
    const keys = sandbox.received.filter((r) => r.reference === id).map((r) => r.idempotency_key);
    expect(keys).toEqual([`doc-${id}-submit-1`, `doc-${id}-submit-1`]);
  });

  it("sends on reissue when the provider never received the earlier attempt", async () => {
    const [lost] = await invoices(1);
    const id = (lost as Invoice).id;
    sandbox.setKnobs({ failNext: [{ kind: "error", reference: id }] });
    const [first] = await transmit([id]);
    expect(first?.status).toBe("en_proceso");
    expect(sentTimes(lost as Invoice)).toBe(0);
    const [reissued] = await transmit([id], { reissue: true });
    expect(reissued?.status).toBe("transmitida");
    expect(sentTimes(lost as Invoice)).toBe(1);
  });

  it("retries after a 429 from a busy provider", async () => {
    sandbox.setKnobs({ concurrencyLimit: 2, latencyMs: 50 });
    const batch = await invoices(5);
    const results = await transmit(batch.map((i) => i.id));
    expect(results.map((r) => r.status)).toEqual(Array(5).fill("transmitida"));
    expect(sandbox.received.some((r) => r.result === "rate_limited")).toBe(true);
  });

  it("sends each of 50 invoices exactly once across ten concurrent calls", async () => {
    sandbox.setKnobs({ latencyMs: 20 });
    const batch = await invoices(50);
    const ids = batch.map((i) => i.id);
    const calls = await Promise.all(
      Array.from({ length: 10 }, (_, n) => transmit(n % 2 ? [...ids].reverse() : ids)),
    );
    expect(sandbox.submissions).toHaveLength(50);
    expect(new Set(sandbox.submissions.map((s) => s.reference)).size).toBe(50);
    expect(sandbox.received).toHaveLength(50);
    const final = await db.superuser<{ status: string; attempt_count: number }>(
      "select status, attempt_count from invoices where id = any($1::uuid[])",
      [`{${ids.join(",")}}`],
    );
    expect(final.every((r) => r.status === "transmitida" && r.attempt_count === 1)).toBe(true);
    for (const results of calls) {
      expect(results.every((r) => ["transmitida", "en_proceso"].includes(r.status))).toBe(true);
    }
  });

  it("reports a company without a credential as an error entry naming the fix", async () => {
    const bare = await createTenant(db);
    const invoice = await createInvoice(db, bare.org, bare.company);
    const response = await t.post(
      "/transmit",
      { org_id: bare.org.id, invoice_ids: [invoice.id] },
      await t.token(bare.admin),
    );
    const body = (await response.json()) as { results: Entry[] };
    expect(body.results[0]).toMatchObject({ status: "error", code: "credential_required" });
    expect(body.results[0]?.message).toMatch(/no adapter-tax credential for uat.*\/integrations\/save/);
  });

  it.each([
    ["no ids", []],
    ["51 ids", Array.from({ length: 51 }, () => crypto.randomUUID())],
    ["duplicate ids", ["7d6f9a5e-8f7a-4a7e-9a4e-1a2b3c4d5e6f", "7D6F9A5E-8F7A-4A7E-9A4E-1A2B3C4D5E6F"]],
  ])("answers 400 for %s", async (_name, ids) => {
    const response = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: ids }, token);
    expect(response.status).toBe(400);
    expect((await response.json()).error.details[0].field).toBe("invoice_ids");
  });
});

describe("stored provider keys", () => {
  it("are stored sealed, and a ciphertext moved to another company's row cannot be used", async () => {
    const [stored] = await db.superuser<{ api_key_ciphertext: string }>(
      "select api_key_ciphertext from einv_private.credentials where company_id = $1 and service = 'adapter-tax'",
      [tenant.company.id],
    );
    expect(stored?.api_key_ciphertext).toMatch(/^v1:/);
    expect(stored?.api_key_ciphertext).not.toContain(SANDBOX_KEY);

    const thief = await createTenant(db);
    await saveCredential(t.deps, thief, { apiKey: "sk_sandbox_thief_own_key" });
    await db.superuser(
      "update einv_private.credentials set api_key_ciphertext = $1 where company_id = $2 and service = 'adapter-tax'",
      [stored?.api_key_ciphertext ?? "", thief.company.id],
    );
    const invoice = await createInvoice(db, thief.org, thief.company);
    const response = await t.post(
      "/transmit",
      { org_id: thief.org.id, invoice_ids: [invoice.id] },
      await t.token(thief.admin),
    );
    const body = (await response.json()) as { results: Entry[] };
    expect(body.results[0]).toMatchObject({
      status: "error",
      code: "credential_required",
      message: expect.stringMatching(/cannot be decrypted/),
    });
    expect(sandbox.received).toHaveLength(0);
    expect(JSON.stringify(body) + t.logs.join("\n")).not.toContain(SANDBOX_KEY);
  });
});

describe("a transmission that dies midway", () => {
  it("leaves its intent behind: after the lease, a reissue asks first and reuses the key", async () => {
    const [orphan] = await invoices(1);
    const id = (orphan as Invoice).id;
    // a call claimed the invoice and died before recording anything (maybe after sending)
    await db.superuser(
      `select public.einv_document_claim(p_org_id => $1, p_kind => 'invoice', p_document_ids => $2::text::jsonb,
         p_reissue => false, p_actor_id => null, p_lease_seconds => 60, p_issued_at => now())`,
      [tenant.org.id, JSON.stringify([id])],
    );
    expect((await transmit([id], { reissue: true }))[0]?.status).toBe("en_proceso"); // still leased
    await db.superuser("update invoices set lease_until = now() - interval '1 second' where id = $1", [id]);
    expect((await transmit([id], { reissue: true }))[0]?.status).toBe("transmitida");
    expect(sandbox.received.map((r) => r.idempotency_key)).toEqual([`doc-${id}-submit-1`]);
  });

  it("keeps an invoice that may be at the provider en_proceso when the provider cannot be asked", async () => {
    const bare = await createTenant(db);
    const invoice = await createInvoice(db, bare.org, bare.company, { status: "en_proceso" });
    const response = await t.post(
      "/transmit",
      { org_id: bare.org.id, invoice_ids: [invoice.id], reissue: true },
      await t.token(bare.admin),
    );
    const [entry] = (await response.json()).results;
    expect(entry).toMatchObject({
      status: "en_proceso",
      code: "outcome_unknown",
      message: expect.stringMatching(/could not ask the provider/),
    });
  });
});
