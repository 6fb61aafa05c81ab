/**
 * The stamp on a provider's page of any usual size: from an 80 mm roll and half-letter (media carta)
 * to Letter and A4, all of the validation block stays inside its frame and the frame inside the page,
 * no two lines overlap each other or the QR code, and nothing DIAN requires is cut (the concept by
 * code and full name, the title, the software and its maker).
 */
import { PDFDocument, type PDFPage } from "pdf-lib";
import { describe, expect, it } from "vitest";
import {
  acceptedFiscal,
  DEMO_CUDE,
  DEMO_CUFE,
  DEMO_STAMP,
  DEMO_VALIDATED_AT,
  demoCreditNote,
} from "../../devkit/pdf/fixtures.ts";
import {
  loadPdf,
  type PlacedBox,
  type PlacedText,
  pageRects,
  placedTexts,
  qrBox,
  qrModulePoints,
} from "../../devkit/pdf/support.ts";
import { toCreditNotePdfModel, type ValidationStamp } from "../../shared/pdf/model.ts";
import { STAMP_AREA_HEIGHT, stampPdf } from "../../shared/pdf/stamp.ts";

const SIZES: [string, number, number][] = [
  ["80 mm roll", 226.77, 800],
  ["half-letter (media carta)", 396, 612],
  ["A5", 419.53, 595.28],
  ["A4", 595.28, 841.89],
  ["Letter", 612, 792],
];

function noteStamp(): ValidationStamp {
  const model = toCreditNotePdfModel(
    demoCreditNote(),
    acceptedFiscal({ status: "emitida", authority_code: DEMO_CUDE }),
  );
  if (!model.fiscal.stamped) throw new Error("the demo note is accepted");
  return model.fiscal;
}

async function stampedPage(width: number, height: number, stamp = noteStamp()): Promise<PDFPage> {
  const base = await PDFDocument.create();
  base.addPage([width, height]);
  const bytes = await stampPdf(await base.save(), stamp, new Date(DEMO_VALIDATED_AT));
  return (await loadPdf(bytes)).getPage(0);
}

/** The ink of a line of text: from a little under its baseline to the top of its accents. */
const ink = (t: PlacedText): PlacedBox => ({
  x: t.x,
  y: t.y - 0.2 * t.size,
  width: t.width,
  height: 0.95 * t.size,
});
const overlap = (a: PlacedBox, b: PlacedBox) =>
  a.x < b.x + b.width - 0.01 &&
  b.x < a.x + a.width - 0.01 &&
  a.y < b.y + b.height - 0.01 &&
  b.y < a.y + a.height - 0.01;
const inside = (a: PlacedBox, b: PlacedBox) =>
  a.x >= b.x && a.y >= b.y && a.x + a.width <= b.x + b.width && a.y + a.height <= b.y + b.height;

/** The block's frame: the largest rectangle the stamp draws (the page is otherwise blank). */
const frameOf = (page: PDFPage) =>
  pageRects(page).reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));

/** What the block says, lines joined with a space (words) or with nothing (codes cut anywhere). */
const prose = (texts: PlacedText[]) =>
  texts
    .map((t) => t.text)
    .join(" ")
    .replace(/\s+/g, " ");

describe.each(SIZES)("the stamp on a %s page", (_name, width, height) => {
  it.each([
    ["credit note", noteStamp()],
    ["invoice", DEMO_STAMP],
  ])("keeps every line of a %s inside its frame, the frame inside the page", async (_kind, stamp) => {
    const page = await stampedPage(width, height, stamp);
    const frame = frameOf(page);
    expect(inside(frame, { x: 0, y: 36, width, height: height - 36 }), JSON.stringify(frame)).toBe(true);
    const qr = qrBox(page);
    if (!qr) throw new Error("no QR code on the page");
    expect(inside(qr, frame), "the QR code leaves the frame").toBe(true);
    expect(qrModulePoints(page)).toBeGreaterThanOrEqual(1.5);

    const texts = await placedTexts(page);
    expect(texts.length).toBeGreaterThan(5);
    for (const t of texts) {
      expect(inside(ink(t), frame), `"${t.text}" leaves the frame`).toBe(true);
      expect(overlap(ink(t), qr), `"${t.text}" is printed over the QR code`).toBe(false);
    }
    texts.forEach((a, i) => {
      for (const b of texts.slice(i + 1)) {
        expect(overlap(ink(a), ink(b)), `"${a.text}" and "${b.text}" overlap`).toBe(false);
      }
    });
  });

  it("prints the title, the concept by code and full name, and the software uncut", async () => {
    const stamp = noteStamp();
    const texts = await placedTexts(await stampedPage(width, height, stamp));
    const said = prose(texts);
    expect(said).toContain("Representación gráfica de la nota crédito electrónica");
    expect(said).toContain(
      "Concepto de corrección: 1 · Devolución parcial de los bienes y/o no aceptación parcial del servicio",
    );
    expect(said).toContain(
      "Validada por la DIAN en ambiente de habilitación (pruebas): documento de prueba.",
    );
    expect(said).toContain(stamp.software);
    expect(said).toContain("Factura que corrige: SETP990000201 del 20/11/2026");
    expect(said).toContain("Ambiente: Habilitación (pruebas)");
    expect(said).toContain("https://catalogo-vpfe-hab.dian.gov.co/document/searchqr");
    expect(said).not.toContain("…");
    const codes = texts.map((t) => t.text).join("");
    expect(codes).toContain(DEMO_CUDE);
    expect(codes).toContain(DEMO_CUFE);
    // a code is cut into lines of equal length (to a character), no two-character tail
    const lengths = texts.filter((t) => t.font === "Courier").map((t) => t.text.length);
    expect(Math.max(...lengths) - Math.min(...lengths)).toBeLessThanOrEqual(1);
  });
});

describe("the stamp's height", () => {
  it("is STAMP_AREA_HEIGHT, margin included, on Letter and A4 pages", async () => {
    for (const [width, height] of [
      [612, 792],
      [595.28, 841.89],
    ] as const) {
      const frame = frameOf(await stampedPage(width, height));
      expect(frame.y + frame.height).toBeCloseTo(STAMP_AREA_HEIGHT, 0);
    }
  });
});
