/**
 * Random drafts within the bounds (tests/support/random-drafts.ts: several taxes a line by rate and
 * per unit, line and document discounts and charges, withholdings, advances, pesos or dollars),
 * computed by the database, sent through the invoice's pre-send checks and built into DIAN's UBL by
 * our builder, are judged by the DIAN stand-in's own rule code, which reads the XML alone
 * (sandbox/dian/rules-amounts.ts: FAU02/04/06/08/14, FAS01b/02/04/07, FAX01/02/04/07, FAT01/02/04/07/
 * 12/13, FAV06, VLR01; sandbox/dian/rules-content.ts: the dates, the currency and its rate, the
 * parties, the payment, the discounts' codes), with the tolerance its knobs start with: none breaks
 * a rule. And one document of them, its PayableAmount moved by a cent, breaks FAU14 and only FAU14:
 * the rules do look at what they are given.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { TEST_SOFTWARE } from "../../devkit/dian/documents.ts";
import { createTenant, type Tenant } from "../../devkit/factories.ts";
import { readDocument } from "../../sandbox/dian/document.ts";
import { onePerRule, type RuleFinding } from "../../sandbox/dian/finding.ts";
import { DEFAULT_DIAN_KNOBS, ruleSettings } from "../../sandbox/dian/knobs.ts";
import { amountFindings } from "../../sandbox/dian/rules-amounts.ts";
import { declaredFindings } from "../../sandbox/dian/rules-content.ts";
import { parseXml } from "../../sandbox/dian/xml-read.ts";
import { prepareInvoice } from "../../shared/core/invoices/document.ts";
import type { InvoiceDocumentRow } from "../../shared/kernel/rows.ts";
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
async function built(draft: Draft): Promise<string | null> {
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
  const unsigned = await buildUnsignedDocument(dianInput(prepared.request, TEST_SOFTWARE));
  return new TextDecoder().decode(serialise(unsigned.root, unsigned.namespaces));
}

/** What the stand-in's content rules find in `xml`, read from the XML alone, one per rule. */
function findings(xml: string): RuleFinding[] {
  const root = parseXml(xml).documentElement;
  const doc = root && readDocument(root);
  if (!doc) throw new Error("not an invoice");
  const settings = ruleSettings(DEFAULT_DIAN_KNOBS, new Date());
  return onePerRule([...amountFindings(doc, settings), ...declaredFindings(doc, settings)]);
}

describe("random drafts, as DIAN's stand-in judges their XML", () => {
  it("break none of its arithmetic or content rules", async () => {
    await fc.assert(
      fc.asyncProperty(randomDraft, async (draft) => {
        const xml = await built(draft);
        fc.pre(xml !== null);
        expect(findings(xml)).toEqual([]);
      }),
      { numRuns: 150, endOnFailure: true },
    );
  }, 240_000);

  it("break FAU14 alone when the PayableAmount is a cent off", async () => {
    const [draft] = fc.sample(randomDraft, { numRuns: 1, seed: 36 });
    if (!draft) throw new Error("no draft");
    const xml = await built({ ...draft, withholdings: [], prepayments: [], allowance_charges: [] });
    if (!xml) throw new Error("the draft was refused");
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
