/**
 * `npm start`'s sandbox keeps the authority's books in memory, yet knows every document the database
 * says the authority accepted or holds pending (scripts/local/adopt.ts): the seeded `transmitida`
 * invoices carry their real CUFE and are delivered and refreshed like any other, the seeded notes
 * too, a seeded pending invoice settles, and an invoice transmitted by hand is still delivered after
 * a restart on the same data folder and database. The AttachedDocuments its sandbox serves are the
 * signed XML DIAN mode builds: xmlsec1 verifies every signature against the CA the sandbox serves.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort } from "../../devkit/deno.ts";
import type { LocalRun } from "../../scripts/local/local-json.ts";
import { computeCufe } from "../../shared/co/cufe.ts";
import { expectSignedAttachedDocument, sandboxCa } from "../support/attached-document.ts";
import {
  createFreshDatabase,
  type FreshDatabase,
  type LocalServer,
  removeDataDir,
  startLocalServer,
} from "../support/local-server.ts";

const target = inject("database");
let fresh: FreshDatabase | undefined;
let dataDir = "";
let port = 0;

beforeAll(async () => {
  if (target.kind !== "postgres") return;
  fresh = await createFreshDatabase(target.adminUrl);
  dataDir = await mkdtemp(join(tmpdir(), "einv-local-"));
  port = await freePort();
});
afterAll(async () => {
  await fresh?.drop();
  if (dataDir) await removeDataDir(dataDir);
});

/** The same data folder, database and port: a developer's `npm start` again. */
const start = () => startLocalServer(fresh?.url ?? "", { dataDir, port });

/** POSTs `body` to an einvoicing route as the demo org's operador. */
async function call(local: LocalRun, route: string, body: Record<string, unknown>) {
  const operador = local.users.find((u) => u.role === "operador");
  if (!operador) throw new Error("the seed has no operador");
  const response = await fetch(`${local.base_url}/v1/einvoicing/${route}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${operador.access_token}`,
      apikey: local.apikey,
      "content-type": "application/json",
    },
    body: JSON.stringify({ org_id: operador.org_id, ...body }),
  });
  return { status: response.status, body: await response.json() };
}

/** The fiscal record of an invoice or credit note, read as the database owner. */
async function fiscal(table: "invoices" | "credit_notes", id: string) {
  const sql = postgres(fresh?.url ?? "", { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`select status, authority_code, qr_text from ${sql("public")}.${sql(table)}
                             where id = ${id}`;
    return row as { status: string; authority_code: string | null; qr_text: string | null };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** The AttachedDocument the local sandbox serves for a document, over HTTP with the sandbox's key. */
async function attachedDocument(local: LocalRun, id: string): Promise<Uint8Array> {
  const response = await fetch(`${local.sandbox.urls["adapter-tax"]}/documents/${id}/attached-document`, {
    headers: { authorization: `Bearer ${local.sandbox.api_key}` },
  });
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
}

function find<T extends { number: string }>(items: T[], number: string): T {
  const item = items.find((i) => i.number === number);
  if (!item) throw new Error(`the seed has no ${number}`);
  return item;
}

describe.skipIf(target.kind !== "postgres")(
  "npm start's sandbox knows what the database says it holds",
  () => {
    it("stamps, refreshes and delivers the seeded documents, and delivers a hand-sent invoice after a restart", async () => {
      let server: LocalServer = await start();
      let handSent: { id: string; code: string };
      try {
        expect(server.output()).toMatch(/sandbox: \d+ document\(s\) .* adopted, \d+ stamped and recorded/);
        const local = await server.local();

        // SETP990000201: 2 × 50.000 at 19 % and 1 × 11.000 exempt, buyer 860000000, uat (supabase/seed.sql)
        const seeded = find(local.invoices, "SETP990000201");
        const cufe = await computeCufe({
          number: "SETP990000201",
          issueDate: "2026-11-20",
          issueTime: "10:15:00-05:00",
          subtotal: "111000.00",
          iva: "19000.00",
          inc: "0.00",
          ica: "0.00",
          total: "130000.00",
          issuerNit: "900123456",
          buyerId: "860000000",
          technicalKey: "fc8eac422eba16e22ffd8c6f94b3f40a6e38162c",
          environment: "uat",
        });
        const recorded = await fiscal("invoices", seeded.id);
        expect(recorded).toMatchObject({ status: "transmitida", authority_code: cufe });
        expect(recorded.qr_text).toContain(`CUFE: ${cufe}`);

        const refreshed = await call(local, "refresh", { invoice_id: seeded.id });
        expect(refreshed).toMatchObject({
          status: 200,
          body: { status: "transmitida", authority_code: cufe },
        });
        const delivered = await call(local, "deliver", { invoice_id: seeded.id });
        expect(delivered).toMatchObject({ status: 200, body: { status: "enviada" } });
        const ca = await sandboxCa(fetch, local.sandbox.urls["adapter-tax"]);
        await expectSignedAttachedDocument(await attachedDocument(local, seeded.id), ca, "invoice");

        // the demo org's accepted note: stamped with its CUDE, refreshed unchanged
        const note = local.credit_notes.find((n) => n.invoice_id === seeded.id && n.status === "emitida");
        if (!note) throw new Error("the seed has no emitida note on SETP990000201");
        const noteRecord = await fiscal("credit_notes", note.id);
        expect(noteRecord.authority_code).toMatch(/^[0-9a-f]{96}$/);
        expect(noteRecord.qr_text).toContain(`CUDE: ${noteRecord.authority_code}`);
        await expectSignedAttachedDocument(await attachedDocument(local, note.id), ca, "credit_note");
        const noteRefreshed = await call(local, "credit-notes/refresh", { credit_note_id: note.id });
        expect(noteRefreshed).toMatchObject({
          status: 200,
          body: { status: "emitida", authority_code: noteRecord.authority_code },
        });

        // a seeded invoice the authority holds pending is settled by a query
        const pending = find(local.invoices, "SETP990000101");
        const settled = await call(local, "refresh", { invoice_id: pending.id });
        expect(settled).toMatchObject({ status: 200, body: { status: "transmitida" } });

        // each seeded kind of content (devkit/demo-kinds.ts: withholdings, INC, bags, discounts and
        // charges, dollars, a person with a NIT), SETP990000061–065: transmitida, its container signed
        const kinds = [
          "SETP990000061",
          "SETP990000062",
          "SETP990000063",
          "SETP990000064",
          "SETP990000065",
        ].map((number) => find(local.invoices, number));
        const kindsSent = await call(local, "transmit", { invoice_ids: kinds.map((i) => i.id) });
        expect(kindsSent.status).toBe(200);
        expect(kindsSent.body.results).toHaveLength(kinds.length);
        for (const entry of kindsSent.body.results) {
          expect(entry, entry.message).toMatchObject({ status: "transmitida", code: "accepted" });
        }
        for (const kind of kinds) {
          await expectSignedAttachedDocument(await attachedDocument(local, kind.id), ca, "invoice");
        }

        const draft = find(local.invoices, "SETP990000001");
        const sent = await call(local, "transmit", { invoice_ids: [draft.id] });
        expect(sent).toMatchObject({ status: 200, body: { results: [{ status: "transmitida" }] } });
        const code = (await fiscal("invoices", draft.id)).authority_code;
        if (!code) throw new Error("the transmitted invoice has no CUFE");
        handSent = { id: draft.id, code };
      } finally {
        await server.stop();
      }

      server = await start();
      try {
        expect(server.output()).not.toMatch(/stamped/);
        const local = await server.local();
        const delivered = await call(local, "deliver", { invoice_id: handSent.id });
        expect(delivered).toMatchObject({ status: 200, body: { status: "enviada" } });
        const refreshed = await call(local, "refresh", { invoice_id: handSent.id });
        expect(refreshed).toMatchObject({
          status: 200,
          body: { status: "transmitida", authority_code: handSent.code },
        });
      } finally {
        await server.stop();
      }

      // the same data folder at another PORT: new tokens for the new issuer, and the demo
      // credentials follow the sandbox to its new address
      server = await startLocalServer(fresh?.url ?? "", { dataDir, port: await freePort() });
      try {
        expect(server.output()).toMatch(/demo companies: \d+ sandbox credential\(s\) sealed and saved/);
        const local = await server.local();
        const draft = find(local.invoices, "SETP990000002");
        const sent = await call(local, "transmit", { invoice_ids: [draft.id] });
        expect(sent).toMatchObject({ status: 200, body: { results: [{ status: "transmitida" }] } });
        const delivered = await call(local, "deliver", { invoice_id: handSent.id });
        expect(delivered).toMatchObject({ status: 200, body: { status: "enviada" } });
      } finally {
        await server.stop();
      }
    }, 360_000);
  },
);
