/**
 * The DIAN QR code as vector graphics: a Form XObject whose content is one filled path of rectangles
 * in module units (integers, so edges fall exactly on the module grid), over a white square that
 * includes the 4-module quiet zone the QR standard asks for, so it scans even when stamped over a
 * provider's PDF. Horizontal runs of dark modules are one rectangle, and identical runs in the rows
 * below are merged into it: crisp at any zoom, and a few kilobytes.
 */
import type { PDFDocument, PDFPage } from "pdf-lib";
import type { PdfLib } from "./kit.ts";

const QUIET_ZONE = 4;

export interface QrMatrix {
  size: number;
  /** `true` for a dark module, row by row from the top. */
  modules: boolean[][];
}

/**
 * Encodes `text` as UTF-8 bytes, error correction level L, the mask chosen by the standard's
 * penalty rules. L, not M: DIAN's text is long (~450 bytes), and L takes it in a version 14 code
 * (73 modules) where M needs version 16 (81): fewer, larger modules in the same square, which is
 * what makes it readable at 150 dpi (../pdf/validation-block.ts sizes the square). A printed
 * invoice is not a poster: it is read whole or not at all. `qr` (paulmillr/qr) scores the eight masks about
 * twenty times faster than the straightforward encoders, which matters inside a 40 ms budget.
 */
export async function qrMatrix(text: string): Promise<QrMatrix> {
  const { encodeQR } = await import("qr");
  // the encoder insists on a quiet zone; ask for the thinnest and take it off (we draw our own)
  const withBorder = encodeQR(text, "raw", { ecc: "low", encoding: "byte", border: 1 });
  const modules = withBorder.slice(1, -1).map((row) => row.slice(1, -1));
  return { size: modules.length, modules };
}

/** The rectangles `[x, y, width, height]` (module units, origin top-left) covering the dark modules. */
export function qrRectangles(qr: QrMatrix): [number, number, number, number][] {
  const open = new Map<string, [number, number, number, number]>();
  const done: [number, number, number, number][] = [];
  qr.modules.forEach((row, y) => {
    const runs = new Set<string>();
    let x = 0;
    while (x < qr.size) {
      if (!row[x]) {
        x++;
        continue;
      }
      const start = x;
      while (x < qr.size && row[x]) x++;
      const key = `${start}:${x}`;
      runs.add(key);
      const above = open.get(key);
      if (above) above[3]++;
      else open.set(key, [start, y, x - start, 1]);
    }
    for (const [key, rect] of open) {
      if (!runs.has(key)) {
        done.push(rect);
        open.delete(key);
      }
    }
  });
  return [...done, ...open.values()];
}

/**
 * Draws the code with the bottom-left corner of its quiet zone at (x, y), `side` points wide.
 * The QR becomes a Form XObject of `doc`, painted on `page` with one `Do`.
 */
export function drawQr(
  lib: PdfLib,
  doc: PDFDocument,
  page: PDFPage,
  qr: QrMatrix,
  x: number,
  y: number,
  side: number,
): void {
  const total = qr.size + 2 * QUIET_ZONE;
  // module units, y flipped so that row 0 is at the top
  let content = `1 g 0 0 ${total} ${total} re f 0 g\n`;
  for (const [rx, ry, w, h] of qrRectangles(qr)) {
    content += `${rx + QUIET_ZONE} ${total - QUIET_ZONE - ry - h} ${w} ${h} re\n`;
  }
  content += "f\n";
  const form = doc.context.flateStream(content, {
    Type: "XObject",
    Subtype: "Form",
    BBox: [0, 0, total, total],
  });
  const name = page.node.newXObject("QR", doc.context.register(form));
  const scale = side / total;
  page.pushOperators(
    lib.pushGraphicsState(),
    lib.concatTransformationMatrix(scale, 0, 0, scale, x, y),
    lib.drawObject(name),
    lib.popGraphicsState(),
  );
}
