/**
 * Issue 16's done-when, through the real app and database with the sandbox providers at the edge:
 * /deliver sends what a Colombian buyer is owed — one ZIP holding the AttachedDocument XML and the
 * stamped PDF — read back here with independent tools (Info-ZIP's unzip, fast-xml-parser, poppler's
 * pdftoppm and zbar's zbarimg); it asks the provider for the XML once; and a provider that cannot hand
 * the XML over leaves a delivery in `error` with nothing e-mailed.
 *
 * Needs the Debian packages unzip, poppler-utils and zbar-tools; without them the first test is
 * skipped with a message, except on CI (`CI` set), where a missing tool fails it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unzipSync } from "fflate";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TestApp } from "../../devkit/app.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import type { TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import { decodeQr, RASTER_TOOLS, rasterise } from "../../devkit/pdf/support.ts";
import {
  createSandboxDeliver,
  createSandboxProvider,
  type SandboxDeliver,
  type SandboxProvider,
} from "../../sandbox/index.ts";
import { sandboxSigners } from "../../sandbox/signers.ts";
import {
  cents,
  expectSignedAttachedDocument,
  readAttachedDocument,
  sandboxCa,
  taxTotalCents,
  text,
} from "../support/attached-document.ts";
import { openRouteSuite, sandboxProviders } from "../support/route-suite.ts";
import { PROVIDERS } from "../support/routes.ts";

const TOOLS: Record<string, string> = { unzip: "unzip", ...RASTER_TOOLS };
const missing = Object.keys(TOOLS).filter(
  (tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0,
);
const skipReadBack = missing.length > 0 && !process.env.CI;
if (skipReadBack) {
  const packages = missing.map((tool) => TOOLS[tool]).join(" ");
  console.warn(`ZIP read-back SKIPPED: ${missing.join(", ")} not installed (apt-get install -y ${packages})`);
}

let db: TestDatabase;
let t: TestApp;
let tax: SandboxProvider;
let mail: SandboxDeliver;
let tenant: Tenant;
let token: string;
let dir: string;

// the sandbox signs AttachedDocuments with certificates it generates once per process (~0.4 s):
// generated before the timed provider calls that fetch them
beforeAll(() => sandboxSigners(), 60_000);
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "einv-deliver-"));
  tax = createSandboxProvider();
  // the local server's outbox (`.data/outbox/` under npm start)
  mail = createSandboxDeliver({ outboxDir: join(dir, "outbox") });
  ({ db, t, tenant, token } = await openRouteSuite({
    env: { EINV_PROVIDER_TIMEOUT_MS: "1000" },
    providerFetch: sandboxProviders({ adapterTax: tax, deliver: mail }),
    credentials: "router",
  }));
});
afterAll(async () => {
  await db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  mail.reset();
  tax.setKnobs({ failNext: [], hangMs: 2_000 });
});

const deliver = (invoice: Pick<Invoice, "id">, extra: { to?: string } = {}) =>
  t.post("/deliver", { org_id: tenant.org.id, invoice_id: invoice.id, ...extra }, token);

async function transmitted(): Promise<Invoice> {
  const invoice = await createInvoice(db, tenant.org, tenant.company);
  const response = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token);
  expect((await response.json()).results[0].status).toBe("transmitida");
  return invoice;
}

interface InvoiceRow {
  number: string;
  issue_date: string;
  authority_code: string;
  qr_text: string;
  subtotal: string;
  tax_total: string;
  total: string;
  buyer_name: string;
  buyer_id_number: string;
  nit: string;
}

const invoiceRow = async (id: string) =>
  (
    await db.superuser<InvoiceRow>(
      `select i.number, i.issue_date::text, i.authority_code, i.qr_text, i.subtotal::text, i.tax_total::text,
              i.total::text, i.buyer_name, i.buyer_id_number, c.nit
         from public.invoices i join public.companies c on c.id = i.company_id where i.id = $1`,
      [id],
    )
  )[0] as InvoiceRow;

const deliveriesOf = (invoice: Pick<Invoice, "id">) =>
  db.superuser<{ status: string; message: string; attachments: unknown }>(
    "select status, message, attachments from public.deliveries where document_id = $1 order by created_at",
    [invoice.id],
  );

const xmlObjects = (invoice: Pick<Invoice, "id">) =>
  db.superuser<{ name: string; mimetype: string }>(
    `select name, metadata->>'mimetype' as mimetype from storage.objects
      where name like $1 and name like '%.xml' order by name`,
    [`${tenant.org.id}/invoices/${invoice.id}/%`],
  );

/**
 * DIAN's file stem, computed here apart from the service: NIT to 10 digits, 000, the package's year,
 * and its consecutive (the issuer's count of packages sent that year, recorded on the delivery) in hex.
 */
async function expectedStem(row: InvoiceRow, deliveryId: string): Promise<string> {
  const [parcel] = await db.superuser<{ package_year: number; package_number: string }>(
    "select package_year, package_number from public.deliveries where id = $1",
    [deliveryId],
  );
  const consecutive = BigInt(parcel?.package_number ?? "0")
    .toString(16)
    .padStart(8, "0");
  return `${row.nit.padStart(10, "0")}000${String(parcel?.package_year).slice(2)}${consecutive}`;
}

/** Lists and extracts a ZIP with Info-ZIP's unzip: a reader that is not the writer's library. */
function unzip(zip: Uint8Array): Map<string, Uint8Array> {
  const path = join(dir, `${crypto.randomUUID()}.zip`);
  writeFileSync(path, zip);
  const test = spawnSync("unzip", ["-tq", path]);
  expect(test.status, test.stdout.toString()).toBe(0);
  const names = spawnSync("unzip", ["-Z1", path]).stdout.toString().trim().split("\n");
  return new Map(
    names.map((name) => [
      name,
      new Uint8Array(spawnSync("unzip", ["-p", path, name], { maxBuffer: 64 << 20 }).stdout),
    ]),
  );
}

describe("what /deliver sends", () => {
  it.skipIf(skipReadBack)(
    "is one ZIP with the XML and the PDF: the XML's cbc:UUID is the CUFE, its totals the invoice's, and the PDF's QR decodes to the same CUFE",
    async () => {
      if (missing.length > 0) throw new Error(`${missing.join(", ")} not installed: CI must install them`);
      const invoice = await createInvoice(db, tenant.org, tenant.company);
      // a buyer name with markup in it: it must come back as text
      const buyerName = `Cliente <b>&</b> "Prueba" ]]> S.A.S.`;
      await db.superuser("update public.invoices set buyer_name = $1 where id = $2", [buyerName, invoice.id]);
      const transmit = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token);
      expect((await transmit.json()).results[0].status).toBe("transmitida");
      const row = await invoiceRow(invoice.id);

      const response = await deliver(invoice);
      expect(response.status).toBe(200);
      const body = await response.json();
      expect(body.status).toBe("enviada");
      const stem = await expectedStem(row, body.delivery_id);

      // one attachment: the ZIP, named as DIAN names it
      const [message] = mail.messages;
      expect(message?.attachments).toEqual([
        { filename: `z${stem}.zip`, content_type: "application/zip", size: expect.any(Number) },
      ]);
      const zip = mail.content(body.delivery_id)?.attachments.get(`z${stem}.zip`) ?? new Uint8Array();
      const files = unzip(zip);
      expect([...files.keys()]).toEqual([`ad${stem}.xml`, `ad${stem}.pdf`]);

      // the XML: the invoice's CUFE, number, parties and totals
      const {
        container,
        document,
        response: acceptance,
      } = readAttachedDocument(files.get(`ad${stem}.xml`) ?? "");
      expect(container["cbc:UUID"]).toEqual({ "#text": row.authority_code, "@schemeName": "CUFE-SHA384" });
      expect(text(container["cbc:ParentDocumentID"])).toBe(row.number);
      expect(text(container["cac:ReceiverParty"]["cac:PartyTaxScheme"]["cbc:RegistrationName"])).toBe(
        buyerName,
      );
      expect(text(container["cac:SenderParty"]["cac:PartyTaxScheme"]["cbc:CompanyID"])).toBe(row.nit);
      expect(document["cbc:UUID"]).toMatchObject({ "#text": row.authority_code });
      expect(text(document["cbc:IssueDate"])).toBe(row.issue_date);
      const money = document["cac:LegalMonetaryTotal"];
      expect(cents(text(money["cbc:LineExtensionAmount"]) ?? "")).toBe(cents(row.subtotal));
      expect(cents(text(money["cbc:PayableAmount"]) ?? "")).toBe(cents(row.total));
      expect(taxTotalCents(document)).toBe(cents(row.tax_total));
      expect(text(acceptance["cac:DocumentResponse"]["cac:Response"]["cbc:ResponseCode"])).toBe("02");
      // signed as DIAN mode signs it: the container, the invoice and DIAN's response each verify
      const xml = files.get(`ad${stem}.xml`) ?? new Uint8Array();
      await expectSignedAttachedDocument(xml, await sandboxCa(tax.fetch), "invoice");

      // the PDF: its QR code, rasterised and scanned, is the DIAN text with the same CUFE
      const pdfPath = join(dir, `${stem}.pdf`);
      writeFileSync(pdfPath, files.get(`ad${stem}.pdf`) ?? new Uint8Array());
      const { PDFDocument } = await import("pdf-lib");
      const pages = (await PDFDocument.load(readFileSync(pdfPath))).getPageCount();
      rasterise(pdfPath, pages, 150, join(dir, `${stem}.png`));
      const decoded = decodeQr(join(dir, `${stem}.png`));
      expect(decoded.text).toBe(`${row.qr_text}\n`);
      expect(decoded.text).toContain(`CUFE: ${row.authority_code}`);

      // the record lists what was sent; the XML is kept beside the PDF
      expect(await deliveriesOf(invoice)).toEqual([
        {
          status: "enviada",
          message: expect.any(String),
          attachments: [
            {
              filename: `z${stem}.zip`,
              content_type: "application/zip",
              size: zip.byteLength,
              files: [
                { filename: `ad${stem}.xml`, size: files.get(`ad${stem}.xml`)?.byteLength },
                { filename: `ad${stem}.pdf`, size: files.get(`ad${stem}.pdf`)?.byteLength },
              ],
            },
          ],
        },
      ]);
      // the local outbox holds the ZIP as sent, and message.json lists what is inside it
      const folder = message?.outbox_path ?? "";
      expect(readFileSync(join(folder, `z${stem}.zip`))).toEqual(Buffer.from(zip));
      const outbox = JSON.parse(readFileSync(join(folder, "message.json"), "utf8"));
      expect(outbox.attachments[0].zip_entries).toEqual([
        { name: `ad${stem}.xml`, size: files.get(`ad${stem}.xml`)?.byteLength },
        { name: `ad${stem}.pdf`, size: files.get(`ad${stem}.pdf`)?.byteLength },
      ]);

      const [stored] = await xmlObjects(invoice);
      expect(stored?.name).toMatch(new RegExp(`/ad-${row.number}-[0-9a-f]{12}\\.xml$`));
      expect(stored?.mimetype).toBe("application/xml");
      expect(readFileSync(t.documents.file(stored?.name ?? ""))).toEqual(
        Buffer.from(files.get(`ad${stem}.xml`) ?? []),
      );
    },
  );

  it("asks the provider for the XML once: a second delivery reads it from the bucket", async () => {
    const invoice = await transmitted();
    const asked = () => tax.attachedDocumentRequests.filter((r) => r.reference === invoice.id);
    // to two addresses (a repeat to one address within a minute is answered, not sent again)
    for (const to of ["cliente@test.example", "contabilidad@cliente.example"]) {
      expect((await (await deliver(invoice, { to })).json()).status).toBe("enviada");
    }
    expect(asked()).toHaveLength(1);
    expect(mail.messages).toHaveLength(2);
    // two packages, two names (each delivery is one of the issuer's packages sent), the same files
    const [first, second] = mail.messages.map((m) => {
      const [[name, zip] = ["", new Uint8Array()]] = [...(mail.content(m.reference)?.attachments ?? [])];
      return { name, files: unzipSync(zip) };
    });
    expect(first?.name).not.toBe(second?.name);
    expect(Object.values(second?.files ?? {})).toEqual(Object.values(first?.files ?? {}));
    expect(await xmlObjects(invoice)).toHaveLength(1);
  });
});

describe("a provider that cannot return the XML", () => {
  const cases = [
    { when: "fails (503)", fault: "error", status: 502 },
    { when: "does not answer in time", fault: "hang", status: 504 },
    { when: "answers something that is not the AttachedDocument", fault: "malformed", status: 502 },
  ] as const;

  it.each(cases)(
    "$when: the delivery is `error`, says why, and nothing is e-mailed",
    async ({ fault, status }) => {
      const invoice = await transmitted();
      tax.setKnobs({ failNext: [{ kind: fault, on: "attached_document" }] });
      const response = await deliver(invoice);
      expect(response.status).toBe(status);
      expect((await response.json()).error.message).toMatch(/AttachedDocument/);
      await expectNothingSent(invoice);

      // the next delivery, with the provider back, sends it
      expect((await (await deliver(invoice)).json()).status).toBe("enviada");
      expect(mail.messages).toHaveLength(1);
    },
  );

  it("does not hold the invoice (404 document_not_found): the delivery is `error`, nothing is e-mailed", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const response = await deliver(invoice);
    expect(response.status).toBe(502);
    expect((await response.json()).error.message).toMatch(/AttachedDocument download \(HTTP 404\)/);
    await expectNothingSent(invoice);
  });

  it("is not configured (no adapter-tax credential): 422, the delivery is `error`, nothing is e-mailed", async () => {
    const other = await createTenant(db);
    await saveCredential(t.deps, other, { url: `${PROVIDERS}/deliver`, service: "deliver" });
    const invoice = await createInvoice(db, other.org, other.company, { status: "transmitida" });
    const response = await t.post(
      "/deliver",
      { org_id: other.org.id, invoice_id: invoice.id },
      await t.token(other.operador),
    );
    expect(response.status).toBe(422);
    await expectNothingSent(invoice);
  });

  async function expectNothingSent(invoice: Pick<Invoice, "id">): Promise<void> {
    const [record, ...more] = await deliveriesOf(invoice);
    expect(more).toEqual([]);
    expect(record).toMatchObject({ status: "error", attachments: null });
    expect(record?.message).toMatch(/AttachedDocument \(XML\) could not be obtained/);
    expect(record?.message).toMatch(/PDF alone is not a complete delivery/);
    expect(mail.received).toEqual([]);
    expect(await xmlObjects(invoice)).toEqual([]);
  }
});
