/**
 * Random drafts within the bounds (tests/support/random-drafts.ts: several taxes a line by rate and
 * per unit, line and document discounts and charges, withholdings, advances, pesos or dollars),
 * computed by the database, sent through the invoice's pre-send checks and built into DIAN's UBL by
 * our builder, are judged by the DIAN stand-in's own rule code, which reads the XML alone
 * (sandbox/dian/rules-amounts.ts: FAU02/04/06/08/14, FAS01b/02/04/07, FAX01/02/04/07, FAT01/02/04/07/
 * 12/13, FAV06, VLR01; sandbox/dian/rules-content.ts: the dates, the currency and its rate, the
 * parties, the payment, the discounts' codes), with the tolerance its knobs start with: none breaks
 * a rule; nor do the credit notes over them, a part of a line then the rest (their rules' CA… ids).
 * And one document of them, its PayableAmount moved by a cent, breaks FAU14 and only FAU14:
 * the rules do look at what they are given.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { TEST_SOFTWARE } from "../../devkit/dian/documents.ts";
import { createTenant, setInvoiceStatus, type Tenant } from "../../devkit/factories.ts";
import { readDocument } from "../../sandbox/dian/document.ts";
import { onePerRule, type RuleFinding } from "../../sandbox/dian/finding.ts";
import { DEFAULT_DIAN_KNOBS, ruleSettings } from "../../sandbox/dian/knobs.ts";
import { amountFindings } from "../../sandbox/dian/rules-amounts.ts";
import { declaredFindings } from "../../sandbox/dian/rules-content.ts";
import { parseXml } from "../../sandbox/dian/xml-read.ts";
import { prepareCreditNote } from "../../shared/core/credit-notes/document.ts";
import type { PreparedDocument } from "../../shared/core/documents/kind.ts";
import { prepareInvoice } from "../../shared/core/invoices/document.ts";
import type { CreditNoteDocumentRow, InvoiceDocumentRow } from "../../shared/kernel/rows.ts";
import { dianInput } from "../../shared/providers/dian/transmission.ts";
import { buildUnsignedDocument } from "../../shared/providers/dian/ubl.ts";
import { serialise } from "../../shared/providers/dian/xml.ts";
import { type Draft, randomDraft, writeDraft } from "../support/random-drafts.ts";

let db: TestDatabase;
let tenant: Tenant;
beforeAll(async () => {
  db = await createTestDatabase();
  tenant = await createTenant(db);
});
afterAll(() => db?.close());

let numbered = 0;

/**
 * The draft written, computed, checked before sending and built: the XML DIAN mode would sign; null
 * for a draft that is no document yet, the database's own problems with it (discounts or advances and
 * withholdings above what it comes to, ReteIVA without IVA) being all /transmit refuses it for.
 */
async function built(draft: Draft): Promise<{ id: string; xml: string } | null> {
  const id = await writeDraft(db, tenant, draft, `SETP${994_000_000 + numbered++}`);
  const [row] = await db.superuser<{ doc: InvoiceDocumentRow }>(
    "select einv_private.invoice_payload(i.id, einv_private.issuer_of(i.company_id)) as doc from public.invoices i where i.id = $1",
    [id],
  );
  if (!row) throw new Error("no payload");
  const prepared = prepareInvoice(row.doc, "uat");
  if (!prepared.ok) {
    const own = row.doc.problems ?? [];
    if (own.length > 0 && prepared.problems.every((p) => own.includes(p))) return null;
    throw new Error(`refused before sending: ${prepared.problems.join("; ")}`);
  }
  return { id, xml: await xmlOf(prepared) };
}

/** The UBL our builder makes of a request (unsigned: the rules below read no signature). */
async function xmlOf(prepared: PreparedDocument): Promise<string> {
  if (!prepared.ok) throw new Error(`refused before sending: ${prepared.problems.join("; ")}`);
  const unsigned = await buildUnsignedDocument(dianInput(prepared.request, TEST_SOFTWARE));
  return new TextDecoder().decode(serialise(unsigned.root, unsigned.namespaces));
}

/** The credit notes of an invoice, each as DIAN mode would build it. */
async function creditNotesXml(invoiceId: string): Promise<string[]> {
  const rows = await db.superuser<{ doc: CreditNoteDocumentRow }>(
    `select einv_private.credit_note_payload(n.id, einv_private.issuer_of(n.company_id)) as doc
       from public.credit_notes n where n.invoice_id = $1 order by n.number`,
    [invoiceId],
  );
  return Promise.all(rows.map(({ doc }) => xmlOf(prepareCreditNote(doc, "uat"))));
}

/** What the stand-in's content rules find in `xml`, read from the XML alone, one per rule. */
function findings(xml: string): RuleFinding[] {
  const root = parseXml(xml).documentElement;
  const doc = root && readDocument(root);
  if (!doc) throw new Error("neither an invoice nor a credit note");
  const settings = ruleSettings(DEFAULT_DIAN_KNOBS, new Date());
  return onePerRule([...amountFindings(doc, settings), ...declaredFindings(doc, settings)]);
}

describe("random drafts, as DIAN's stand-in judges their XML", () => {
  it("break none of its arithmetic or content rules", async () => {
    await fc.assert(
      fc.asyncProperty(randomDraft, async (draft) => {
        const invoice = await built(draft);
        fc.pre(invoice !== null);
        expect(findings(invoice.xml)).toEqual([]);
      }),
      { numRuns: 150, endOnFailure: true },
    );
  }, 240_000);

  it("nor do the credit notes over them, a part of a line and then the rest (CAU…, CAV06, CAS…)", async () => {
    const share = fc.integer({ min: 1, max: 99 });
    let partial = 0;
    await fc.assert(
      fc.asyncProperty(randomDraft, share, async (draft, percent) => {
        const sent = await built({ ...draft, prepayments: [], withholdings: [] });
        fc.pre(sent !== null);
        const [invoice] = await db.superuser<{ id: string; line_id: string; quantity: string }>(
          `select l.invoice_id as id, l.id as line_id, trim_scale(l.quantity)::text as quantity
             from public.invoice_lines l where l.invoice_id = $1 order by l.position limit 1`,
          [sent.id],
        );
        if (!invoice) throw new Error("no line");
        await setInvoiceStatus(db, invoice.id, "transmitida");
        const part = ((Number(invoice.quantity) * percent) / 100).toFixed(6);
        if (Number(part) > 0) {
          await db
            .superuser(
              "select public.einv_credit_note_create($1, $2, '1', 'Devolución', $3::text::jsonb, $4, 60, now())",
              [
                tenant.org.id,
                invoice.id,
                JSON.stringify([{ line_id: invoice.line_id, quantity: part }]),
                tenant.operador.id,
              ],
            )
            .then(() => partial++)
            // refused when a part rounds below a cent of base, or when the invoice has discounts or
            // charges of its own (only an annulment credits those): then the one note is the whole
            .catch((error: { message?: string }) =>
              expect(error.message).toMatch(/^(credit_below_a_cent|document_allowances_need_annulment)/),
            );
        }
        await db.superuser(
          "select public.einv_credit_note_create($1, $2, '2', 'Anulación', null, $3, 60, now())",
          [tenant.org.id, invoice.id, tenant.operador.id],
        );
        const notes = await creditNotesXml(invoice.id);
        expect(notes.length).toBeGreaterThanOrEqual(1);
        for (const note of notes) expect(findings(note)).toEqual([]);
      }),
      { numRuns: 40, endOnFailure: true },
    );
    // partial notes were among them, not only annulments
    expect(partial).toBeGreaterThan(0);
  }, 240_000);

  it("break FAU14 alone when the PayableAmount is a cent off", async () => {
    const [draft] = fc.sample(randomDraft, { numRuns: 1, seed: 36 });
    if (!draft) throw new Error("no draft");
    const sent = await built({ ...draft, withholdings: [], prepayments: [], allowance_charges: [] });
    if (!sent) throw new Error("the draft was refused");
    const xml = sent.xml;
    const broken = xml.replace(
      /(<cac:LegalMonetaryTotal>[\s\S]*<cbc:PayableAmount currencyID="COP">)(\d+)\.(\d{2})</,
      (_, head: string, whole: string, cents: string) => {
        const moved = BigInt(whole) * 100n + BigInt(cents) + 1n;
        return `${head}${moved / 100n}.${String(moved % 100n).padStart(2, "0")}<`;
      },
    );
    expect(broken).not.toBe(xml);
    expect(findings(broken).map((f) => f.code)).toEqual(["FAU14"]);
  }, 60_000);
});
