/**
 * The printed QR code really scans: the demo invoice is rendered, rasterised by poppler's pdftoppm
 * and decoded by zbar, and the result must be exactly the invoice's DIAN QR text.
 *
 * Needs the Debian packages poppler-utils and zbar-tools. Without them the suite is skipped with a
 * message, except on CI (`CI` set), where a missing tool fails it.
 *
 * The README's pictures come from `npm run docs:images` (scripts/docs/invoice-images.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PDFDocument } from "pdf-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  acceptedFiscal,
  DEMO_CUDE,
  DEMO_NOTE_QR_TEXT,
  DEMO_QR_TEXT,
  DEMO_STAMP,
  DEMO_VALIDATED_AT,
  demoCreditNote,
  demoInvoice,
  manyLinesInvoice,
  pendingFiscal,
  providerPdf,
} from "../../devkit/pdf/fixtures.ts";
import {
  decodeQr,
  decodeQrWithJsQr,
  loadPdf,
  missingTools,
  qrModulePoints,
  RASTER_TOOLS,
  rasterise,
  rasteriseGray,
} from "../../devkit/pdf/support.ts";
import { computeCude } from "../../shared/co/cufe.ts";
import { toCreditNotePdfModel, toInvoicePdfModel } from "../../shared/pdf/model.ts";
import { renderDocumentPdf } from "../../shared/pdf/render-document.ts";
import { stampPdf } from "../../shared/pdf/stamp.ts";

const missing = missingTools();
const packages = missing.map((tool) => RASTER_TOOLS[tool as keyof typeof RASTER_TOOLS]).join(" ");
const skip = missing.length > 0 && !process.env.CI;
if (skip) {
  console.warn(
    `QR round trip SKIPPED: ${missing.join(", ")} not installed (apt-get install -y ${packages}); required on CI`,
  );
}

/** A provider's one blank page of the given size. */
async function blankPdf(width: number, height: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage([width, height]);
  return doc.save();
}

describe.skipIf(skip)("QR round trip through pdftoppm and zbarimg", () => {
  let dir = "";
  beforeAll(() => {
    if (missing.length > 0) {
      throw new Error(`${missing.join(", ")} not installed: CI must install the Debian packages ${packages}`);
    }
    dir = mkdtempSync(join(tmpdir(), "einv-pdf-"));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Writes the PDF, rasterises `page` (1-based; -1 for the last) and returns the PNG's path. */
  async function toPng(name: string, pdf: Uint8Array, page: number, dpi = 150): Promise<string> {
    const pdfPath = join(dir, `${name}.pdf`);
    writeFileSync(pdfPath, pdf);
    const count = (await PDFDocument.load(pdf)).getPageCount();
    const pngPath = join(dir, `${name}.png`);
    rasterise(pdfPath, page === -1 ? count : page, dpi, pngPath);
    return pngPath;
  }

  it("decodes the stamped demo invoice's QR code to exactly its DIAN QR text", async () => {
    const png = await toPng(
      "demo",
      await renderDocumentPdf(toInvoicePdfModel(demoInvoice(), acceptedFiscal())),
      1,
    );
    const decoded = decodeQr(png);
    expect(decoded.status).toBe(0);
    expect(decoded.text).toBe(`${DEMO_QR_TEXT}\n`);
  });

  it("decodes a stamped credit note's QR code to exactly its DIAN text with its CUDE", async () => {
    const note = demoCreditNote();
    // the fixture's CUDE is the Anexo formula with the software PIN, here computed by the service too
    const cude = await computeCude({
      number: note.number,
      issueDate: note.issue_date,
      issueTime: "09:30:00-05:00",
      subtotal: note.subtotal,
      iva: "19000.00",
      inc: "0.00",
      ica: "0.00",
      total: note.total,
      issuerNit: note.company.nit,
      buyerId: note.buyer_id_number ?? "",
      softwarePin: note.company.software_pin ?? "",
      environment: "uat",
    });
    expect(cude).toBe(DEMO_CUDE);
    const model = toCreditNotePdfModel(
      note,
      acceptedFiscal({ status: "emitida", authority_code: DEMO_CUDE }),
    );
    const decoded = decodeQr(await toPng("note", await renderDocumentPdf(model), -1));
    expect(decoded.text).toBe(`${DEMO_NOTE_QR_TEXT}\n`);
  });

  it("decodes at print resolution on A4 and on the last page of a long invoice", async () => {
    const a4 = toInvoicePdfModel(demoInvoice(), acceptedFiscal(), { pageSize: "a4" });
    expect(decodeQr(await toPng("a4", await renderDocumentPdf(a4), 1, 300)).text).toBe(`${DEMO_QR_TEXT}\n`);
    const long = toInvoicePdfModel(manyLinesInvoice(45), acceptedFiscal({ qr_text: DEMO_QR_TEXT }));
    expect(decodeQr(await toPng("long", await renderDocumentPdf(long), -1)).text).toBe(`${DEMO_QR_TEXT}\n`);
  });

  it("decodes the QR code stamped on a docsgen provider's PDF", async () => {
    const stamped = await stampPdf(await providerPdf(), DEMO_STAMP, new Date(DEMO_VALIDATED_AT));
    expect(decodeQr(await toPng("provider", stamped, -1)).text).toBe(`${DEMO_QR_TEXT}\n`);
  });

  describe("every QR code at 150 dpi (a scan, a screen), as jsQR reads it", () => {
    const note = () =>
      toCreditNotePdfModel(
        demoCreditNote(),
        acceptedFiscal({ status: "emitida", authority_code: DEMO_CUDE }),
      );
    const noteStamp = () => {
      const { fiscal } = note();
      if (!fiscal.stamped) throw new Error("the demo note is accepted");
      return fiscal;
    };
    const cases: [string, () => Promise<Uint8Array>, string][] = [
      [
        "a stamped invoice",
        () => renderDocumentPdf(toInvoicePdfModel(demoInvoice(), acceptedFiscal())),
        DEMO_QR_TEXT,
      ],
      [
        "a stamped invoice on A4",
        () => renderDocumentPdf(toInvoicePdfModel(demoInvoice(), acceptedFiscal(), { pageSize: "a4" })),
        DEMO_QR_TEXT,
      ],
      ["a stamped credit note", () => renderDocumentPdf(note()), DEMO_NOTE_QR_TEXT],
      [
        "a docsgen invoice, stamped",
        async () => stampPdf(await providerPdf(), DEMO_STAMP, new Date(DEMO_VALIDATED_AT)),
        DEMO_QR_TEXT,
      ],
      [
        "a docsgen credit note, stamped",
        async () => stampPdf(await providerPdf(), noteStamp(), new Date(DEMO_VALIDATED_AT)),
        DEMO_NOTE_QR_TEXT,
      ],
      [
        "a docsgen credit note on half-letter, stamped",
        async () => stampPdf(await blankPdf(396, 612), noteStamp(), new Date(DEMO_VALIDATED_AT)),
        DEMO_NOTE_QR_TEXT,
      ],
      [
        "a docsgen invoice on A5, stamped",
        async () => stampPdf(await blankPdf(419.53, 595.28), DEMO_STAMP, new Date(DEMO_VALIDATED_AT)),
        DEMO_QR_TEXT,
      ],
      [
        "a docsgen credit note on an 80 mm roll, stamped",
        async () => stampPdf(await blankPdf(226.77, 800), noteStamp(), new Date(DEMO_VALIDATED_AT)),
        DEMO_NOTE_QR_TEXT,
      ],
    ];

    it.each(cases)(
      "%s: modules of at least 1.5 pt (3 pixels), decoded by zbar and jsQR",
      async (name, make, text) => {
        const pdf = await make();
        const doc = await loadPdf(pdf);
        const last = doc.getPage(doc.getPageCount() - 1);
        // below ~3 pixels a module, jsQR misses the code at 150 dpi (0.43 mm modules did)
        expect(qrModulePoints(last)).toBeGreaterThanOrEqual(1.5);
        const png = await toPng(name.replace(/\W+/g, "-"), pdf, -1, 150);
        expect(decodeQr(png).text).toBe(`${text}\n`);
        const decoded = decodeQrWithJsQr(
          rasteriseGray(png.replace(/\.png$/, ".pdf"), doc.getPageCount(), 150),
        );
        expect(decoded).toBe(text);
      },
    );
  });

  it("prints no QR code on a document the DIAN has not accepted", async () => {
    const png = await toPng(
      "pending",
      await renderDocumentPdf(toInvoicePdfModel(demoInvoice(), pendingFiscal())),
      1,
    );
    expect(decodeQr(png)).toMatchObject({ status: 4, text: "" });
  });
});
