/**
 * Reading back what the renderer drew, without external tools: page count and size through pdf-lib,
 * and the text of each page from its content stream (pdf-lib writes standard-font text as WinAnsi
 * hex strings, `<48656C6C6F> Tj`). Plus the external rasteriser and QR decoder for the round trip.
 */
import { spawnSync } from "node:child_process";
import { decodePDFRawStream, PDFArray, PDFDocument, PDFName, type PDFPage, PDFRawStream } from "pdf-lib";

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
