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
      currency: "COP",
      totals: {
        subtotal: "111000.00",
        tax_exclusive_amount: "111000.00",
        tax_total: "19000.00",
        tax_inclusive_amount: "130000.00",
        total: "130000.00",
        net_payable_amount: "130000.00",
      },
      tax_totals: [
        {
          code: "01",
          name: "IVA",
          tax_amount: "19000.00",
          subtotals: [
            { percent: "0.00", taxable_amount: "11000.00", tax_amount: "0.00" },
            { percent: "19.00", taxable_amount: "100000.00", tax_amount: "19000.00" },
          ],
        },
      ],
    });
    expect(prepared.request.lines[0]).toMatchObject({
      quantity: "2",
      unit_price: "50000.00",
      taxes: [
        { code: "01", name: "IVA", percent: "19.00", taxable_amount: "100000.00", tax_amount: "19000.00" },
      ],
    });
    expect(prepared.request.buyer).toMatchObject({
      person_type: "1",
      fiscal_responsibilities: ["R-99-PN"],
      tax_scheme: "ZZ",
      country_code: "CO",
    });
    expect(prepared.request.issuer).toMatchObject({ tax_scheme: "01", fiscal_responsibilities: ["R-99-PN"] });
  });

  it("names every missing field, and the problems the database found in its amounts", () => {
    const doc = demoInvoice();
    expect(problems({ ...doc, buyer_name: null })).toEqual(["buyer_name is missing"]);
    const problem =
      "allowance_charges: the invoice's discounts (200000.00) exceed its amount with taxes and charges (130000.00)";
    expect(problems({ ...doc, problems: [problem] })).toEqual([problem]);
  });

  it("reads every amount again on the request, and names each one that does not follow", () => {
    const doc = demoInvoice();
    const bad = {
      ...doc,
      total: doc.total + 0.01,
      lines: doc.lines.map((l, i) => (i === 0 ? { ...l, line_extension: 100_000.01 } : l)),
    };
    expect(problems(bad)).toEqual([
      "line 1: line_extension 100000.01 ≠ quantity × unit_price − discounts + charges = 100000.00",
      "line 1: taxes 01 taxable_amount 100000.00 ≠ line_extension",
      "totals.total 130000.01 ≠ 130000.00",
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
