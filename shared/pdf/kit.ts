/**
 * Drawing kit shared by the renderer and the stamper: pdf-lib loaded on first use (a function cold
 * start must not pay for it), the three standard fonts, and text helpers that never throw on
 * characters the fonts cannot encode.
 *
 * The standard fonts use WinAnsi, which covers Spanish (á é í ó ú ñ ü ¿ ¡ € “ ” —) but not emoji or
 * CJK. Embedding a Unicode font would add ~300 KB per PDF and a font file to ship; instead each
 * character outside the set degrades: first to its decomposition without accents ("ő" → "o",
 * "ﬁ" → "fi"), else to "?". The fiscal data itself (numbers, NIT, CUFE) is always ASCII.
 */
import type { PDFDocument, PDFFont, PDFName, PDFPage, RGB } from "pdf-lib";

export type PdfLib = typeof import("pdf-lib");

let pdfLib: Promise<PdfLib> | undefined;

/** pdf-lib, imported once, on the first PDF made. */
export function loadPdfLib(): Promise<PdfLib> {
  pdfLib ??= import("pdf-lib");
  return pdfLib;
}

/** Fixed document metadata: no `now()`, no version strings that change the bytes between builds. */
export const PRODUCER = "einvoicing-service pdf (pdf-lib)";

export interface Kit {
  lib: PdfLib;
  doc: PDFDocument;
  regular: PDFFont;
  bold: PDFFont;
  mono: PDFFont;
  /** Replaces what the fonts cannot encode; every string drawn goes through it. */
  safe(text: string): string;
  width(text: string, font: PDFFont, size: number): number;
  /** Draws `text` with its left edge at x, or its right edge / centre per `align`. */
  text(page: PDFPage, text: string, x: number, y: number, style: TextStyle): void;
  /** Splits into lines no wider than `maxWidth`, breaking at spaces, or inside over-long words. */
  wrap(text: string, font: PDFFont, size: number, maxWidth: number): string[];
  /** `wrap`, then at most `maxLines` of them, the last ending in "…" when text was left out. */
  wrapAtMost(text: string, font: PDFFont, size: number, maxWidth: number, maxLines: number): string[];
  rect(page: PDFPage, box: { x: number; y: number; width: number; height: number } & Paint): void;
  line(page: PDFPage, from: [number, number], to: [number, number], color: RGB, width: number): void;
}

export interface TextStyle {
  font: PDFFont;
  size: number;
  color?: RGB;
  align?: "left" | "right" | "center";
  /** 0–1; drawn through an ExtGState. */
  opacity?: number;
}

export interface Paint {
  fill?: RGB;
  stroke?: RGB;
  lineWidth?: number;
}

export const palette = (lib: PdfLib) => ({
  ink: lib.rgb(0.13, 0.14, 0.16),
  muted: lib.rgb(0.38, 0.4, 0.44),
  accent: lib.rgb(0.09, 0.23, 0.4),
  accentLight: lib.rgb(0.9, 0.93, 0.97),
  rule: lib.rgb(0.78, 0.8, 0.84),
  zebra: lib.rgb(0.965, 0.97, 0.98),
  danger: lib.rgb(0.72, 0.11, 0.11),
  dangerLight: lib.rgb(0.99, 0.93, 0.93),
  white: lib.rgb(1, 1, 1),
  black: lib.rgb(0, 0, 0),
});

/** Coordinates to 1/1000 pt: shorter content streams, and no float noise in the bytes. */
const r = (n: number) => Math.round(n * 1000) / 1000;

/**
 * The kit draws with PDF operators directly rather than pdf-lib's `drawText`/`drawRectangle`:
 * those register a new font resource on every call and emit a dozen operators per shape, which
 * made the content streams (and their compression) the bulk of the render time.
 */
export async function makeKit(lib: PdfLib, doc: PDFDocument): Promise<Kit> {
  const [regular, bold, mono] = await Promise.all([
    doc.embedFont(lib.StandardFonts.Helvetica),
    doc.embedFont(lib.StandardFonts.HelveticaBold),
    doc.embedFont(lib.StandardFonts.Courier),
  ]);
  const encodable = new Set(regular.getCharacterSet());
  const safe = (text: string) => sanitize(text, encodable);
  const fontKeys = new Map<PDFPage, Map<PDFFont, PDFName>>();
  const fontKey = (page: PDFPage, font: PDFFont): PDFName => {
    const keys = fontKeys.get(page) ?? new Map<PDFFont, PDFName>();
    fontKeys.set(page, keys);
    let key = keys.get(font);
    if (!key) {
      key = page.node.newFontDictionary(font.name, font.ref);
      keys.set(font, key);
    }
    return key;
  };
  const wrap = (text: string, font: PDFFont, size: number, maxWidth: number) =>
    text.split(/\r?\n/).flatMap((p) => wrapText(safe(p), (s) => font.widthOfTextAtSize(s, size), maxWidth));
  return {
    lib,
    doc,
    regular,
    bold,
    mono,
    safe,
    width: (text, font, size) => font.widthOfTextAtSize(safe(text), size),
    text(page, text, x, y, { font, size, color, align = "left", opacity }) {
      const clean = safe(text);
      if (clean === "") return;
      const w = align === "left" ? 0 : font.widthOfTextAtSize(clean, size);
      const left = align === "right" ? x - w : align === "center" ? x - w / 2 : x;
      const ops = [lib.pushGraphicsState()];
      if (opacity !== undefined) {
        const state = doc.context.obj({ Type: "ExtGState", ca: opacity, CA: opacity });
        ops.push(lib.setGraphicsState(page.node.newExtGState("GS", state)));
      }
      ops.push(
        lib.beginText(),
        lib.setFillingColor(color ?? lib.rgb(0, 0, 0)),
        lib.setFontAndSize(fontKey(page, font), size),
        lib.moveText(r(left), r(y)),
        lib.showText(font.encodeText(clean)),
        lib.endText(),
        lib.popGraphicsState(),
      );
      page.pushOperators(...ops);
    },
    wrap,
    wrapAtMost(text, font, size, maxWidth, maxLines) {
      const lines = wrap(text, font, size, maxWidth);
      if (lines.length <= maxLines) return lines;
      const kept = lines.slice(0, maxLines);
      const measure = (s: string) => font.widthOfTextAtSize(s, size);
      let last = (kept[maxLines - 1] ?? "").trimEnd();
      while (last !== "" && measure(`${last}…`) > maxWidth) last = last.slice(0, -1);
      kept[maxLines - 1] = `${last}…`;
      return kept;
    },
    rect(page, { x, y, width, height, fill, stroke, lineWidth = 1 }) {
      const ops = [lib.pushGraphicsState()];
      if (fill) ops.push(lib.setFillingColor(fill));
      if (stroke) ops.push(lib.setStrokingColor(stroke), lib.setLineWidth(lineWidth));
      ops.push(lib.rectangle(r(x), r(y), r(width), r(height)));
      ops.push(
        fill && stroke ? lib.fillAndStroke() : fill ? lib.fill() : lib.stroke(),
        lib.popGraphicsState(),
      );
      page.pushOperators(...ops);
    },
    line(page, [x1, y1], [x2, y2], color, width) {
      page.pushOperators(
        lib.pushGraphicsState(),
        lib.setStrokingColor(color),
        lib.setLineWidth(width),
        lib.moveTo(r(x1), r(y1)),
        lib.lineTo(r(x2), r(y2)),
        lib.stroke(),
        lib.popGraphicsState(),
      );
    },
  };
}

/** Keeps encodable characters, turns whitespace controls into spaces, degrades the rest. */
export function sanitize(text: string, encodable: ReadonlySet<number>): string {
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0x3f;
    if (encodable.has(code)) out += ch;
    else if (/\s/u.test(ch)) out += " ";
    else if (code < 0x20 || (code >= 0x7f && code < 0xa0) || code === 0xfe0f || code === 0x200d) continue;
    else {
      const base = ch.normalize("NFKD").replace(/\p{M}/gu, "");
      const fits = base !== "" && [...base].every((c) => encodable.has(c.codePointAt(0) ?? -1));
      out += fits ? base : "?";
    }
  }
  return out;
}

/**
 * One paragraph into lines no wider than `maxWidth`, in time linear in its length. A width is
 * additive but for the kerning of adjacent characters, so the line's width is kept as it grows:
 * width(line + " " + word) = width(line) + width(last + " " + word) − width(last), where `last` is the
 * line's last character — each word is measured once, never the whole line again. A word wider than
 * the column is cut by `fittingPrefix`, never by stepping back one character at a time (which
 * measured the whole prefix at every step: cubic in the word's length).
 */
export function wrapText(text: string, measure: (s: string) => number, maxWidth: number): string[] {
  const lines: string[] = [];
  let line = "";
  let lineWidth = 0;
  for (const word of text.trim().split(/ +/)) {
    const last = line.slice(-1);
    const width = line === "" ? measure(word) : lineWidth + measure(`${last} ${word}`) - measure(last);
    if (width <= maxWidth) {
      line = line === "" ? word : `${line} ${word}`;
      lineWidth = width;
      continue;
    }
    if (line !== "") lines.push(line);
    // a word wider than the column (a URL, a long code) is cut where it must be
    let start = 0;
    for (;;) {
      const end = fittingPrefix(word, start, measure, maxWidth);
      if (end === word.length) break;
      lines.push(word.slice(start, end));
      start = end;
    }
    line = word.slice(start);
    lineWidth = measure(line);
  }
  lines.push(line);
  return lines;
}

/**
 * The end of the longest piece of `word` from `start` that fits in `maxWidth` (at least one
 * character, so that every step makes progress). Doubles the piece while it fits, then halves the
 * gap: O(k log k) measured characters for a piece of k characters.
 */
function fittingPrefix(
  word: string,
  start: number,
  measure: (s: string) => number,
  maxWidth: number,
): number {
  const fits = (end: number) => measure(word.slice(start, end)) <= maxWidth;
  let good = start + 1;
  let bad = word.length + 1;
  for (let span = 2; good < word.length; span *= 2) {
    const probe = Math.min(word.length, start + span);
    if (!fits(probe)) {
      bad = probe;
      break;
    }
    good = probe;
  }
  while (bad - good > 1) {
    const mid = (good + bad) >>> 1;
    if (fits(mid)) good = mid;
    else bad = mid;
  }
  return good;
}
