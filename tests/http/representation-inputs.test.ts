/**
 * /representation answers a current PDF without reading the whole document: the service remembers
 * the fingerprint it computed and the document's *inputs* (which writes made each row the PDF is
 * drawn from, supabase/migrations/20261122000760_representation.sql), and while both hold
 * the database answers the stored PDF alone. Any write to one of those rows — even one that changes
 * nothing — and the document is read whole again; the PDF is rendered again only when what it shows
 * changed (representation-freshness.test.ts holds which changes those are).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestApp } from "../../devkit/app.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import type { TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Tenant } from "../../devkit/factories.ts";
import type { ApiFunctionName } from "../../shared/ports/db/catalogue.ts";
import type { Db, DbScope } from "../../shared/ports/db/port.ts";
import { openRouteSuite, sandboxProviders } from "../support/route-suite.ts";

let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;
let token: string;
/** How each representation read of the app was answered: the stored PDF alone, or the document. */
const reads: ("stored" | "whole")[] = [];

beforeAll(async () => {
  ({ db, t, tenant, token } = await openRouteSuite({ providerFetch: sandboxProviders() }));
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

/** POSTs as the file's operator, or as `as` (another tenant's org and token). */
async function represent(
  body: Record<string, unknown>,
  path = "/representation",
  as: { orgId: string; token: string } = { orgId: tenant.org.id, token },
) {
  reads.length = 0;
  const response = await t.post(path, { org_id: as.orgId, ...body }, as.token);
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
    const as = { orgId: renders.org.id, token: await t.token(renders.operador) };
    const call = () => represent({ invoice_id: invoice.id }, "/representation", as);
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

  it("is read whole again after a database deploy replaces any function the read is made of", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const first = await represent({ invoice_id: invoice.id });
    const definitions = await db.superuser<{ name: string; sql: string }>(
      `select p.proname as name, pg_get_functiondef(p.oid) as sql from pg_proc p
        where p.proname = any (einv_private.representation_read_functions()) order by p.oid`,
    );
    expect(definitions.length).toBeGreaterThanOrEqual(13);
    for (const { sql } of definitions) {
      expect(await represent({ invoice_id: invoice.id })).toMatchObject({ cached: true, read: ["stored"] });
      await db.superuser(sql); // `create or replace`, the same body
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
      `insert into invoice_lines (invoice_id, org_id, position, description, quantity, unit_price)
       select id, org_id, 2, 'Otra', 1, 1000 from invoices where id = $1`,
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
      p_lines: null,
      p_actor_id: tenant.operador.id,
      p_lease_seconds: 60,
      p_issued_at: new Date().toISOString(),
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
      "update companies set legal_name = legal_name where id = (select company_id from credit_notes where id = $1)",
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
    // the renderer: a docsgen credential saved for the note's company, then removed
    await saveCredential(t.deps, tenant, { service: "docsgen", url: "https://providers.test/docsgen" });
    const docsgen = await represent({ credit_note_id: id }, "/credit-notes/representation");
    expect(docsgen).toMatchObject({ cached: false, read: ["whole"] });
    expect(docsgen.path).not.toBe(first.path);
    await db.superuser("delete from einv_private.credentials where company_id = $1 and service = 'docsgen'", [
      tenant.company.id,
    ]);
    expect(await represent({ credit_note_id: id }, "/credit-notes/representation")).toEqual({
      ...first,
      cached: false,
      read: ["whole"],
    });
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
  /** Our functions' definitions (both schemas), and the closure of what the read calls. */
  async function readClosure() {
    const functions = await db.superuser<{ name: string; definition: string }>(
      `select p.proname as name, pg_get_functiondef(p.oid) as definition
         from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname in ('public', 'einv_private') and p.prokind = 'f'`,
    );
    const names = new Set(functions.map((f) => f.name));
    const reached = new Map<string, string[]>();
    const visit = (name: string) => {
      if (reached.has(name)) return;
      const code = functions.filter((f) => f.name === name).map((f) => withoutComments(f.definition));
      reached.set(name, code);
      for (const source of code) {
        // any call of one of our functions by its name, qualified, quoted or not
        for (const [, callee] of source.matchAll(/"?([a-z_][a-z0-9_]*)"?\s*\(/g)) {
          if (callee && names.has(callee)) visit(callee);
        }
      }
    };
    visit("einv_document_representation_read");
    return reached;
  }
  /** A `--` comment ends the line unless it is inside a string ("generated by einv_private.…()"). */
  const withoutComments = (sql: string) =>
    sql
      .split("\n")
      .map((line) => {
        let quotes = 0;
        for (let i = 0; i < line.length - 1; i++) {
          if (line[i] === "'") quotes++;
          else if (line[i] === "-" && line[i + 1] === "-" && quotes % 2 === 0) return line.slice(0, i);
        }
        return line;
      })
      .join("\n");

  it("lists every function the read calls, and what they call, as what a deploy may change", async () => {
    const [{ listed } = { listed: [] }] = await db.superuser<{ listed: string[] }>(
      "select einv_private.representation_read_functions()::text[] as listed",
    );
    const closure = await readClosure();
    expect([...closure.keys()].sort()).toEqual([...listed].sort());
    const code = [...closure.values()].flat();
    // nothing the crawl cannot follow: no dynamic SQL, no function of another schema
    expect(code.filter((source) => /\bexecute\b/i.test(source))).toEqual([]);
    const foreign = code.flatMap((source) =>
      [...source.matchAll(/"?([a-z_][a-z0-9_]*)"?\s*\.\s*"?([a-z_][a-z0-9_]*)"?\s*\(/g)]
        .map(([, schema, name]) => `${schema}.${name}`)
        .filter((call) => !/^(public|einv_private|pg_catalog)\./.test(call)),
    );
    expect(foreign).toEqual([]);
  });

  it("names the rows of every table the read takes the document from", async () => {
    const closure = await readClosure();
    // `from public.x`, `join einv_private.y`: tables, not the functions read from (`from f(…)`)
    const tablesIn = (sources: string[]) =>
      new Set(
        sources.flatMap((source) =>
          [
            ...source.matchAll(
              /\b(?:from|join)\s+"?(public|einv_private)"?\."?([a-z_][a-z0-9_]*)\b"?(?!\s*\()/gi,
            ),
          ].map(([, schema, table]) => `${schema}.${table}`),
        ),
      );
    const named = tablesIn(closure.get("document_inputs") ?? []);
    // what the read takes besides the document: compared, or a change to it regenerates the read
    const besides = new Set([
      "public.representations", // the stored PDF: compared by its fingerprint
      "einv_private.document_kinds", // the registry: a change recompiles read_documents and document_payload
    ]);
    const read = [...tablesIn([...closure.values()].flat())].filter((table) => !besides.has(table));
    expect(read.filter((table) => !named.has(table))).toEqual([]);
    expect(read).toEqual(
      expect.arrayContaining(["public.invoices", "public.invoice_lines", "public.credit_notes"]),
    );
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

  it("answers not_found for another organization's document, even told its real inputs and fingerprint", async () => {
    const other = await createTenant(db);
    const invoice = await createInvoice(db, other.org, other.company);
    const theirs = { ...tenant, org: other.org, company: other.company };
    await saveCredential(t.deps, theirs);
    const response = await t.post(
      "/representation",
      { org_id: other.org.id, invoice_id: invoice.id },
      await t.token(other.operador),
    );
    expect(response.status).toBe(200);
    const whole = await t.deps.db.asService().call("einv_document_representation_read", {
      p_org_id: other.org.id,
      p_kind: "invoice",
      p_document_id: invoice.id,
      p_inputs: null,
      p_fingerprint: null,
    });
    if (!("record" in whole) || !whole.inputs || !whole.record.representation)
      throw new Error("not rendered");
    const { fingerprint } = whole.record.representation;
    await expect(read(invoice.id, whole.inputs, fingerprint)).rejects.toMatchObject({ code: "not_found" });
    await expect(read(invoice.id, whole.inputs, fingerprint, "credit_note")).rejects.toMatchObject({
      code: "not_found",
    });
    // and over HTTP, by a member of this org naming that invoice
    const asked = await t.post("/representation", { org_id: tenant.org.id, invoice_id: invoice.id }, token);
    expect(asked.status).toBe(404);
  });
});
