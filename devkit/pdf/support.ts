/**
 * Reading back what the renderer drew, without external tools: page count and size through pdf-lib,
 * and the text of each page from its content stream (pdf-lib writes standard-font text as WinAnsi
 * hex strings, `<48656C6C6F> Tj`). Plus the external rasteriser and QR decoder for the round trip.
 */

import { spawnSync } from "node:child_process";
import jsQR from "jsqr";
import {
  decodePDFRawStream,
  PDFArray,
  PDFDocument,
  PDFName,
  type PDFPage,
  PDFRawStream,
  type StandardFonts,
} from "pdf-lib";

/** WinAnsi bytes 0x80–0x9F that differ from Latin-1. */
const WIN_ANSI: Record<number, string> = {
  128: "€",
  133: "…",
  145: "‘",
  146: "’",
  147: "“",
  148: "”",
  149: "•",
  150: "–",
  151: "—",
};

export async function loadPdf(bytes: Uint8Array): Promise<PDFDocument> {
  return PDFDocument.load(bytes, { updateMetadata: false });
}

/** The content-stream operators of a page, decompressed, as text. */
export function pageOperators(page: PDFPage): string {
  const contents = page.node.Contents();
  const streams =
    contents instanceof PDFArray ? contents.asArray().map((ref) => page.doc.context.lookup(ref)) : [contents];
  return streams
    .map((stream) => {
      if (!(stream instanceof PDFRawStream)) return "";
      return new TextDecoder("latin1").decode(decodePDFRawStream(stream).decode());
    })
    .join("\n");
}

/** The decoded content of every Form XObject in the document (the QR code is one). */
export function formXObjects(doc: PDFDocument): string[] {
  return doc.context
    .enumerateIndirectObjects()
    .map(([, object]) => object)
    .filter((object): object is PDFRawStream => object instanceof PDFRawStream)
    .filter((stream) => stream.dict.get(PDFName.of("Subtype")) === PDFName.of("Form"))
    .map((stream) => new TextDecoder("latin1").decode(decodePDFRawStream(stream).decode()));
}

/** The strings a page shows, one per text-showing operator, in drawing order. */
export function pageTexts(page: PDFPage): string[] {
  const texts: string[] = [];
  for (const match of pageOperators(page).matchAll(/<([0-9A-Fa-f]*)> Tj/g)) {
    const hex = match[1] ?? "";
    let text = "";
    for (let i = 0; i < hex.length; i += 2) {
      const byte = Number.parseInt(hex.slice(i, i + 2), 16);
      text += WIN_ANSI[byte] ?? String.fromCharCode(byte);
    }
    texts.push(text);
  }
  return texts;
}

export async function documentTexts(bytes: Uint8Array): Promise<string[][]> {
  const doc = await loadPdf(bytes);
  return doc.getPages().map(pageTexts);
}

/** The external tools the round-trip test needs, and the Debian packages that provide them. */
export const RASTER_TOOLS = { pdftoppm: "poppler-utils", zbarimg: "zbar-tools" } as const;

export function missingTools(): string[] {
  return Object.keys(RASTER_TOOLS).filter(
    (tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0,
  );
}

/** Rasterises one page (1-based) of the PDF at `dpi` into a PNG file at `pngPath`. */
export function rasterise(pdfPath: string, page: number, dpi: number, pngPath: string): void {
  const result = spawnSync("pdftoppm", [
    "-png",
    "-r",
    String(dpi),
    "-f",
    String(page),
    "-l",
    String(page),
    "-singlefile",
    pdfPath,
    pngPath.replace(/\.png$/, ""),
  ]);
  if (result.status !== 0) throw new Error(`pdftoppm failed: ${result.stderr.toString()}`);
}

/** Every QR code zbarimg finds in the image (raw data, one entry per symbol). */
export function decodeQr(pngPath: string): { status: number | null; text: string } {
  const result = spawnSync("zbarimg", ["--raw", "-q", "-Sdisable", "-Sqrcode.enable", pngPath]);
  return { status: result.status, text: result.stdout.toString("utf8") };
}

/** A page rasterised in grey (pdftoppm's PGM), as pixels: what a decoder library is given. */
export function rasteriseGray(
  pdfPath: string,
  page: number,
  dpi: number,
): { width: number; height: number; grey: Uint8Array } {
  const result = spawnSync(
    "pdftoppm",
    ["-gray", "-r", String(dpi), "-f", String(page), "-l", String(page), pdfPath],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  if (result.status !== 0) throw new Error(`pdftoppm failed: ${result.error ?? result.stderr.toString()}`);
  // binary PGM: "P5", width, height, maxval, each followed by one whitespace, then the pixels
  const pgm = result.stdout as Buffer;
  const fields: string[] = [];
  let at = 0;
  while (fields.length < 4) {
    while (/\s/.test(String.fromCharCode(pgm[at] ?? 32))) at++;
    const start = at;
    while (!/\s/.test(String.fromCharCode(pgm[at] ?? 32))) at++;
    fields.push(pgm.subarray(start, at).toString("latin1"));
  }
  const [, width, height] = fields.map(Number) as [number, number, number];
  return { width, height, grey: new Uint8Array(pgm.subarray(at + 1, at + 1 + width * height)) };
}

/** The QR code jsQR (a second, independent decoder, the one web pages use) finds in a grey image, or null. */
export function decodeQrWithJsQr(image: { width: number; height: number; grey: Uint8Array }): string | null {
  const rgba = new Uint8ClampedArray(image.width * image.height * 4);
  for (let i = 0; i < image.grey.length; i++) {
    const value = image.grey[i] as number;
    rgba[4 * i] = value;
    rgba[4 * i + 1] = value;
    rgba[4 * i + 2] = value;
    rgba[4 * i + 3] = 255;
  }
  return jsQR(rgba, image.width, image.height)?.data ?? null;
}

/** The size of one QR module on the page, in points: the scale the QR form is painted with. */
export function qrModulePoints(page: PDFPage): number | null {
  const match = /([\d.]+) 0 0 ([\d.]+) [-\d.]+ [-\d.]+ cm\s+\/QR-\d+ Do/.exec(pageOperators(page));
  return match ? Number(match[1]) : null;
}

/** A string a page shows, where, in which standard font and size, and how wide it is (points). */
export interface PlacedText {
  text: string;
  x: number;
  y: number;
  size: number;
  font: string;
  width: number;
}

/**
 * The page's strings with their positions, read from the content stream the kit writes
 * (`/F 8 Tf … x y Td <hex> Tj`), and measured with the metrics of the standard font they name.
 */
export async function placedTexts(page: PDFPage): Promise<PlacedText[]> {
  const fonts = page.node.Resources()?.lookup(PDFName.of("Font"));
  const metrics = await PDFDocument.create();
  const measured = new Map<string, Awaited<ReturnType<PDFDocument["embedFont"]>>>();
  const out: PlacedText[] = [];
  const pattern = /\/(\S+) ([\d.]+) Tf\s+([-\d.]+) ([-\d.]+) Td\s+<([0-9A-Fa-f]*)> Tj/g;
  for (const [, key = "", size = "0", x = "0", y = "0", hex = ""] of pageOperators(page).matchAll(pattern)) {
    const dict =
      fonts && "lookup" in fonts ? (fonts as { lookup(n: PDFName): unknown }).lookup(PDFName.of(key)) : null;
    const base = String(
      (dict as { get(n: PDFName): unknown } | null)?.get(PDFName.of("BaseFont")) ?? "",
    ).slice(1);
    let font = measured.get(base);
    if (!font) {
      font = await metrics.embedFont(base as StandardFonts);
      measured.set(base, font);
    }
    let text = "";
    for (let i = 0; i < hex.length; i += 2) {
      const byte = Number.parseInt(hex.slice(i, i + 2), 16);
      text += WIN_ANSI[byte] ?? String.fromCharCode(byte);
    }
    out.push({
      text,
      x: Number(x),
      y: Number(y),
      size: Number(size),
      font: base,
      width: font.widthOfTextAtSize(text, Number(size)),
    });
  }
  return out;
}

/** A rectangle on the page, in points. */
export interface PlacedBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The rectangles (`x y w h re`) a page's own content stream draws, in drawing order. */
export function pageRects(page: PDFPage): PlacedBox[] {
  const pattern = /([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+) re/g;
  return [...pageOperators(page).matchAll(pattern)].map(
    ([, x = "0", y = "0", width = "0", height = "0"]) => ({
      x: Number(x),
      y: Number(y),
      width: Number(width),
      height: Number(height),
    }),
  );
}

/** Where the QR code is painted: its Form XObject's box (quiet zone included) scaled by its `cm`. */
export function qrBox(page: PDFPage): PlacedBox | null {
  const match = /([\d.]+) 0 0 ([\d.]+) ([-\d.]+) ([-\d.]+) cm\s+\/(QR-\d+) Do/.exec(pageOperators(page));
  if (!match) return null;
  const [, scale = "0", , x = "0", y = "0", name = ""] = match;
  const xobjects = page.node.Resources()?.lookup(PDFName.of("XObject"));
  const form = (xobjects as { lookup(n: PDFName): unknown } | undefined)?.lookup(PDFName.of(name));
  const bbox = (form as PDFRawStream | undefined)?.dict.lookup(PDFName.of("BBox"));
  const side = bbox instanceof PDFArray ? Number(String(bbox.get(2))) : Number.NaN;
  return { x: Number(x), y: Number(y), width: Number(scale) * side, height: Number(scale) * side };
}

/**
 * What poppler's `pdftotext` reads from the PDF, block by block as it finds them (a cell's wrapped
 * text stays together, which `-layout` would interleave with the cells beside it): an extractor
 * that shares nothing with pdf-lib.
 */
export function pdftotext(pdf: Uint8Array): string {
  const result = spawnSync("pdftotext", ["-enc", "UTF-8", "-", "-"], {
    input: pdf,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`pdftotext failed: ${result.stderr.toString()}`);
  return result.stdout.toString("utf8");
}
