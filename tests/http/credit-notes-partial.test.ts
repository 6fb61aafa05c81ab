/**
 * Partial credit notes through the real app and database, with the sandbox provider at the network
 * edge: a return of some units (concept 1) or a discount of a base amount (concepts 3–6) of a line,
 * its tax at the line's rate rounded to the cent, the note's totals and CUDE, and the UBL the
 * authority holds; each line's balance across notes (what stands, what is discarded, what an
 * annulment or a whole line takes afterwards); and the shapes the request refuses.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TestApp } from "../../devkit/app.ts";
import { SANDBOX_KEY } from "../../devkit/credentials.ts";
import type { TestDatabase } from "../../devkit/database.ts";
import { createInvoice, type Invoice, type LineInput, type Tenant } from "../../devkit/factories.ts";
import { documentTexts } from "../../devkit/pdf/support.ts";
import { createSandboxProvider, type SandboxProvider } from "../../sandbox/provider.ts";
import { sandboxSigners } from "../../sandbox/signers.ts";
import { computeCude } from "../../shared/co/cufe.ts";
import { createTaxClient } from "../../shared/providers/tax/client.ts";
import {
  expectSignedAttachedDocument,
  readAttachedDocument,
  sandboxCa,
  text,
  type XmlNode,
} from "../support/attached-document.ts";
import { openRouteSuite } from "../support/route-suite.ts";

let db: TestDatabase;
let t: TestApp;
let sandbox: SandboxProvider;
let tenant: Tenant;
let token: string;

// the sandbox signs AttachedDocuments with certificates it generates once per process (~0.4 s):
// generated before the timed provider calls that fetch them
beforeAll(() => sandboxSigners(), 60_000);
beforeAll(async () => {
  sandbox = createSandboxProvider();
  // a body of 1,001 lines (66 kB) reaches the schema's bound rather than the default body limit
  ({ db, t, tenant, token } = await openRouteSuite({
    env: { EINV_MAX_BODY_BYTES: "262144" },
    providerFetch: sandbox.fetch,
  }));
});
afterAll(() => db?.close());
beforeEach(() => sandbox.reset());

/**
 * 10 × 33.333,33 at 19 % (333.333,30, tax 63.333,33), 1 × 10.000 exempt, 2 × 1.500 at 19 %. The first
 * line's price has cents, so a part's base and its tax both round.
 */
const LINES: LineInput[] = [
  { description: "Licencia anual", quantity: 10, unitPrice: 33_333.33, taxRate: 19 },
  { description: "Libro técnico (exento)", quantity: 1, unitPrice: 10_000, taxRate: 0 },
  { description: "Cable", quantity: 2, unitPrice: 1_500, taxRate: 19 },
];

async function transmitted(): Promise<Invoice> {
  const invoice = await createInvoice(db, tenant.org, tenant.company, { lines: LINES });
  const response = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] }, token);
  expect((await response.json()).results[0].status).toBe("transmitida");
  return invoice;
}

const note = (body: Record<string, unknown>) =>
  t.post("/credit-notes", { org_id: tenant.org.id, concept_code: "1", reason: "Devolución", ...body }, token);

/** A note that must be made: its answer's body. */
async function made(body: Record<string, unknown>): Promise<{ credit_note_id: string; status: string }> {
  const response = await note(body);
  expect(response.status, JSON.stringify(await response.clone().json())).toBe(200);
  return response.json();
}

const noteRow = async (id: string) =>
  (
    await db.superuser<Record<string, string>>(
      `select number, status, authority_code, issue_date::text, subtotal::text, tax_total::text, total::text
         from credit_notes where id = $1`,
      [id],
    )
  )[0];

const noteLines = (id: string) =>
  db.superuser<Record<string, string>>(
    `select invoice_line_id::text, unit_code, trim_scale(quantity)::text as quantity, unit_price::text,
            line_extension::text, tax_amount::text, trim_scale(credited_quantity)::text as credited_quantity
       from credit_note_lines where credit_note_id = $1 order by position`,
    [id],
  );

/** The CUDE, recomputed here from the note and its invoice as stored. */
async function expectedCude(id: string, iva: string): Promise<string> {
  const [row] = await db.superuser<Record<string, string>>(
    `select n.number, n.issue_date::text, n.issue_time::text, n.subtotal::text, n.total::text, i.buyer_id_number
       from credit_notes n join invoices i on i.id = n.invoice_id where n.id = $1`,
    [id],
  );
  return computeCude({
    number: String(row?.number),
    issueDate: String(row?.issue_date),
    issueTime: `${row?.issue_time}:00`, // "10:15:00-05" → "10:15:00-05:00"
    subtotal: String(row?.subtotal),
    iva,
    inc: "0.00",
    ica: "0.00",
    total: String(row?.total),
    issuerNit: tenant.company.nit,
    buyerId: String(row?.buyer_id_number),
    softwarePin: "75315",
    environment: "uat",
  });
}

/**
 * The CreditNote the sandbox authority holds for an accepted note, read from its AttachedDocument
 * once every signature in that is verified and every document in it validated.
 */
async function authorityCreditNote(id: string): Promise<XmlNode> {
  const client = createTaxClient({
    baseUrl: "http://sandbox.local",
    apiKey: SANDBOX_KEY,
    timeoutMs: 1_000,
    fetch: sandbox.fetch,
  });
  const code = String((await noteRow(id))?.authority_code);
  const bytes = await client.attachedDocument(id, { authorityCode: code });
  await expectSignedAttachedDocument(bytes, await sandboxCa(sandbox.fetch), "credit_note");
  return readAttachedDocument(bytes).document;
}

describe("a partial credit note", () => {
  it("returns 3 of 10 units at the line's price: base, tax rounded to the cent, totals, CUDE, PDF and UBL agree", async () => {
    const invoice = await transmitted();
    const [line] = invoice.lineIds;
    const { credit_note_id: id, status } = await made({
      invoice_id: invoice.id,
      lines: [{ line_id: line, quantity: "3" }],
    });
    expect(status).toBe("emitida");

    // 3 × 33.333,33 = 99.999,99; 19 % of it is 18.999,9981, so 19.000,00
    expect(await noteLines(id)).toEqual([
      {
        invoice_line_id: line,
        unit_code: "94",
        quantity: "3",
        unit_price: "33333.33",
        line_extension: "99999.99",
        tax_amount: "19000.00",
        credited_quantity: "3",
      },
    ]);
    const row = await noteRow(id);
    expect(row).toMatchObject({ subtotal: "99999.99", tax_total: "19000.00", total: "118999.99" });
    expect(row?.authority_code).toBe(await expectedCude(id, "19000.00"));

    const ubl = await authorityCreditNote(id);
    expect(text(ubl["cbc:LineCountNumeric"])).toBe("1");
    expect(text(ubl["cac:DiscrepancyResponse"]["cbc:ResponseCode"])).toBe("1");
    const credited = ubl["cac:CreditNoteLine"];
    expect(credited["cbc:CreditedQuantity"]).toEqual({ "#text": "3", "@unitCode": "94" });
    expect(text(credited["cbc:LineExtensionAmount"])).toBe("99999.99");
    expect(text(credited["cac:TaxTotal"]["cbc:TaxAmount"])).toBe("19000.00");
    expect(text(credited["cac:Price"]["cbc:PriceAmount"])).toBe("33333.33");
    expect(text(ubl["cac:TaxTotal"]["cac:TaxSubtotal"]["cbc:TaxableAmount"])).toBe("99999.99");
    expect(text(ubl["cac:LegalMonetaryTotal"]["cbc:LineExtensionAmount"])).toBe("99999.99");
    expect(text(ubl["cac:LegalMonetaryTotal"]["cbc:PayableAmount"])).toBe("118999.99");

    // the note's PDF prints the units returned and what they are worth
    const represented = await t.post(
      "/credit-notes/representation",
      { org_id: tenant.org.id, credit_note_id: id },
      token,
    );
    const pdf = (await documentTexts(readFileSync(t.documents.file((await represented.json()).path)))).flat();
    expect(pdf).toEqual(expect.arrayContaining(["3", "$ 33.333,33", "$ 99.999,99", "$ 118.999,99"]));
  });

  it("credits a 2 % prompt-payment discount by amount (concept 5): one unit of it, its tax rounded half up", async () => {
    const invoice = await transmitted();
    const [line] = invoice.lineIds;
    const { credit_note_id: id } = await made({
      invoice_id: invoice.id,
      concept_code: "5",
      reason: "Descuento pronto pago 2 %",
      lines: [{ line_id: line, amount: "2631.50" }],
    });
    // 19 % of 2.631,50 is 499,985: half a cent, rounded away from zero (as the invoice's own tax)
    expect(await noteLines(id)).toEqual([
      {
        invoice_line_id: line,
        unit_code: "94",
        quantity: "1",
        unit_price: "2631.50",
        line_extension: "2631.50",
        tax_amount: "499.99",
        credited_quantity: "0",
      },
    ]);
    const row = await noteRow(id);
    expect(row).toMatchObject({
      status: "emitida",
      subtotal: "2631.50",
      tax_total: "499.99",
      total: "3131.49",
    });
    expect(row?.authority_code).toBe(await expectedCude(id, "499.99"));

    const ubl = await authorityCreditNote(id);
    expect(text(ubl["cac:DiscrepancyResponse"]["cbc:ResponseCode"])).toBe("5");
    expect(ubl["cac:CreditNoteLine"]["cbc:CreditedQuantity"]).toEqual({ "#text": "1", "@unitCode": "94" });
    expect(text(ubl["cac:CreditNoteLine"]["cbc:LineExtensionAmount"])).toBe("2631.50");
    expect(text(ubl["cac:TaxTotal"]["cbc:TaxAmount"])).toBe("499.99");
    expect(text(ubl["cac:LegalMonetaryTotal"]["cbc:PayableAmount"])).toBe("3131.49");
  });
});

describe("a line's balance across notes", () => {
  it("subtracts the units and base of every note that stands; more is 422 naming the line and what is left", async () => {
    const invoice = await transmitted();
    const [line, other] = invoice.lineIds;
    await made({ invoice_id: invoice.id, lines: [{ line_id: line, quantity: "4" }] }); // 133.333,32
    await made({
      invoice_id: invoice.id,
      concept_code: "4",
      lines: [{ line_id: line, amount: "100000.00" }],
    });
    // left: 6 units and 99.999,98 of base
    const count = async () =>
      (await db.superuser("select 1 from credit_notes where invoice_id = $1", [invoice.id])).length;
    for (const [concept, part] of [
      ["1", { quantity: "3" }], // 99.999,99 of base: one cent too many
      ["1", { quantity: "7" }],
      ["3", { amount: "99999.99" }],
    ] as const) {
      const response = await note({
        invoice_id: invoice.id,
        concept_code: concept,
        lines: [{ line_id: line, ...part }],
      });
      expect(response.status).toBe(422);
      expect((await response.json()).error).toMatchObject({
        code: "business_rule",
        message: `Line ${line} has 6 unit(s) and 99999.98 of base (before tax) left to credit, counting every credit note that stands; this note asks for more.`,
      });
    }
    expect(await count()).toBe(2);

    // the line in full: what is left of it, 6 units no longer worth 6 × its price, so one unit of 99.999,98
    const { credit_note_id: rest } = await made({ invoice_id: invoice.id, line_ids: [line, other] });
    expect(await noteLines(rest)).toMatchObject([
      {
        unit_code: "94",
        quantity: "1",
        line_extension: "99999.98",
        tax_amount: "19000.00",
        credited_quantity: "6",
      },
      { quantity: "1", unit_price: "10000.00", line_extension: "10000.00", tax_amount: "0.00" },
    ]);
    const [sums] = await db.superuser<{ units: string; base: string }>(
      `select trim_scale(sum(l.credited_quantity))::text as units, sum(l.line_extension)::text as base
         from credit_note_lines l where l.invoice_line_id = $1 and l.released_at is null`,
      [line as string],
    );
    expect(sums).toEqual({ units: "10", base: "333333.30" });
    const more = await note({ invoice_id: invoice.id, lines: [{ line_id: line, quantity: "0.5" }] });
    expect((await more.json()).error.message).toMatch(new RegExp(`^Line ${line} has nothing left to credit`));
  });

  it("an annulment after a partial return takes everything left of every line", async () => {
    const invoice = await transmitted();
    const [first, second, third] = invoice.lineIds;
    await made({ invoice_id: invoice.id, lines: [{ line_id: first, quantity: "3" }] });
    const incomplete = await note({ invoice_id: invoice.id, concept_code: "2", line_ids: [first, second] });
    expect((await incomplete.json()).error.message).toMatch(/1 line\(s\) would be left out/);

    const { credit_note_id: id } = await made({
      invoice_id: invoice.id,
      concept_code: "2",
      reason: "Anulación",
    });
    expect(await noteLines(id)).toEqual([
      {
        invoice_line_id: first,
        unit_code: "94",
        quantity: "7",
        unit_price: "33333.33",
        line_extension: "233333.31", // 333.333,30 − 99.999,99 = 7 × 33.333,33
        tax_amount: "44333.33",
        credited_quantity: "7",
      },
      expect.objectContaining({ invoice_line_id: second, quantity: "1", line_extension: "10000.00" }),
      expect.objectContaining({
        invoice_line_id: third,
        quantity: "2",
        line_extension: "3000.00",
        tax_amount: "570.00",
      }),
    ]);
    expect(await noteRow(id)).toMatchObject({
      subtotal: "246333.31",
      tax_total: "44903.33",
      total: "291236.64",
    });
    expect((await note({ invoice_id: invoice.id, concept_code: "2" })).status).toBe(422);
  });

  it("a discarded note releases what it credited: a rejected return's units are credited again", async () => {
    const invoice = await transmitted();
    const [line] = invoice.lineIds;
    const rejected = await made({
      invoice_id: invoice.id,
      reason: "RECHAZAR",
      lines: [{ line_id: line, quantity: "8" }],
    });
    expect(rejected.status).toBe("error");
    expect((await made({ invoice_id: invoice.id, lines: [{ line_id: line, quantity: "5" }] })).status).toBe(
      "emitida",
    );
    expect((await noteRow(rejected.credit_note_id))?.status).toBe("descartada");
    expect((await made({ invoice_id: invoice.id, lines: [{ line_id: line, quantity: "5" }] })).status).toBe(
      "emitida",
    );
    expect((await note({ invoice_id: invoice.id, lines: [{ line_id: line, quantity: "1" }] })).status).toBe(
      422,
    );
  });
});

describe("the shape of lines", () => {
  it("refuses with 400 naming the field, and nothing is created", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { lines: LINES });
    const [line, other] = invoice.lineIds;
    const one = (part: Record<string, unknown>) => [{ line_id: line, ...part }];
    for (const [body, field] of [
      [{ lines: one({ quantity: "1" }), line_ids: [line] }, "lines"],
      [{ lines: one({ quantity: "0" }) }, "lines.0.quantity"],
      [{ lines: one({ quantity: "0.000" }) }, "lines.0.quantity"],
      [{ lines: one({ quantity: "-1" }) }, "lines.0.quantity"],
      [{ lines: one({ quantity: "1.1234567" }) }, "lines.0.quantity"],
      [{ lines: one({ quantity: "1234567890123" }) }, "lines.0.quantity"],
      [{ lines: one({ quantity: "1e3" }) }, "lines.0.quantity"],
      [{ lines: one({ quantity: "03" }) }, "lines.0.quantity"],
      [{ lines: one({ quantity: 3 }) }, "lines.0.quantity"],
      [{ lines: one({ amount: "10.001" }), concept_code: "3" }, "lines.0.amount"],
      [{ lines: one({ amount: "0.00" }), concept_code: "3" }, "lines.0.amount"],
      [{ lines: one({ amount: "10.00" }) }, "lines.0.amount"], // concept 1 returns quantities
      [{ lines: one({ quantity: "1" }), concept_code: "4" }, "lines.0.quantity"],
      [{ lines: one({ quantity: "1" }), concept_code: "2" }, "lines"],
      [{ lines: one({ quantity: "1", amount: "10.00" }) }, "lines.0"],
      [{ lines: one({}) }, "lines.0"],
      [{ lines: [...one({ quantity: "1" }), ...one({ quantity: "2" })] }, "lines"],
      [{ lines: [] }, "lines"],
      [
        { lines: Array.from({ length: 1001 }, () => ({ line_id: crypto.randomUUID(), quantity: "1" })) },
        "lines",
      ],
      [{ lines: [{ line_id: "x", quantity: "1" }] }, "lines.0.line_id"],
      [{ lines: [{ line_id: other, quantity: "1" }, { quantity: "1" }] }, "lines.1.line_id"],
    ] as const) {
      const response = await note({ invoice_id: invoice.id, ...body });
      expect(response.status, JSON.stringify(body).slice(0, 200)).toBe(400);
      const { error } = await response.json();
      expect(error.code).toBe("validation_failed");
      expect(error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
  });

  it("refuses with 422 a line not of the invoice, and a quantity worth less than a cent", async () => {
    const invoice = await transmitted();
    const stranger = await createInvoice(db, tenant.org, tenant.company, { lines: LINES });
    for (const [lines, message] of [
      [[{ line_id: crypto.randomUUID(), quantity: "1" }], /is not a line of this invoice/],
      [[{ line_id: stranger.lineIds[0], quantity: "1" }], /is not a line of this invoice/],
      // 0,000001 × 1.500 = 0,0015: nothing at two decimals
      [[{ line_id: invoice.lineIds[2], quantity: "0.000001" }], /worth less than a cent/],
    ] as const) {
      const response = await note({ invoice_id: invoice.id, lines });
      expect(response.status).toBe(422);
      expect((await response.json()).error).toMatchObject({
        code: "business_rule",
        message: expect.stringMatching(message),
      });
    }
    const notes = await db.superuser("select 1 from credit_notes where invoice_id = $1", [invoice.id]);
    expect(notes).toEqual([]);
  });
});
