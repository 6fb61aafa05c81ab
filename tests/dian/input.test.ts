import { describe, expect, it } from "vitest";
import { dianCreditNote, dianInvoice } from "../../devkit/dian/documents.ts";
import { DianMode, dianInputProblem } from "../../shared/providers/dian/input.ts";

describe("DIAN mode's input", () => {
  it("takes an invoice in its resolution's range, prefix and period, and a credit note without one", () => {
    const invoice = dianInvoice(1);
    expect(dianInputProblem(invoice)).toBeNull();
    expect(dianInputProblem(dianCreditNote(invoice, "a".repeat(96)))).toBeNull();
    const edges = [invoice.dian.resolution?.from, invoice.dian.resolution?.to].map((n) =>
      dianInvoice(1, (d) => Object.assign(d, { number: `SETP${n}` })),
    );
    for (const edge of edges) expect(dianInputProblem(edge)).toBeNull();
  });

  it.each([
    [
      "a software id too long",
      (i: ReturnType<typeof dianInvoice>) => Object.assign(i.dian.software, { id: "x".repeat(101) }),
      /software\.id/,
    ],
    [
      "an empty PIN",
      (i: ReturnType<typeof dianInvoice>) => Object.assign(i.dian.software, { pin: " " }),
      /software\.pin/,
    ],
    [
      "a provider NIT with letters",
      (i: ReturnType<typeof dianInvoice>) => Object.assign(i.dian.software, { provider_nit: "90012345A" }),
      /provider_nit/,
    ],
    [
      "a range that ends before it starts",
      (i: ReturnType<typeof dianInvoice>) => Object.assign(i.dian.resolution ?? {}, { from: "995000001" }),
      /resolution\.to: from must not exceed to/,
    ],
    [
      "a period that ends before it starts",
      (i: ReturnType<typeof dianInvoice>) =>
        Object.assign(i.dian.resolution ?? {}, { end_date: "2018-01-01" }),
      /resolution\.end_date/,
    ],
    [
      "a lowercase prefix",
      (i: ReturnType<typeof dianInvoice>) => Object.assign(i.dian.resolution ?? {}, { prefix: "setp" }),
      /resolution\.prefix/,
    ],
    [
      "an invoice without its technical key",
      (i: ReturnType<typeof dianInvoice>) => Object.assign(i.document.issuer, { technical_key: undefined }),
      /technical key/,
    ],
    [
      "a number that is not the prefix and a consecutive",
      (i: ReturnType<typeof dianInvoice>) => Object.assign(i.document, { number: "SETPX990000001" }),
      /not the prefix and a consecutive/,
    ],
    [
      "a date before the period",
      (i: ReturnType<typeof dianInvoice>) => Object.assign(i.document, { issue_date: "2019-01-18" }),
      /outside the resolution's period/,
    ],
  ])("refuses %s", (_name, change, message) => {
    const input = dianInvoice(1);
    change(input);
    expect(dianInputProblem(input)).toMatch(message);
  });

  it("refuses a credit note that names no invoice", () => {
    const note = dianCreditNote(dianInvoice(1), "a".repeat(96));
    note.document.correction = undefined;
    expect(dianInputProblem(note)).toMatch(/needs the invoice it corrects/);
  });

  it("parses DIAN mode's settings with their bounds", () => {
    expect(DianMode.safeParse({ software: { id: "s", pin: "p" } }).success).toBe(true);
    expect(DianMode.safeParse({ software: { id: "s" } }).success).toBe(false);
  });
});
