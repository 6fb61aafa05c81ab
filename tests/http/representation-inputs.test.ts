/**
 * /representation answers a current PDF without reading the whole document: the service remembers
 * the fingerprint it computed and the document's *inputs* (which writes made each row the PDF is
 * drawn from, supabase/migrations/20261122001450_representation_inputs.sql), and while both hold
 * the database answers the stored PDF alone. Any write to one of those rows — even one that changes
 * nothing — and the document is read whole again; the PDF is rendered again only when what it shows
 * changed (representation-freshness.test.ts holds which changes those are).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createSandboxDeliver,
  createSandboxDocsgen,
  createSandboxProvider,
  createSandboxRouter,
} from "../../sandbox/index.ts";
import type { ApiFunctionName } from "../../shared/db/catalogue.ts";
import type { Db, DbScope } from "../../shared/db/port.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { saveCredential } from "../support/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { createInvoice, createTenant, type Tenant } from "../support/factories.ts";

let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;
let token: string;
/** How each representation read of the app was answered: the stored PDF alone, or the document. */
const reads: ("stored" | "whole")[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  t = await createTestApp(db, {
    providerFetch: createSandboxRouter({
      adapterTax: createSandboxProvider(),
      docsgen: createSandboxDocsgen(),
      deliver: createSandboxDeliver(),
    }),
  });
  tenant = await createTenant(db);
  await saveCredential(t.deps, tenant);
  token = await t.token(tenant.operador);
  const real: Db = t.deps.db;
  const observed = (scope: DbScope): DbScope => ({
    call: async (fn, args) => {
      const answer = await scope.call(fn, args);
      if ((fn as ApiFunctionName).startsWith("einv_document_representation_read")) {
        const { result = answer } = answer as { result?: unknown };
        reads.push(result !== null && typeof result === "object" && "record" in result ? "whole" : "stored");
      }
      return answer;
    },
  });
  t.deps.db = {
    ...real,
    asUser: (c) => observed(real.asUser(c)),
    asService: () => observed(real.asService()),
  };
});
afterAll(() => db?.close());

async function represent(body: Record<string, unknown>, path = "/representation") {
  reads.length = 0;
  const response = await t.post(path, { org_id: tenant.org.id, ...body }, token);
  expect(response.status).toBe(200);
  const answer = (await response.json()) as { cached: boolean; path: string };
  return { cached: answer.cached, path: answer.path, read: [...reads] };
}

const write = (sql: string, id: string) => db.superuser(sql, sql.includes("$1") ? [id] : []);

describe("an invoice's PDF", () => {
  it("is answered from the stored record alone while nothing it is drawn from was written", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const first = await represent({ invoice_id: invoice.id });
    expect(first).toMatchObject({ cached: false, read: ["whole"] });
    expect(await represent({ invoice_id: invoice.id })).toEqual({ ...first, cached: true, read: ["stored"] });
    expect(await represent({ invoice_id: invoice.id })).toEqual({ ...first, cached: true, read: ["stored"] });
    // regenerate reads the document whole and renders it again
    expect(await represent({ invoice_id: invoice.id, regenerate: true })).toMatchObject({
      cached: false,
      read: ["whole"],
    });
  });

  const writes: [string, string][] = [
    ["the invoice's row", "update invoices set notes = notes where id = $1"],
    ["its fiscal state", "update invoices set status_checked_at = null where id = $1"],
    [
      "one of its lines",
      "update invoice_lines set description = description where invoice_id = $1 and position = 2",
    ],
    [
      "its company",
      "update companies set legal_name = legal_name where id = (select company_id from invoices where id = $1)",
    ],
  ];
  it.each(writes)(
    "is read whole again after a write to %s that changes nothing, and still served",
    async (_, sql) => {
      const invoice = await createInvoice(db, tenant.org, tenant.company);
      const first = await represent({ invoice_id: invoice.id });
      expect(await represent({ invoice_id: invoice.id })).toMatchObject({ cached: true, read: ["stored"] });
      await write(sql, invoice.id);
      expect(await represent({ invoice_id: invoice.id })).toEqual({
        ...first,
        cached: true,
        read: ["whole"],
      });
      expect(await represent({ invoice_id: invoice.id })).toEqual({
        ...first,
        cached: true,
        read: ["stored"],
      });
    },
  );

  it("is read whole again after a write to either of its company's docsgen credentials", async () => {
    const renders = await createTenant(db);
    for (const environment of ["uat", "prd"] as const) {
      await saveCredential(t.deps, renders, {
        service: "docsgen",
        url: "https://providers.test/docsgen",
        environment,
      });
    }
    const invoice = await createInvoice(db, renders.org, renders.company);
    const as = await t.token(renders.operador);
    const call = async () => {
      reads.length = 0;
      const response = await t.post(
        "/representation",
        { org_id: renders.org.id, invoice_id: invoice.id },
        as,
      );
      expect(response.status).toBe(200);
      return { ...((await response.json()) as { cached: boolean }), read: [...reads] };
    };
    expect(await call()).toMatchObject({ cached: false, read: ["whole"] });
    for (const environment of ["prd", "uat"]) {
      expect(await call()).toMatchObject({ cached: true, read: ["stored"] });
      await db.superuser(
        `update einv_private.credentials set verified_at = verified_at
          where company_id = $1 and service = 'docsgen' and environment = $2`,
        [renders.company.id, environment],
      );
      expect(await call()).toMatchObject({ cached: true, read: ["whole"] });
    }
  });

  it("is read whole again after a database deploy replaces a function the read is made of", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const first = await represent({ invoice_id: invoice.id });
    for (const fn of ["einv_private.invoice_payload", "einv_private.issuer_of", "public.einv_document_get"]) {
      expect(await represent({ invoice_id: invoice.id })).toMatchObject({ cached: true, read: ["stored"] });
      const [definition] = await db.superuser<{ sql: string }>(
        "select pg_get_functiondef($1::regproc) as sql",
        [fn],
      );
      await db.superuser(definition?.sql ?? "", []); // `create or replace`, the same body
      expect(await represent({ invoice_id: invoice.id })).toEqual({
        ...first,
        cached: true,
        read: ["whole"],
      });
    }
  });

  it("is read whole and rendered again once a line is added or removed", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const first = await represent({ invoice_id: invoice.id });
    await represent({ invoice_id: invoice.id });
    await write("delete from invoice_lines where invoice_id = $1 and position = 2", invoice.id);
    const removed = await represent({ invoice_id: invoice.id });
    expect(removed).toMatchObject({ cached: false, read: ["whole"] });
    expect(removed.path).not.toBe(first.path);
    expect(await represent({ invoice_id: invoice.id })).toMatchObject({ cached: true, read: ["stored"] });
    await write(
      `insert into invoice_lines (invoice_id, org_id, position, description, quantity, unit_price,
         line_extension, tax_code, tax_rate, tax_amount)
       select id, org_id, 2, 'Otra', 1, 1000, 1000, 'ZZ', 0, 0 from invoices where id = $1`,
      invoice.id,
    );
    expect(await represent({ invoice_id: invoice.id })).toMatchObject({ cached: false, read: ["whole"] });
  });

  it("is read whole when the stored PDF is not the one this process computed", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const first = await represent({ invoice_id: invoice.id });
    // another renderer stored a PDF with another fingerprint (a deploy with other PDF code)
    await db.superuser("update representations set fingerprint = 'other' where document_id = $1", [
      invoice.id,
    ]);
    const again = await represent({ invoice_id: invoice.id });
    expect(again).toMatchObject({ cached: false, read: ["whole"] });
    expect(again.path).toBe(first.path); // the same content, so the same name
    expect(await represent({ invoice_id: invoice.id })).toMatchObject({ cached: true, read: ["stored"] });
  });
});

describe("a credit note's PDF", () => {
  it("is read whole again after a write to the note, its lines or the invoice it credits", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const note = await t.deps.db.asService().call("einv_credit_note_create", {
      p_org_id: tenant.org.id,
      p_invoice_id: invoice.id,
      p_concept_code: "2",
      p_reason: "Anulación de la factura",
      p_line_ids: null,
      p_actor_id: tenant.operador.id,
      p_lease_seconds: 60,
    });
    const id = note.document_id;
    const first = await represent({ credit_note_id: id }, "/credit-notes/representation");
    expect(first).toMatchObject({ cached: false, read: ["whole"] });
    for (const sql of [
      "update credit_notes set reason = reason where id = $1",
      // the lines are append-only: past their trigger, as only a superuser could
      `do $$ begin set local session_replication_role = replica;
         update credit_note_lines set description = description where credit_note_id = '${id}' and position = 1;
       end $$`,
      "update invoices set status_checked_at = null where id = (select invoice_id from credit_notes where id = $1)",
    ]) {
      expect(await represent({ credit_note_id: id }, "/credit-notes/representation")).toMatchObject({
        cached: true,
        read: ["stored"],
      });
      await write(sql, id);
      expect(await represent({ credit_note_id: id }, "/credit-notes/representation")).toEqual({
        ...first,
        cached: true,
        read: ["whole"],
      });
    }
    // what the note shows of the invoice, its buyer (frozen once accepted: past its trigger)
    await write(
      `do $$ begin set local session_replication_role = replica;
         update invoices set buyer_name = 'Otro Cliente S.A.S.'
          where id = (select invoice_id from credit_notes where id = '${id}');
       end $$`,
      id,
    );
    expect(await represent({ credit_note_id: id }, "/credit-notes/representation")).toMatchObject({
      cached: false,
      read: ["whole"],
    });
  });
});

describe("einv_private.document_inputs", () => {
  it("lists every function the read calls, and what they call, as what a deploy may change", async () => {
    const [{ listed } = { listed: [] }] = await db.superuser<{ listed: string[] }>(
      "select einv_private.representation_read_functions()::text[] as listed",
    );
    const sources = await db.superuser<{ name: string; source: string }>(
      `select p.proname as name, p.prosrc as source from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname in ('public', 'einv_private')`,
    );
    const names = new Set(sources.map((f) => f.name));
    const reached = new Set<string>();
    const visit = (name: string) => {
      if (reached.has(name)) return;
      reached.add(name);
      for (const { source } of sources.filter((f) => f.name === name)) {
        const code = source.replace(/--.*$/gm, ""); // "generated by einv_private.compile_…()" is not a call
        for (const [, callee] of code.matchAll(/\b(?:public|einv_private)\.([a-z_][a-z0-9_]*)\s*\(/g)) {
          if (callee && names.has(callee)) visit(callee);
        }
      }
    };
    visit("einv_document_representation_read");
    expect([...reached].sort()).toEqual([...listed].sort());
  });

  it("is read in the calling statement's snapshot: it and its caller are STABLE", async () => {
    const rows = await db.superuser<{ name: string; volatility: string }>(
      `select proname as name, provolatile as volatility from pg_proc
        where proname in ('document_inputs', 'einv_document_representation_read') order by proname`,
    );
    expect(rows).toEqual([
      { name: "document_inputs", volatility: "s" },
      { name: "einv_document_representation_read", volatility: "s" },
    ]);
  });
});

describe("einv_document_representation_read", () => {
  const read = (documentId: string, inputs: string | null, fingerprint: string | null, kind = "invoice") =>
    t.deps.db.asService().call("einv_document_representation_read", {
      p_org_id: tenant.org.id,
      p_kind: kind as "invoice",
      p_document_id: documentId,
      p_inputs: inputs,
      p_fingerprint: fingerprint,
    });

  it("answers the stored PDF alone only for the current inputs and the stored fingerprint", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    await represent({ invoice_id: invoice.id });
    const whole = await read(invoice.id, null, null);
    expect(whole).toMatchObject({ inputs: expect.stringMatching(/^invoice:[0-9a-f]{32}$/) });
    if (!("record" in whole) || !whole.inputs) throw new Error("expected the whole document");
    const fingerprint = whole.record.representation?.fingerprint ?? null;
    const stored = await read(invoice.id, whole.inputs, fingerprint);
    expect(stored).toEqual({ inputs: whole.inputs, representation: whole.record.representation });
    for (const [inputs, print] of [
      [whole.inputs, "other"],
      [whole.inputs, null],
      [whole.inputs.replace(/.$/, (c) => (c === "0" ? "1" : "0")), fingerprint],
      [null, fingerprint],
    ] as const) {
      expect(await read(invoice.id, inputs, print)).toMatchObject({
        inputs: whole.inputs,
        record: expect.anything(),
      });
    }
  });

  it("answers not_found for another organization's document, whatever it is told", async () => {
    const other = await createTenant(db);
    const invoice = await createInvoice(db, other.org, other.company);
    await expect(read(invoice.id, "invoice:x", "x")).rejects.toMatchObject({ code: "not_found" });
    await expect(read(invoice.id, null, null, "credit_note")).rejects.toMatchObject({ code: "not_found" });
  });
});
