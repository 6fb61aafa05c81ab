import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  acceptedFiscal,
  DEMO_CUFE,
  demoCreditNote,
  demoInvoice,
  line,
  manyLinesInvoice,
  pendingFiscal,
  withLines,
} from "../../devkit/pdf/fixtures.ts";
import {
  documentTexts,
  formXObjects,
  loadPdf,
  pageOperators,
  placedTexts,
} from "../../devkit/pdf/support.ts";
import { DEMO_SOFTWARE, softwareLine } from "../../shared/co/software.ts";
import { frameFor } from "../../shared/pdf/flow.ts";
import { toCreditNotePdfModel, toInvoicePdfModel } from "../../shared/pdf/model.ts";
import { renderDocumentPdf } from "../../shared/pdf/render-document.ts";

const stampedModel = () => toInvoicePdfModel(demoInvoice(), acceptedFiscal());
const pendingModel = () => toInvoicePdfModel(demoInvoice(), pendingFiscal());
const NOT_VALID = "DOCUMENTO SIN VALIDEZ FISCAL";

describe("renderDocumentPdf", () => {
  it("gives byte-identical output for identical inputs", async () => {
    for (const model of [
      stampedModel,
      pendingModel,
      () => toInvoicePdfModel(manyLinesInvoice(60), pendingFiscal()),
    ]) {
      const [first, second] = await Promise.all([renderDocumentPdf(model()), renderDocumentPdf(model())]);
      expect(Buffer.from(first).equals(Buffer.from(second))).toBe(true);
    }
  });

  it("takes its dates from the model and fixes the producer, never the clock", async () => {
    const doc = await loadPdf(await renderDocumentPdf(stampedModel()));
    expect(doc.getCreationDate()?.toISOString()).toBe("2026-11-20T15:16:42.000Z");
    expect(doc.getModificationDate()?.toISOString()).toBe("2026-11-20T15:16:42.000Z");
    expect(doc.getProducer()).toBe("einvoicing-service pdf (pdf-lib)");
    expect(doc.getTitle()).toBe("Factura electrónica de venta SETP990000201");
    const pending = await loadPdf(await renderDocumentPdf(pendingModel()));
    expect(pending.getCreationDate()?.toISOString()).toBe("2026-11-20T15:15:00.000Z");
  });

  it("prints the issuer, buyer, lines, taxes and totals of the invoice", async () => {
    const [page] = await documentTexts(await renderDocumentPdf(stampedModel()));
    expect(page).toEqual(
      expect.arrayContaining([
        "Demo Comercial S.A.S.",
        "NIT 900.123.456-8",
        "FACTURA ELECTRÓNICA DE VENTA",
        "SETP990000201",
        "Cliente Demo 1 S.A.S.",
        "NIT 860.000.000-0",
        "Servicio de consultoría",
        "$ 100.000,00",
        "IVA 19 %",
        "$ 19.000,00",
        "TOTAL A PAGAR",
        "$ 130.000,00",
        "CIENTO TREINTA MIL PESOS M/CTE",
        "Página 1 de 1",
      ]),
    );
  });

  it("stamps an accepted invoice with its CUFE, QR, validation date and caption, and no void mark", async () => {
    const bytes = await renderDocumentPdf(stampedModel());
    const doc = await loadPdf(bytes);
    const page = doc.getPage(0);
    const texts = (await documentTexts(bytes)).flat();
    expect(texts.join("")).toContain(DEMO_CUFE);
    expect(texts).toContain("Representación gráfica de la factura electrónica de venta");
    expect(texts).toContain("20/11/2026 10:16:42 (UTC-05:00) · Ambiente: Habilitación (pruebas)");
    expect(texts.some((t) => t.includes("SIN VALIDEZ FISCAL"))).toBe(false);
    // the QR code is vector art: a form of hundreds of rectangles, painted once on the page
    expect(pageOperators(page)).toMatch(/\/QR-\d+ Do/);
    const [qr] = formXObjects(doc);
    expect(qr?.match(/ re\n/g)?.length ?? 0).toBeGreaterThan(300);
  });

  it("marks a document the DIAN has not accepted as having no fiscal validity, on every page", async () => {
    const bytes = await renderDocumentPdf(toInvoicePdfModel(manyLinesInvoice(80), pendingFiscal()));
    const pages = await documentTexts(bytes);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages[0]).toContain("DOCUMENTO SIN VALIDEZ FISCAL — pendiente de validación por la DIAN");
    for (const texts of pages) expect(texts).toContain("SIN VALIDEZ FISCAL");
    const last = pages.at(-1) ?? [];
    expect(last).toContain(NOT_VALID);
    expect(last).toContain("Estado: pendiente de envío a la DIAN.");
    expect(pages.flat().some((t) => t.includes("CUFE") && /[0-9a-f]{40}/.test(t))).toBe(false);
  });

  it("flows a long invoice onto more pages, repeating the table header and numbering the pages", async () => {
    const doc = await loadPdf(
      await renderDocumentPdf(toInvoicePdfModel(manyLinesInvoice(200), acceptedFiscal())),
    );
    const pages = doc.getPages();
    expect(pages.length).toBeGreaterThanOrEqual(5);
    const texts = await documentTexts(await doc.save());
    texts.forEach((page, i) => {
      // every page that prints lines repeats the table's header (the summary may end on a page of its own)
      if (page.some((t) => /^REF-\d{4}$/.test(t))) expect(page).toContain("Descripción");
      expect(page).toContain(`Página ${i + 1} de ${pages.length}`);
    });
    expect(texts.filter((page) => page.includes("Descripción")).length).toBeGreaterThanOrEqual(4);
    expect(texts[1]).toContain("(continuación)");
    // every line printed exactly once, in order
    const positions = texts.flat().filter((t) => /^REF-\d{4}$/.test(t));
    expect(positions).toEqual(Array.from({ length: 200 }, (_, i) => `REF-${String(i + 1).padStart(4, "0")}`));
    expect(texts.at(-1)).toContain("Representación gráfica de la factura electrónica de venta");
  });

  it("renders Letter by default and A4 on request", async () => {
    const letter = await loadPdf(await renderDocumentPdf(stampedModel()));
    expect(letter.getPages()[0]?.getSize()).toEqual({ width: 612, height: 792 });
    const a4 = await loadPdf(
      await renderDocumentPdf(toInvoicePdfModel(demoInvoice(), acceptedFiscal(), { pageSize: "a4" })),
    );
    expect(a4.getPages()[0]?.getSize()).toEqual({ width: 595.28, height: 841.89 });
  });

  it("degrades text the standard fonts cannot encode instead of failing", async () => {
    const doc = withLines(
      {
        ...demoInvoice(),
        buyer_name: "Café ☕ 東京 Ltda. 👩‍💻",
        company: { ...demoInvoice().company, legal_name: "Panadería 🍞 Ñandú S.A.S." },
        notes: "Entrega en Zürich\u0000 — “urgente”\tﬁn de mes\r\nŐrség 🇨🇴",
      },
      [line(1, 1, 1000, 19, { description: "Taza 😀 para café – edición 東京", code: "Ω-1" })],
    );
    const bytes = await renderDocumentPdf(toInvoicePdfModel(doc, acceptedFiscal()));
    expect((await loadPdf(bytes)).getPageCount()).toBe(1);
    const texts = (await documentTexts(bytes)).flat();
    expect(texts).toContain("Café ? ?? Ltda. ??");
    expect(texts).toContain("Taza ? para café – edición ??");
    expect(texts.join("\n")).toContain("Entrega en Zürich — “urgente” fin de mes");
    expect(texts).toContain("Orség ??");
    expect(texts).toContain("Panadería ? Ñandú S.A.S.");
    expect((await loadPdf(bytes)).getAuthor()).toBe("Panadería 🍞 Ñandú S.A.S.");
  });

  it("keeps very long descriptions, codes and notes inside the page", async () => {
    const long = `${"Descripción muy larga ".repeat(40)}${"X".repeat(300)}`;
    const doc = withLines({ ...demoInvoice(), notes: "Nota. ".repeat(800) }, [
      line(1, 123456789.123456, 9_999_999.99, 19, { description: long, code: "C".repeat(100) }),
    ]);
    const bytes = await renderDocumentPdf(toInvoicePdfModel(doc, acceptedFiscal()));
    expect((await loadPdf(bytes)).getPageCount()).toBeGreaterThan(1);
  });
});

describe("the representación gráfica of a credit note", () => {
  const CUFE = DEMO_CUFE; // 96 hexadecimal characters
  const note = (status: "emitida" | "pendiente" = "emitida") =>
    toCreditNotePdfModel(
      demoCreditNote(),
      status === "emitida" ? acceptedFiscal({ status, authority_code: "d".repeat(96) }) : pendingFiscal(),
    );

  it.each(["emitida", "pendiente"] as const)(
    "(%s) shows the note, the invoice it corrects with its CUFE, the concept, and no numbering authorization",
    async (status) => {
      const texts = (await documentTexts(await renderDocumentPdf(note(status)))).flat();
      const all = texts.join("\n");
      expect(all).toContain("NC1");
      expect(all).toContain("SETP990000201 del 20/11/2026");
      expect(texts.join("")).toContain(CUFE);
      expect(all).toContain("1 · Devolución parcial de los bienes y/o no aceptación parcial del servicio");
      expect(all).not.toMatch(/Autorización de numeración/);
      expect(all).not.toContain("18760000001");
    },
  );

  it("keeps the referenced CUFE inside its box, on Letter and A4", async () => {
    for (const pageSize of ["letter", "a4"] as const) {
      const model = toCreditNotePdfModel(demoCreditNote(), acceptedFiscal({ status: "emitida" }), {
        pageSize,
      });
      const doc = await loadPdf(await renderDocumentPdf(model));
      const frame = frameFor(pageSize);
      const placed = (await Promise.all(doc.getPages().map(placedTexts))).flat();
      const pieces = placed.filter((t) => /^[0-9a-f]{8,}$/.test(t.text) && CUFE.includes(t.text));
      expect(pieces.length).toBeGreaterThan(0);
      // the reference box spans the frame with a 6 pt inner margin; the CUFE's pieces stay inside it
      for (const t of pieces)
        expect(t.x + t.width, `"${t.text}" runs past the box`).toBeLessThanOrEqual(frame.right - 6);
      for (const t of placed)
        expect(t.x + t.width, `"${t.text}" runs off the frame`).toBeLessThanOrEqual(frame.right);
    }
  });
});

describe("the issuing software", () => {
  it.each([
    ["an accepted invoice", () => toInvoicePdfModel(demoInvoice(), acceptedFiscal())],
    ["a pending invoice", () => toInvoicePdfModel(demoInvoice(), pendingFiscal())],
    [
      "an accepted credit note",
      () => toCreditNotePdfModel(demoCreditNote(), acceptedFiscal({ status: "emitida" })),
    ],
  ])("is named, with its maker and the maker's NIT, on %s", async (_, model) => {
    const texts = (await documentTexts(await renderDocumentPdf(model()))).flat();
    expect(texts).toContain(softwareLine(DEMO_SOFTWARE));
    expect(softwareLine(DEMO_SOFTWARE)).toMatch(/^Software: .+ · Fabricante del software: .+, NIT \d+-\d$/);
  });

  it("is printed whole when long, the validation block growing to hold it", async () => {
    const software = {
      ...DEMO_SOFTWARE,
      maker:
        "Compañía Colombiana de Soluciones Tecnológicas para la Facturación Electrónica Empresarial S.A.S.",
    };
    const model = toCreditNotePdfModel(demoCreditNote(), acceptedFiscal({ status: "emitida" }), { software });
    const doc = await loadPdf(await renderDocumentPdf(model));
    const placed = await placedTexts(doc.getPage(doc.getPageCount() - 1));
    const said = placed.map((t) => t.text).join(" ");
    expect(said).toContain(softwareLine(software));
    expect(said).not.toContain("…");
    // on two lines inside the block, above the footer
    const lines = placed.filter((t) => softwareLine(software).includes(t.text) && t.size === 6.5);
    expect(lines.length).toBe(2);
    for (const t of lines) expect(t.y).toBeGreaterThan(frameFor("letter").bottom);
  });
});

describe("exempt and untaxed lines", () => {
  it("prints IVA at 0 % as exempt and ZZ as not taxed, apart", async () => {
    const doc = withLines(demoInvoice(), [
      line(1, 1, 10_000, 0, { description: "Libro técnico (exento)" }),
      line(2, 1, 5_000, 0, { taxes: [], description: "Servicio no gravado" }),
    ]);
    const texts = (
      await documentTexts(await renderDocumentPdf(toInvoicePdfModel(doc, pendingFiscal())))
    ).flat();
    expect(texts).toContain("IVA exento 0 %");
    expect(texts).toContain("No gravado");
  });
});

describe("loading pdf-lib", () => {
  it("happens only when a PDF is made: no module in shared/pdf imports pdf-lib or qr statically", () => {
    const dir = join(import.meta.dirname, "../../shared/pdf");
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      const source = readFileSync(join(dir, file), "utf8");
      for (const match of source.matchAll(/^import\s+(type\s+)?[^;]*?from\s+"(pdf-lib|qr)";/gms)) {
        expect(match[1], `${file} imports ${match[2]} at load time`).toBe("type ");
      }
    }
  });
});
