/**
 * DIAN direct as `npm start` runs it: the real `einvoicing` function under Deno, Demo Org's
 * DIAN-mode company (supabase/seed.sql) and the DIAN stand-in it transmits to. The demo company's
 * pending invoices are transmitted through habilitación's test set (SendTestSetAsync, GetStatusZip)
 * and come back `transmitida`; every request lands in `<data>/dian/`, where xmlsec1 verifies the
 * envelope's WS-Security signature and the document's XAdES signature and xmllint validates the
 * document, as the README shows. A whole and a partial credit note, and a debit note, go the same way; a batch DIAN
 * holds in process leaves a document `en_proceso` until `/refresh` or reconcile settles it; a
 * document DIAN rejects carries DIAN's rule codes; the buyer's AttachedDocument is ours, signed.
 */
import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { unzipSync } from "fflate";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { xmllintValidate, xmlsecVerify, xmlsecVerifyEnvelope } from "../../devkit/dian/xml-tools.ts";
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

beforeAll(async () => {
  if (target.kind !== "postgres") return;
  fresh = await createFreshDatabase(target.adminUrl);
  // reconcile picks what is left en_proceso at once here (npm start waits 30 s by default)
  server = await startLocalServer(fresh.url, { env: { EINV_RECONCILE_GRACE_SECONDS: "0" } });
  local = await server.local();
}, 180_000);
afterAll(async () => {
  await server?.stop();
  if (server) await removeDataDir(server.dataDir);
  await fresh?.drop();
});

async function call(route: string, body: Record<string, unknown>) {
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

/** The stand-in's control endpoints (DESIGN §10). */
const control = (name: string, body?: unknown) =>
  fetch(`${local.dian.control_url}/${name}`, {
    method: "POST",
    ...(body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });

async function sql<T>(run: (db: postgres.Sql) => Promise<T>): Promise<T> {
  const db = postgres(fresh?.url ?? "", { max: 1, onnotice: () => {} });
  try {
    return await run(db);
  } finally {
    await db.end({ timeout: 5 });
  }
}

/** The requests the stand-in wrote whose file name names `operation`, oldest first. */
async function requests(operation: string): Promise<string[]> {
  const names = (await readdir(local.dian.requests_dir))
    .filter((n) => n.endsWith(`-${operation}.xml`))
    .sort();
  return names.map((n) => join(local.dian.requests_dir, n));
}

/** The signed document a send request carried (the one XML in its ZIP). */
async function carried(envelope: Uint8Array): Promise<Uint8Array> {
  const content = /<wcf:contentFile>([^<]+)<\/wcf:contentFile>/.exec(new TextDecoder().decode(envelope))?.[1];
  if (!content) throw new Error("no contentFile in the request");
  const files = Object.values(unzipSync(Uint8Array.from(atob(content), (c) => c.charCodeAt(0))));
  expect(files).toHaveLength(1);
  return files[0] as Uint8Array;
}

/** xmlsec1 and xmllint on a saved send request: the envelope, then the document it carried. */
async function checkRequest(file: string, kind: "invoice" | "credit_note" | "debit_note") {
  const envelope = new Uint8Array(await readFile(file));
  const soap = await xmlsecVerifyEnvelope(envelope);
  expect(soap.output).toContain("SignedInfo References (ok/all): 1/1");
  const document = await carried(envelope);
  const xades = await xmlsecVerify(document, local.dian.ca_pem);
  expect(xades.output).toContain("SignedInfo References (ok/all): 3/3");
  expect(xades.ok).toBe(true);
  const schema = await xmllintValidate(document, kind);
  expect(schema.ok, schema.output).toBe(true);
}

const dianInvoices = () =>
  local.invoices.filter((i) => i.company_id === local.dian.company_id && i.status === "pendiente");

describe.skipIf(target.kind !== "postgres")("DIAN direct under npm start", () => {
  it("transmits the demo company's invoices to the stand-in: transmitida; the saved requests verify and validate", async () => {
    const invoices = dianInvoices().slice(0, 3);
    expect(invoices).toHaveLength(3);
    const { status, body } = await call("transmit", { invoice_ids: invoices.map((i) => i.id) });
    expect(status).toBe(200);
    for (const entry of body.results)
      expect(entry).toMatchObject({ status: "transmitida", code: "accepted" });
    const sent = await requests("SendTestSetAsync");
    expect(sent.length).toBeGreaterThanOrEqual(3);
    for (const file of sent.slice(0, 3)) await checkRequest(file, "invoice");
    expect((await requests("GetStatusZip")).length).toBeGreaterThanOrEqual(3);

    // the README's check, as a developer runs it
    const { stdout } = await promisify(execFile)("npm", ["run", "--silent", "dian:check"], {
      env: { ...process.env, EINV_DATA_DIR: server?.dataDir ?? "" },
    });
    expect(stdout).toMatch(
      /SendTestSetAsync\.xml: envelope signature OK, fv\w+\.xml signature OK, fv\w+\.xml schemas OK/,
    );
    expect(stdout).toMatch(/^(\d+) of \1 requests pass$/m);
    // the first transmission pays Deno's and the stand-in's cold start, and dian:check its own
  }, 120_000);

  it("transmits each seeded kind of content (withholdings, INC, bags, discounts and charges, dollars, a person with a NIT: SETP990000507–511): transmitida; each request verifies and validates", async () => {
    // devkit/demo-kinds.ts's drafts, which supabase/seed.sql writes for the DIAN-mode company
    const numbers = ["SETP990000507", "SETP990000508", "SETP990000509", "SETP990000510", "SETP990000511"];
    const kinds = numbers.map((number) => {
      const invoice = dianInvoices().find((i) => i.number === number);
      if (!invoice) throw new Error(`the seed has no pendiente ${number}`);
      return invoice;
    });
    const before = (await requests("SendTestSetAsync")).length;
    const { status, body } = await call("transmit", { invoice_ids: kinds.map((i) => i.id) });
    expect(status).toBe(200);
    expect(body.results).toHaveLength(numbers.length);
    for (const entry of body.results) {
      expect(entry, entry.message).toMatchObject({ status: "transmitida", code: "accepted" });
    }
    const sent = (await requests("SendTestSetAsync")).slice(before);
    expect(sent).toHaveLength(numbers.length);
    for (const file of sent) await checkRequest(file, "invoice");
  }, 120_000);

  it("issues a whole and a partial credit note the same way, and serves the buyer's AttachedDocument, signed", async () => {
    const [whole, partial] = local.invoices.filter((i) => i.company_id === local.dian.company_id);
    if (!whole || !partial) throw new Error("no demo invoices");
    const annulment = await call("credit-notes", {
      invoice_id: whole.id,
      concept_code: "2",
      reason: "Anulación de la factura",
    });
    expect(annulment.body).toMatchObject({ status: "emitida", code: "accepted" });
    const returned = await call("credit-notes", {
      invoice_id: partial.id,
      concept_code: "1",
      reason: "Devolución de una unidad",
      lines: [{ line_id: partial.line_ids[0], quantity: "1" }],
    });
    expect(returned.body).toMatchObject({ status: "emitida", code: "accepted" });
    const notes = (await requests("SendTestSetAsync")).slice(-2);
    for (const file of notes) await checkRequest(file, "credit_note");

    const representation = await call("representation", { invoice_id: partial.id });
    expect(representation.body.xml_path).toMatch(/\.xml$/);
    const download = await fetch(
      `${local.base_url.replace(/\/functions$/, "")}/storage/v1/object/service-documentos/${representation.body.xml_path}`,
      {
        headers: { authorization: `Bearer ${local.users.find((u) => u.role === "operador")?.access_token}` },
      },
    );
    const xml = new Uint8Array(await download.arrayBuffer());
    expect(new TextDecoder().decode(xml)).toContain("<AttachedDocument");
    expect((await xmlsecVerify(xml, local.dian.ca_pem)).ok).toBe(true);
  });

  it("issues a debit note the same way: a UBL DebitNote the stand-in validates, and its buyer's AttachedDocument", async () => {
    const [, partial] = local.invoices.filter((i) => i.company_id === local.dian.company_id);
    if (!partial) throw new Error("no demo invoices");
    const interest = await call("debit-notes", {
      invoice_id: partial.id,
      concept_code: "1",
      reason: "Intereses de mora: 30 días",
      lines: [
        {
          description: "Intereses de mora (2 % mensual)",
          quantity: "1",
          unit_price: "47600",
          taxes: [{ code: "01", percent: 19 }],
        },
      ],
    });
    expect(interest.body).toMatchObject({ status: "emitida", code: "accepted" });
    const [sent] = (await requests("SendTestSetAsync")).slice(-1);
    if (!sent) throw new Error("no request saved");
    await checkRequest(sent, "debit_note");
    const document = new TextDecoder().decode(await carried(new Uint8Array(await readFile(sent))));
    expect(document).toMatch(/^<\?xml[^>]*\?>\s*<DebitNote /);
    expect(document).toContain("<cac:RequestedMonetaryTotal>");

    const representation = await call("debit-notes/representation", {
      debit_note_id: interest.body.debit_note_id,
    });
    expect(representation.body).toMatchObject({ stamped: true, xml_path: expect.stringMatching(/\.xml$/) });
  });

  it("leaves a document DIAN holds in process en_proceso; /refresh settles one, reconcile another", async () => {
    const [byRefresh, byReconcile] = dianInvoices().slice(3, 5);
    if (!byRefresh || !byReconcile) throw new Error("no demo invoices left");
    expect((await control("knobs", { holdBatches: true })).status).toBe(200);
    const held = await call("transmit", { invoice_ids: [byRefresh.id, byReconcile.id] });
    for (const entry of held.body.results) expect(entry).toMatchObject({ status: "en_proceso" });
    expect((await call("refresh", { invoice_id: byRefresh.id })).body).toMatchObject({
      status: "en_proceso",
      code: "validation_pending",
    });
    await control("knobs", { holdBatches: false });
    await control("release");
    expect((await call("refresh", { invoice_id: byRefresh.id })).body).toMatchObject({
      status: "transmitida",
      code: "accepted",
    });
    const run = await fetch(local.reconcile.url, {
      method: "POST",
      headers: { authorization: `Bearer ${local.reconcile.secret}` },
    });
    expect(await run.json()).toMatchObject({ settled: expect.any(Number) });
    const [settled] = await sql((db) => db`select status from public.invoices where id = ${byReconcile.id}`);
    expect(settled?.status).toBe("transmitida");
  });

  it("shows DIAN's rule codes when it rejects a document (a CUFE made with the wrong technical key: FAD06)", async () => {
    const [last] = dianInvoices().slice(5, 6);
    if (!last) throw new Error("no demo invoice left");
    await sql(
      (db) =>
        db`update public.companies set technical_key = ${"0".repeat(40)} where id = ${local.dian.company_id}`,
    );
    const { body } = await call("transmit", { invoice_ids: [last.id] });
    const [entry] = body.results;
    expect(entry).toMatchObject({ status: "error", code: "rejected" });
    expect(entry.authority_rules).toContainEqual(expect.objectContaining({ rule: "FAD06", kind: "rechazo" }));
  });
});
