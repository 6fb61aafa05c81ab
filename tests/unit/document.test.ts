/** Pre-send checks: what makes an invoice unsendable, said precisely, and the request it becomes. */
import { describe, expect, it } from "vitest";
import { demoInvoice, line, withLines } from "../../devkit/pdf/fixtures.ts";
import { prepareInvoice } from "../../shared/core/invoices/document.ts";
import type { InvoiceDocumentRow } from "../../shared/kernel/rows.ts";

const problems = (doc: InvoiceDocumentRow) => {
  const prepared = prepareInvoice(doc, "uat");
  return prepared.ok ? [] : prepared.problems;
};

describe("prepareInvoice", () => {
  it("turns a valid invoice into the provider's request, money as exact strings", () => {
    const prepared = prepareInvoice(demoInvoice(), "uat");
    expect(prepared.ok).toBe(true);
    if (!prepared.ok) return;
    expect(prepared.request).toMatchObject({
      kind: "invoice",
      environment: "uat",
      number: "SETP990000201",
      issue_time: "10:15:00-05:00",
      totals: { subtotal: "111000.00", tax_total: "19000.00", total: "130000.00" },
    });
    expect(prepared.request.lines[0]).toMatchObject({
      quantity: "2",
      unit_price: "50000.00",
      tax_rate: "19.00",
    });
  });

  it("names every missing field and every arithmetic mistake", () => {
    const doc = demoInvoice();
    const bad = {
      ...doc,
      buyer_name: null,
      total: doc.total + 0.01,
      lines: doc.lines.map((l, i) => (i === 0 ? { ...l, line_extension: 100_000.01 } : l)),
    };
    expect(problems(bad)).toEqual([
      "buyer_name is missing",
      "line 1: line_extension 100000.01 ≠ quantity × unit_price = 100000.00",
      "subtotal 111000.00 ≠ sum of line_extension 111000.01",
      "total 130000.01 ≠ subtotal + tax_total 130000.00",
    ]);
  });

  it("rounds tax half up to the cent", () => {
    const doc = withLines(demoInvoice(), [line(1, 1, 0.5, 19)]); // 0.095 → 0.10
    expect(doc.lines[0]?.tax_amount).toBe(0.1);
    expect(problems(doc)).toEqual([]);
  });

  it("checks the number against the company's prefix, range and resolution dates", () => {
    const doc = demoInvoice();
    expect(problems({ ...doc, number: "FE990000201" })).toEqual([
      'number FE990000201 must be the prefix "SETP" followed by digits',
    ]);
    expect(problems({ ...doc, number: "SETP1" })).toEqual([
      "number SETP1 is outside the authorised range 990000000–995000000",
    ]);
    expect(problems({ ...doc, issue_date: "2031-01-01" })).toEqual([
      "the numbering resolution expired on 2030-01-19, before the issue date 2031-01-01",
    ]);
  });

  it("refuses amounts too large to add up exactly", () => {
    expect(problems({ ...demoInvoice(), total: 10_000_000_000_000 })).toEqual([
      "amounts of 1,000,000,000,000 or more cannot be processed",
    ]);
  });
});
