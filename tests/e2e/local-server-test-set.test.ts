/**
 * Habilitación's test set in one call (/integrations/test-set, DESIGN §14) as `npm start` runs it:
 * the real `einvoicing` function under Deno, real PostgreSQL, the seeded DIAN-mode company and the
 * DIAN stand-in, which keeps each test set's tally as DIAN's validator does. Each case gets a test
 * set of its own (the stand-in's control endpoint registers it, as DIAN's portal gives one; the
 * company's uat credential is pointed at it):
 * - the demo company's own set with the defaults (DIAN's observed set) to `aceptado` in one call;
 * - from nothing to `aceptado` in one call, every kind sent, the stand-in agreeing; called again it
 *   sends nothing;
 * - DIAN's own word for a closed set (GetStatusZip status 2, "… se encuentra Aceptado.") read as
 *   `aceptado`, even when the call asked for more than DIAN's set needs (the closed set's answer not
 *   counted as a rejection);
 * - documents DIAN rejects (a CUFE made with the wrong technical key: FAD06) until the set is
 *   `rechazado`; a later call hears DIAN's own word for the closed set (status 2, "… Rechazado.");
 * - notes required and `invoices.accept` 0: one invoice issued for the notes; `invoices.send` 0 refused;
 * - DIAN slow (the stand-in's latency knob): a call stays within its time budget, and calls that
 *   overlap (a lease that ended under a slow call) never issue more than `send`;
 * - one call at a time per company: another call meanwhile only reports;
 * - the server killed in the middle of a call, then started again: each document validated once;
 * - a call that left drafts unsent and batches in DIAN's hands (a crash in the middle): the next
 *   calls send each document exactly once and ask about the rest, never re-sending.
 */
import { randomUUID } from "node:crypto";
import { readdir } from "node:fs/promises";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { LocalRun } from "../../scripts/local/local-json.ts";
import {
  createFreshDatabase,
  type FreshDatabase,
  type LocalServer,
  removeDataDir,
  startLocalServer,
} from "../support/local-server.ts";

const target = inject("database");
let fresh: FreshDatabase | undefined;
let server: LocalServer | undefined;
let local: LocalRun;
let orgId: string;

beforeAll(async () => {
  if (target.kind !== "postgres") return;
  fresh = await createFreshDatabase(target.adminUrl);
  server = await startLocalServer(fresh.url);
  local = await server.local();
  const [company] = await sql(
    (db) => db`select org_id from public.companies where id = ${local.dian.company_id}`,
  );
  orgId = company?.org_id;
}, 180_000);
afterAll(async () => {
  await server?.stop();
  if (server) await removeDataDir(server.dataDir);
  await fresh?.drop();
});

async function sql<T>(run: (db: postgres.Sql) => Promise<T>): Promise<T> {
  const db = postgres(fresh?.url ?? "", { max: 1, onnotice: () => {} });
  try {
    return await run(db);
  } finally {
    await db.end({ timeout: 5 });
  }
}

async function testSet(body: Record<string, unknown>, role = "admin", headers: Record<string, string> = {}) {
  const user = local.users.find((u) => u.role === role && u.org_id === orgId);
  if (!user) throw new Error(`the seed has no ${role} in the DIAN company's organization`);
  const response = await fetch(`${local.base_url}/v1/einvoicing/integrations/test-set`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${user.access_token}`,
      apikey: local.apikey,
      "content-type": "application/json",
      ...headers,
    },
    body: JSON.stringify({ org_id: orgId, company_id: local.dian.company_id, ...body }),
  });
  return { status: response.status, body: await response.json() };
}

const control = async (name: string, body?: unknown, method = "POST") => {
  const response = await fetch(`${local.dian.control_url}/${name}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  expect(response.status, name).toBe(200);
  return response.json();
};

/** A new test set at the stand-in (its numbers as given), and the company's uat credential pointed at it. */
async function newTestSet(required?: Record<string, number>): Promise<string> {
  const id = randomUUID();
  await control("test-set", { id, softwareId: local.dian.software_id, ...(required ? { required } : {}) });
  await sql(
    (db) => db`update einv_private.credentials
                  set settings = settings || jsonb_build_object('test_set_id', ${id}::text)
                where company_id = ${local.dian.company_id} and service = 'adapter-tax' and environment = 'uat'`,
  );
  return id;
}

const tally = (id: string) =>
  fetch(`${local.dian.control_url}/test-set?id=${id}`).then(
    (r) => r.json() as Promise<Record<string, unknown>>,
  );

/** How many SendTestSetAsync requests the stand-in has received. */
const sends = async () =>
  (await readdir(local.dian.requests_dir).catch(() => [] as string[])).filter((n) =>
    n.endsWith("-SendTestSetAsync.xml"),
  ).length;

/** The set's documents as rows: kind, number, status, rules. */
const rowsOf = (id: string) =>
  sql(
    (db) => db`select 'invoice' as kind, i.number, i.status, i.authority_rules, i.attempt_count
                 from public.invoices i where i.test_set_id = ${id}
               union all
               select 'credit_note', n.number, n.status, n.authority_rules, n.attempt_count
                 from public.credit_notes n join public.invoices i on i.id = n.invoice_id where i.test_set_id = ${id}
               union all
               select 'debit_note', n.number, n.status, n.authority_rules, n.attempt_count
                 from public.debit_notes n join public.invoices i on i.id = n.invoice_id where i.test_set_id = ${id}
               order by 1, 2`,
  );

const NONE = { send: 0, accept: 0 };

describe.skipIf(target.kind !== "postgres")("/integrations/test-set under npm start", () => {
  it("refuses what it cannot run: not an admin, counts out of bounds, a company not in DIAN mode, production", async () => {
    expect(await testSet({}, "operador")).toMatchObject({
      status: 403,
      body: { error: { code: "forbidden" } },
    });
    expect(await testSet({ invoices: { send: 51, accept: 1 } })).toMatchObject({
      status: 400,
      body: { error: { code: "validation_failed" } },
    });
    expect(await testSet({ invoices: { send: 2, accept: 3 } })).toMatchObject({
      status: 422,
      body: {
        error: { code: "business_rule", message: expect.stringMatching(/invoices.accept \(3\) exceeds/) },
      },
    });
    expect(
      await testSet({ invoices: { send: 1, accept: 0 }, credit_notes: NONE, debit_notes: NONE }),
    ).toMatchObject({
      status: 422,
      body: { error: { message: expect.stringMatching(/at least one document/) } },
    });
    const other = await sql(
      (db) =>
        db`select id from public.companies where org_id = ${orgId} and id <> ${local.dian.company_id} limit 1`,
    );
    expect(await testSet({ company_id: other[0]?.id })).toMatchObject({
      status: 422,
      body: { error: { code: "business_rule", message: expect.stringMatching(/not in DIAN mode/) } },
    });
    await sql(
      (db) => db`update public.companies set active_environment = 'prd' where id = ${local.dian.company_id}`,
    );
    try {
      expect(await testSet({})).toMatchObject({
        status: 422,
        body: { error: { code: "business_rule", message: expect.stringMatching(/prd \(production\)/) } },
      });
    } finally {
      await sql(
        (db) =>
          db`update public.companies set active_environment = 'uat' where id = ${local.dian.company_id}`,
      );
    }
    expect(await sends()).toBe(0);
  });

  it("takes the demo company's test set to aceptado with one call of the defaults (DIAN's observed set: 1 invoice accepted)", async () => {
    const before = await sends();
    const { status, body } = await testSet({});
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: "aceptado",
      confirmed_by_dian: false,
      test_set_id: local.dian.test_set_id,
      invoices: { sent: 1, accepted: 1, rejected: 0, required: 1 },
      credit_notes: { sent: 0, accepted: 0, rejected: 0, required: 0 },
      debit_notes: { sent: 0, accepted: 0, rejected: 0, required: 0 },
      message: expect.stringMatching(/reached every minimum/),
    });
    expect(await sends()).toBe(before + 1);
  });

  it("takes a fresh test set to aceptado in one call, every kind sent; the stand-in agrees; again, it sends nothing", async () => {
    const id = await newTestSet({
      documents: 8,
      invoices: 4,
      creditNotes: 2,
      debitNotes: 2,
      acceptedDocuments: 4,
      acceptedInvoices: 2,
      acceptedCreditNotes: 1,
      acceptedDebitNotes: 1,
    });
    const before = await sends();
    const first = await testSet({
      invoices: { send: 4, accept: 2 },
      credit_notes: { send: 2, accept: 1 },
      debit_notes: { send: 2, accept: 1 },
    });
    expect(first).toMatchObject({
      status: 200,
      body: {
        status: "aceptado",
        test_set_id: id,
        invoices: { sent: 2, accepted: 2, rejected: 0, required: 2 },
        credit_notes: { sent: 1, accepted: 1, rejected: 0, required: 1 },
        debit_notes: { sent: 1, accepted: 1, rejected: 0, required: 1 },
      },
    });
    expect(await sends()).toBe(before + 4);
    expect(await tally(id)).toMatchObject({
      status: "aceptado",
      invoices: { sent: 2, accepted: 2, rejected: 0 },
      creditNotes: { sent: 1, accepted: 1 },
      debitNotes: { sent: 1, accepted: 1 },
    });
    // the set's documents: real rows, numbered apart from the company's own (SETP99000050x)
    const rows = await rowsOf(id);
    expect(rows.map((r) => [r.kind, r.number, r.status])).toEqual([
      ["credit_note", expect.stringMatching(/^[A-Z]*99400000\d$/), "emitida"],
      ["debit_note", expect.stringMatching(/^[A-Z]*99400000\d$/), "emitida"],
      ["invoice", expect.stringMatching(/^SETP99400000\d$/), "transmitida"],
      ["invoice", expect.stringMatching(/^SETP99400000\d$/), "transmitida"],
    ]);

    const again = await testSet({
      invoices: { send: 4, accept: 2 },
      credit_notes: { send: 2, accept: 1 },
      debit_notes: { send: 2, accept: 1 },
    });
    expect(again.body).toMatchObject({ status: "aceptado", invoices: { sent: 2, accepted: 2 } });
    expect(await sends()).toBe(before + 4);
  });

  it("reads DIAN's word for a closed set (status 2, '… se encuentra Aceptado.'): the set is aceptado", async () => {
    const id = await newTestSet({
      documents: 3,
      invoices: 3,
      creditNotes: 0,
      debitNotes: 0,
      acceptedDocuments: 1,
      acceptedInvoices: 1,
      acceptedCreditNotes: 0,
      acceptedDebitNotes: 0,
    });
    const one = await testSet({ invoices: { send: 3, accept: 1 }, credit_notes: NONE, debit_notes: NONE });
    expect(one.body).toMatchObject({ status: "aceptado", invoices: { sent: 1, accepted: 1 } });
    expect(await tally(id)).toMatchObject({ status: "aceptado" });
    // asked for more than DIAN's set needs: the next invoice gets the closed set's status, not a validation
    const more = await testSet({ invoices: { send: 3, accept: 2 }, credit_notes: NONE, debit_notes: NONE });
    expect(more.body).toMatchObject({
      status: "aceptado",
      confirmed_by_dian: true,
      // the closed set's status 2 is no validation by the set: not counted as rejected
      invoices: { sent: 2, accepted: 1, rejected: 0, required: 2 },
      message: expect.stringMatching(/DIAN says the test set is accepted/),
    });
    const rows = await rowsOf(id);
    expect(rows.map((r) => r.status).sort()).toEqual(["error", "transmitida"]);
  });

  it("answers rechazado with DIAN's rule once rejections exceed what the set absorbs; later, DIAN's own word", async () => {
    const id = await newTestSet({
      documents: 2,
      invoices: 2,
      creditNotes: 0,
      debitNotes: 0,
      acceptedDocuments: 1,
      acceptedInvoices: 1,
      acceptedCreditNotes: 0,
      acceptedDebitNotes: 0,
    });
    await sql(
      (db) =>
        db`update public.companies set technical_key = ${"0".repeat(40)} where id = ${local.dian.company_id}`,
    );
    try {
      const { body } = await testSet({
        invoices: { send: 2, accept: 1 },
        credit_notes: NONE,
        debit_notes: NONE,
      });
      expect(body).toMatchObject({
        status: "rechazado",
        invoices: { sent: 2, accepted: 0, rejected: 2, required: 1 },
        message: expect.stringMatching(/2 documents of the set were rejected, more than the 1 it can absorb/),
      });
      for (const row of await rowsOf(id)) {
        expect(row.status).toBe("error");
        expect(row.authority_rules).toContainEqual(
          expect.objectContaining({ rule: "FAD06", kind: "rechazo" }),
        );
      }
      expect(await tally(id)).toMatchObject({ status: "rechazado", invoices: { sent: 2, rejected: 2 } });
    } finally {
      await sql(
        (db) =>
          db`update public.companies set technical_key = ${local.dian.technical_key} where id = ${local.dian.company_id}`,
      );
    }
    // with room for more, one more invoice goes: DIAN answers the closed set's status, not a validation
    const more = await testSet({ invoices: { send: 4, accept: 1 }, credit_notes: NONE, debit_notes: NONE });
    expect(more.body).toMatchObject({
      status: "rechazado",
      invoices: { sent: 3, accepted: 0, rejected: 2 },
      message: expect.stringMatching(/DIAN says the test set is rejected/),
    });
  });

  it("notes required and invoices.accept 0: one invoice is issued for the notes to be of; invoices.send 0 is refused", async () => {
    await newTestSet({
      documents: 2,
      invoices: 1,
      creditNotes: 1,
      debitNotes: 0,
      acceptedDocuments: 2,
      acceptedInvoices: 0,
      acceptedCreditNotes: 1,
      acceptedDebitNotes: 0,
    });
    const before = await sends();
    expect(
      await testSet({ invoices: NONE, credit_notes: { send: 1, accept: 1 }, debit_notes: NONE }),
    ).toMatchObject({
      status: 422,
      body: { error: { code: "business_rule", message: expect.stringMatching(/invoices.send is 0/) } },
    });
    expect(await sends()).toBe(before);
    const { body } = await testSet({
      invoices: { send: 1, accept: 0 },
      credit_notes: { send: 1, accept: 1 },
      debit_notes: NONE,
    });
    expect(body).toMatchObject({
      status: "aceptado",
      invoices: { sent: 1, accepted: 1, rejected: 0, required: 0 },
      credit_notes: { sent: 1, accepted: 1, rejected: 0, required: 1 },
    });
    expect(await sends()).toBe(before + 2);
  });

  it("with DIAN slow, a call stays within its budget; calls that overlap never issue more than `send`", async () => {
    const id = await newTestSet({
      documents: 5,
      invoices: 1,
      creditNotes: 4,
      debitNotes: 0,
      acceptedDocuments: 5,
      acceptedInvoices: 1,
      acceptedCreditNotes: 4,
      acceptedDebitNotes: 0,
    });
    // the set's invoice first, DIAN quick
    const invoiceOnly = { invoices: { send: 1, accept: 1 }, credit_notes: NONE, debit_notes: NONE };
    expect((await testSet(invoiceOnly)).body).toMatchObject({ invoices: { accepted: 1 } });
    const body = {
      invoices: { send: 1, accept: 1 },
      credit_notes: { send: 4, accept: 4 },
      debit_notes: NONE,
    };
    const creditNotes = () =>
      sql(
        (db) => db`select count(*)::int as n from public.credit_notes n
                     join public.invoices i on i.id = n.invoice_id where i.test_set_id = ${id}`,
      ).then((rows) => rows[0]?.n as number);
    // DIAN slow: each of its answers takes 5 s; the call's budget is the reconcile budget (45 s)
    await control("knobs", { latencyMs: 5_000 });
    try {
      const started = Date.now();
      const slow = await testSet(body);
      expect(Date.now() - started).toBeLessThan(45_000);
      expect(slow.body).toMatchObject({ status: "en_proceso", credit_notes: { required: 4 } });
      expect(slow.body.credit_notes.sent).toBeGreaterThanOrEqual(1);
      expect(slow.body.credit_notes.sent).toBeLessThan(4);

      // a call whose lease ended under it (as a slow DIAN once made it) and a second call alongside
      const before = await sends();
      const first = testSet(body);
      const until = Date.now() + 30_000;
      while ((await sends()) === before && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      await sql(
        (db) => db`update einv_private.test_set_runs set lease_until = now() - interval '1 second'
                    where company_id = ${local.dian.company_id}`,
      );
      const [a, b] = await Promise.all([first, testSet(body)]);
      for (const call of [a, b]) expect(call.status).toBe(200);
      expect(await creditNotes()).toBeLessThanOrEqual(4);
    } finally {
      await control("knobs", { latencyMs: 0 });
    }
    // DIAN quick again: the set ends with exactly `send` credit notes, the stand-in agreeing
    let done = await testSet(body);
    for (let n = 0; n < 3 && done.body.status === "en_proceso"; n++) done = await testSet(body);
    expect(done.body).toMatchObject({ status: "aceptado", credit_notes: { sent: 4, accepted: 4 } });
    expect(await creditNotes()).toBe(4);
    expect(await tally(id)).toMatchObject({ creditNotes: { sent: 4, accepted: 4, rejected: 0 } });
  }, 180_000);

  it("while another call runs the company's set, a call only reports; it sends nothing", async () => {
    await newTestSet();
    const before = await sends();
    await sql(
      (db) => db`insert into einv_private.test_set_runs (company_id, lease_until)
                 values (${local.dian.company_id}, now() + interval '1 minute')
                 on conflict (company_id) do update set lease_until = excluded.lease_until, token = null`,
    );
    try {
      const { body } = await testSet({});
      expect(body).toMatchObject({
        status: "en_proceso",
        invoices: { sent: 0, accepted: 0, required: 1 },
        message: expect.stringMatching(/Another call is running/),
      });
      expect(await sends()).toBe(before);
    } finally {
      await sql(
        (db) => db`delete from einv_private.test_set_runs where company_id = ${local.dian.company_id}`,
      );
    }
  });

  it("after a call stopped in the middle (drafts unsent, batches in DIAN's hands), sends each document once", async () => {
    const id = await newTestSet();
    const before = await sends();
    // what a call that died after writing its drafts leaves: two invoices of the set, never sent
    await sql((db) => db`select public.einv_test_set_invoices(${orgId}, ${local.dian.company_id}, ${id}, 2)`);
    await control("knobs", { holdBatches: true });
    // with an Idempotency-Key: progress under way is not kept for it, so the same key asks again later
    const key = { "idempotency-key": randomUUID() };
    const held = await testSet(
      { invoices: { send: 3, accept: 3 }, credit_notes: NONE, debit_notes: NONE },
      "admin",
      key,
    );
    expect(held.body).toMatchObject({
      status: "en_proceso",
      invoices: { sent: 3, accepted: 0, rejected: 0, required: 3 },
      message: expect.stringMatching(/3 document\(s\) of the set await DIAN's validation/),
    });
    expect(await sends()).toBe(before + 3);
    // DIAN finishes its batches; the next call asks (GetStatusZip), it does not send again
    await control("knobs", { holdBatches: false });
    await control("release");
    const done = await testSet(
      { invoices: { send: 3, accept: 3 }, credit_notes: NONE, debit_notes: NONE },
      "admin",
      key,
    );
    expect(done.body).toMatchObject({ status: "aceptado", invoices: { sent: 3, accepted: 3, rejected: 0 } });
    expect(await sends()).toBe(before + 3);
    for (const row of await rowsOf(id)) expect(row.status).toBe("transmitida");
  });

  it("after the server dies in the middle of a call, the next call validates each document once", async () => {
    if (!server || !fresh) throw new Error("no server");
    const id = await newTestSet();
    const before = await sends();
    // DIAN slow to answer: the call is caught with its sends on the wire
    await control("knobs", { latencyMs: 5_000 });
    const body = { invoices: { send: 2, accept: 2 }, credit_notes: NONE, debit_notes: NONE };
    const dying = testSet(body).catch(() => null);
    const until = Date.now() + 30_000;
    while ((await sends()) < before + 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(await sends()).toBe(before + 2);
    await server.kill();
    await dying;
    // npm start again on the same data folder, database and port
    const port = Number(new URL(local.base_url).port);
    server = await startLocalServer(fresh.url, { dataDir: server.dataDir, port });
    local = await server.local();
    // DIAN keeps its test sets; the stand-in's registry is the host's, in memory: registered again
    await control("test-set", { id, softwareId: local.dian.software_id });
    // the dead call's claims end with time (its run lease and its documents' leases)
    await sql(async (db) => {
      await db`update public.invoices set lease_until = now() - interval '1 second' where test_set_id = ${id}`;
      await db`delete from einv_private.test_set_runs where company_id = ${local.dian.company_id}`;
    });
    const done = await testSet(body);
    expect(done.body).toMatchObject({ status: "aceptado", invoices: { sent: 2, accepted: 2, rejected: 0 } });
    // DIAN never validated the first sends (the server died while they waited): each document was
    // asked about (GetStatus: never received), sent once more under the same key, and validated once
    expect(await sends()).toBe(before + 4);
    expect(await tally(id)).toMatchObject({ invoices: { sent: 2, accepted: 2, rejected: 0 } });
    for (const row of await rowsOf(id)) {
      expect(row.status).toBe("transmitida");
      expect(row.authority_rules ?? []).not.toContainEqual(expect.objectContaining({ rule: "90" }));
    }
  }, 120_000);
});
