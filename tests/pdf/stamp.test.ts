import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import {
  acceptedFiscal,
  DEMO_CUFE,
  DEMO_STAMP,
  DEMO_VALIDATED_AT,
  demoCreditNote,
  demoInvoice,
  manyLinesInvoice,
  pendingFiscal,
  providerPdf,
} from "../../devkit/pdf/fixtures.ts";
import { documentTexts, loadPdf, pageOperators, placedTexts } from "../../devkit/pdf/support.ts";
import { MAX_PAGES, RenderBudgetError } from "../../shared/pdf/flow.ts";
import { toCreditNotePdfModel, toInvoicePdfModel } from "../../shared/pdf/model.ts";
import { renderDocumentPdf } from "../../shared/pdf/render-document.ts";
import { stampPdf } from "../../shared/pdf/stamp.ts";

const FIXED = new Date(DEMO_VALIDATED_AT);

describe("stampPdf", () => {
  it("adds to a provider's credit note the invoice it corrects, its CUFE and the concept", async () => {
    const model = toCreditNotePdfModel(
      demoCreditNote(),
      acceptedFiscal({ status: "emitida", authority_code: "d".repeat(96) }),
    );
    if (!model.fiscal.stamped) throw new Error("the demo note is accepted");
    const stamped = await stampPdf(await providerPdf(), model.fiscal, FIXED);
    const [, last = []] = await documentTexts(stamped);
    const all = last.join("\n");
    expect(all).toContain("Representación gráfica de la nota crédito electrónica");
    expect(all).toContain("Factura que corrige");
    expect(all).toContain("SETP990000201 del 20/11/2026");
    expect(last.join("")).toContain(DEMO_CUFE);
    expect(all).toContain("1 · Devolución parcial de los bienes y/o no aceptación parcial del servicio");
    expect(all).not.toMatch(/Autorización de numeración/);
    // all of it inside the block, whose right edge is the page's crop box less its margin
    const page = (await loadPdf(stamped)).getPage(1);
    const { x, width } = page.getCropBox();
    for (const t of await placedTexts(page)) {
      if (t.text.startsWith("Factura del proveedor")) continue;
      expect(t.x + t.width, `"${t.text}" runs past the block`).toBeLessThanOrEqual(x + width - 28);
    }
  });

  it("adds the validation block to the last page only, keeping every page", async () => {
    const base = await providerPdf();
    const stamped = await stampPdf(base, DEMO_STAMP, FIXED);
    const [before, after] = [await loadPdf(base), await loadPdf(stamped)];
    expect(after.getPageCount()).toBe(2);
    expect(pageOperators(after.getPage(0))).toBe(pageOperators(before.getPage(0)));
    const texts = await documentTexts(stamped);
    expect(texts[0]).toEqual(["Factura del proveedor, página 1"]);
    expect(texts[1]).toContain("Factura del proveedor, página 2");
    expect(texts[1]).toContain("Representación gráfica de la factura electrónica de venta");
    expect(texts[1]?.join("")).toContain(DEMO_CUFE);
    expect(texts[1]).toContain("20/11/2026 10:16:42 (UTC-05:00) · Ambiente: Habilitación (pruebas)");
    expect(texts[1]).toContain(DEMO_STAMP.software);
    expect(after.getModificationDate()?.toISOString()).toBe("2026-11-20T15:16:42.000Z");
  });

  it("is deterministic", async () => {
    const base = await providerPdf();
    const [a, b] = await Promise.all([stampPdf(base, DEMO_STAMP, FIXED), stampPdf(base, DEMO_STAMP, FIXED)]);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
  });

  it("stamps the built-in renderer's unstamped PDF on its last page", async () => {
    const base = await renderDocumentPdf(toInvoicePdfModel(manyLinesInvoice(70), pendingFiscal()));
    const stamped = await stampPdf(base, DEMO_STAMP, FIXED);
    const pages = await documentTexts(stamped);
    expect(pages.length).toBe((await loadPdf(base)).getPageCount());
    expect(pages.at(-1)?.join("")).toContain(DEMO_CUFE);
    expect(pages.slice(0, -1).flat().join("")).not.toContain(DEMO_CUFE);
  });

  it("refuses, with the render budget's 422, a provider PDF of more pages than a render may draw", async () => {
    const doc = await PDFDocument.create();
    for (let i = 0; i <= MAX_PAGES; i++) doc.addPage([200, 200]);
    const error = await stampPdf(await doc.save(), DEMO_STAMP, new Date(0)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RenderBudgetError);
  });

  it("refuses something that is not a PDF", async () => {
    await expect(stampPdf(new TextEncoder().encode("hello"), DEMO_STAMP, FIXED)).rejects.toThrow();
  });

  it("stamps the demo invoice's own rendering", async () => {
    const base = await renderDocumentPdf(toInvoicePdfModel(demoInvoice(), pendingFiscal()));
    expect((await loadPdf(await stampPdf(base, DEMO_STAMP, FIXED))).getPageCount()).toBe(1);
  });
});
