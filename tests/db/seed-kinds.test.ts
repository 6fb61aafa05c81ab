/**
 * The demo seed (supabase/seed.sql) carries one invoice of each kind of content for each of Demo
 * Org's companies, written with the very inputs devkit/demo-kinds.ts (and docs/creating-invoices.md)
 * gives a web app; the database computes from them the amounts worked by hand there, to the cent;
 * none has a problem that would keep it from being sent; and each becomes a provider request that
 * carries them (the sandbox and DIAN mode get that request).
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { DEMO_KINDS, type DemoKind, dueInThirtyDays } from "../../devkit/demo-kinds.ts";
import { prepareInvoice } from "../../shared/core/invoices/document.ts";
import type { InvoiceDocumentRow } from "../../shared/kernel/rows.ts";

const SEED = readFileSync(new URL("../../supabase/seed.sql", import.meta.url), "utf8");
const COMPANIES = {
  sandbox: "c1111111-1111-4111-8111-111111111111",
  dian: "c3333333-3333-4333-8333-333333333333",
} as const;

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.client.exec(SEED);
}, 120_000);
afterAll(() => db?.close());

/** The columns of the draft a kind writes, as the seed stored them (JSON, as PostgREST would answer). */
async function stored(number: string) {
  const [invoice] = await db.superuser<Record<string, unknown>>(
    "select to_jsonb(i) as row from public.invoices i where number = $1",
    [number],
  );
  const lines = await db.superuser<{ row: Record<string, unknown> }>(
    `select to_jsonb(l) as row from public.invoice_lines l
      where l.invoice_id = (select id from public.invoices where number = $1) order by l.position`,
    [number],
  );
  return { invoice: (invoice as { row: Record<string, unknown> }).row, lines: lines.map((l) => l.row) };
}

async function payload(number: string): Promise<InvoiceDocumentRow> {
  const [row] = await db.superuser<{ doc: InvoiceDocumentRow }>(
    `select einv_private.invoice_payload(i.id, einv_private.issuer_of(i.company_id)) as doc
       from public.invoices i where number = $1`,
    [number],
  );
  if (!row) throw new Error(`no invoice ${number}`);
  return row.doc;
}

const cases = DEMO_KINDS.flatMap((kind) =>
  (["sandbox", "dian"] as const).map(
    (mode) => [kind.key, mode, kind] as [string, "sandbox" | "dian", DemoKind],
  ),
);

describe.each(cases)("the seeded %s invoice (%s)", (_key, mode, kind) => {
  const number = kind.numbers[mode];

  it("is the draft a web app writes, for its company, pendiente", async () => {
    const { invoice, lines } = await stored(number);
    expect(invoice).toMatchObject({ company_id: COMPANIES[mode], status: "pendiente", ...kind.invoice });
    expect(invoice.due_date).toBe(kind.invoice.payment_form === "2" ? dueInThirtyDays() : null);
    expect(lines).toHaveLength(kind.lines.length);
    kind.lines.forEach((line, i) => {
      expect(lines[i]).toMatchObject({ allowance_charges: [], ...line });
    });
  });

  it("comes to the amounts worked by hand, and has no problem", async () => {
    const doc = await payload(number);
    const e = kind.expected;
    const money = (value: number | undefined) => (value ?? 0).toFixed(2);
    expect({
      subtotal: money(doc.subtotal),
      tax_exclusive: money(doc.tax_exclusive_amount),
      taxes: Object.fromEntries(doc.tax_totals.map((t) => [t.code, money(t.tax_amount)])),
      tax_inclusive: money(doc.tax_inclusive_amount),
      allowances: money(doc.allowance_total_amount),
      charges: money(doc.charge_total_amount),
      payable: money(doc.total),
      prepaid: money(doc.prepaid_amount),
      withholdings: Object.fromEntries(
        (doc.withholding_totals ?? []).map((w) => [w.code, money(w.tax_amount)]),
      ),
      net: money(doc.net_payable_amount),
    }).toEqual({ ...e, deal: undefined });
    if (e.deal) {
      expect({
        currency: doc.currency,
        subtotal: money(doc.currency_totals?.line_extension_amount),
        tax_total: money(doc.currency_totals?.tax_total),
        total: money(doc.currency_totals?.payable_amount),
      }).toEqual(e.deal);
    }
    expect(doc.problems).toEqual([]);
  });

  it("becomes a provider request that carries them", async () => {
    const prepared = prepareInvoice(await payload(number), "uat");
    if (!prepared.ok) throw new Error(prepared.problems.join("; "));
    const request = prepared.request;
    const e = kind.expected;
    expect(request.currency).toBe("COP");
    expect(request.totals).toMatchObject({
      subtotal: e.subtotal,
      tax_exclusive_amount: e.tax_exclusive,
      tax_inclusive_amount: e.tax_inclusive,
      total: e.payable,
      net_payable_amount: e.net,
    });
    expect(Object.fromEntries(request.tax_totals.map((t) => [t.code, t.tax_amount]))).toEqual(e.taxes);
    expect(Object.fromEntries((request.withholdings ?? []).map((w) => [w.code, w.tax_amount]))).toEqual(
      e.withholdings,
    );
    expect(request.exchange_rate?.currency).toBe(e.deal?.currency);
  });
});
