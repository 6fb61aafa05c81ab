/**
 * What a render costs is bounded whatever the data: line wrapping is linear in the text's length,
 * and no document is drawn past MAX_PAGES pages (a 422 instead). Costs are counted — characters
 * measured, pages drawn — never timed.
 */
import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import {
  acceptedFiscal,
  demoInvoice,
  line,
  manyLinesInvoice,
  pendingFiscal,
  withLines,
} from "../../devkit/pdf/fixtures.ts";
import { loadPdf, pageOperators, pageTexts } from "../../devkit/pdf/support.ts";
import { LIMITS, worstCaseInvoice } from "../../devkit/pdf/worst-case.ts";
import { BusinessRuleError, toApiError } from "../../shared/kernel/errors.ts";
import { MAX_PAGES, RenderBudgetError } from "../../shared/pdf/flow.ts";
import { wrapText } from "../../shared/pdf/kit.ts";
import { toInvoicePdfModel } from "../../shared/pdf/model.ts";
import { renderDocumentPdf } from "../../shared/pdf/render-document.ts";

/** One point per character, except "i" (half): a measure whose cost is counted, with a ceiling. */
function countingMeasure(ceiling: number) {
  let measured = 0;
  const measure = (s: string) => {
    measured += s.length;
    if (measured > ceiling) throw new Error(`measured more than ${ceiling} characters`);
    let width = 0;
    for (const ch of s) width += ch === "i" ? 0.5 : 1;
    return width;
  };
  return { measure, measured: () => measured };
}

describe("wrapText", () => {
  it("cuts an unbroken word into pieces that each fill the column, measuring about linearly", () => {
    const word = "N".repeat(20_000);
    const { measure, measured } = countingMeasure(40 * word.length);
    const lines = wrapText(word, measure, 30);
    expect(lines.join("")).toBe(word);
    expect(lines.slice(0, -1).every((l) => l.length === 30)).toBe(true);
    expect(lines.at(-1)).toHaveLength(20_000 % 30 || 30);
    // the old step-back-one-character cut measured ~n²/2 characters per piece: billions here
    expect(measured()).toBeLessThan(40 * word.length);
  });

  it("measures each word once, however many short words a line holds", () => {
    // 50,000 one-letter words: re-measuring the line for each word cost ~column × length
    const text = "i ".repeat(50_000);
    const { measure, measured } = countingMeasure(10 * text.length);
    const lines = wrapText(text, measure, 200);
    expect(lines.join(" ")).toBe(text.trim());
    for (const l of lines) expect(measure(l)).toBeLessThanOrEqual(200);
    expect(lines.length).toBeLessThan(50_000 / 100);
    expect(measured()).toBeLessThan(10 * text.length);
  });

  it("fills each line as a whole-line measure would", () => {
    const { measure } = countingMeasure(Number.POSITIVE_INFINITY);
    const text = "ab iii c dddd ee i fffff g hh iiii jjj k l mmmmmm n oo ppp".repeat(7);
    const lines = wrapText(text, measure, 9);
    for (const [i, l] of lines.entries()) {
      expect(measure(l)).toBeLessThanOrEqual(9);
      const next = lines[i + 1]?.split(" ")[0];
      // greedy: the next line's first word would not have fitted on this one
      if (next !== undefined) expect(measure(`${l} ${next}`)).toBeGreaterThan(9);
    }
  });

  it("cuts a word of uneven widths into pieces within the width, each as long as it can be", () => {
    const { measure } = countingMeasure(Number.POSITIVE_INFINITY);
    const word = "iNiNNiii".repeat(40);
    const lines = wrapText(word, measure, 10);
    expect(lines.join("")).toBe(word);
    let at = 0;
    for (const piece of lines) {
      expect(measure(piece)).toBeLessThanOrEqual(10);
      at += piece.length;
      // the piece could not have taken the next character
      if (at < word.length) expect(measure(piece + word[at])).toBeGreaterThan(10);
    }
  });

  it("wraps words at spaces, and a word that fits on a line of its own is not cut", () => {
    const { measure } = countingMeasure(Number.POSITIVE_INFINITY);
    expect(wrapText("aaa bbb ccc dddddddddd", measure, 7)).toEqual([
      "aaa bbb",
      "ccc",
      "dddddddddd".slice(0, 7),
      "ddd",
    ]);
    expect(wrapText("  spaced   out  ", measure, 20)).toEqual(["spaced out"]);
    expect(wrapText("", measure, 5)).toEqual([""]);
    // not even one character fits: each piece still takes one, so the wrap always ends
    expect(wrapText("abc", measure, 0.5)).toEqual(["a", "b", "c"]);
  });
});

describe("the render budget", () => {
  it(`refuses, with a 422 that says why, an invoice whose PDF would pass ${MAX_PAGES} pages`, async () => {
    const model = toInvoicePdfModel(worstCaseInvoice(), pendingFiscal());
    const error = await renderDocumentPdf(model).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RenderBudgetError);
    expect(error).toBeInstanceOf(BusinessRuleError);
    const api = toApiError(error);
    expect(api.status).toBe(422);
    expect(api.code).toBe("business_rule");
    expect(api.message).toMatch(new RegExp(`pass ${MAX_PAGES} pages`));
  });

  it("renders the longest fields the database allows on an invoice that fits the budget", async () => {
    const bytes = await renderDocumentPdf(toInvoicePdfModel(worstCaseInvoice(20), acceptedFiscal()));
    const pages = (await PDFDocument.load(bytes)).getPageCount();
    expect(pages).toBeGreaterThan(1);
    expect(pages).toBeLessThanOrEqual(MAX_PAGES);
    expect(LIMITS.notes).toBe(5000);
  });

  it("leaves room for the largest ordinary invoice: 1,000 lines of real descriptions", async () => {
    const bytes = await renderDocumentPdf(toInvoicePdfModel(manyLinesInvoice(1000), acceptedFiscal()));
    expect((await PDFDocument.load(bytes)).getPageCount()).toBeLessThan(MAX_PAGES / 2);
  });
});

/** Every text a page shows, with where it starts. */
function placedTexts(page: Parameters<typeof pageOperators>[0]): { x: number; y: number }[] {
  return [...pageOperators(page).matchAll(/(-?[\d.]+) (-?[\d.]+) Td\s*<[0-9A-Fa-f]*> Tj/g)].map((m) => ({
    x: Number(m[1]),
    y: Number(m[2]),
  }));
}

describe("what the database allows is drawn on the page", () => {
  async function offPage(bytes: Uint8Array): Promise<number> {
    const doc = await loadPdf(bytes);
    let outside = 0;
    for (const page of doc.getPages()) {
      const { width, height } = page.getSize();
      for (const { x, y } of placedTexts(page)) if (y < 20 || y > height || x < 0 || x > width) outside++;
    }
    return outside;
  }

  it("the longest names and addresses: cut short with an ellipsis, never below the page", async () => {
    // stamped: the unstamped watermark is drawn rotated about the origin, which this check cannot place
    const bytes = await renderDocumentPdf(toInvoicePdfModel(worstCaseInvoice(3), acceptedFiscal()));
    expect(await offPage(bytes)).toBe(0);
    const texts = (await loadPdf(bytes)).getPages().flatMap(pageTexts);
    expect(texts.some((t) => t.endsWith("…"))).toBe(true);
  });

  it("a description of many short lines: split across pages, every line of it printed", async () => {
    const description = Array.from({ length: 110 }, (_, i) => `R${String(i + 1).padStart(3, "0")}`).join(
      "\n",
    );
    const doc = withLines(demoInvoice(), [line(1, 1, 1000, 19, { description })]);
    const bytes = await renderDocumentPdf(toInvoicePdfModel(doc, acceptedFiscal()));
    expect(await offPage(bytes)).toBe(0);
    const texts = (await loadPdf(bytes)).getPages().flatMap(pageTexts);
    for (let i = 1; i <= 110; i++) expect(texts).toContain(`R${String(i).padStart(3, "0")}`);
  });
});
