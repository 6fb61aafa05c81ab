/**
 * The fixed parts of the invoice page: the issuer header with the document number, the buyer and
 * invoice-data boxes, the compact header of continuation pages, the footer, and the "no fiscal
 * validity" marks of a document the DIAN has not accepted. Each function draws at the cursor and
 * returns the y below what it drew.
 */
import type { PDFPage } from "pdf-lib";
import type { Flow, Frame } from "./flow.ts";
import { type Kit, palette } from "./kit.ts";
import type { DocumentPdfModel, ReferenceBlock } from "./model.ts";

export const PENDING_BANNER = "DOCUMENTO SIN VALIDEZ FISCAL — pendiente de validación por la DIAN";
const WATERMARK = "SIN VALIDEZ FISCAL";
const NUMBER_BOX_WIDTH = 200;

export function drawFirstHeader(kit: Kit, page: PDFPage, frame: Frame, m: DocumentPdfModel): number {
  const c = palette(kit.lib);
  const textWidth = frame.right - frame.left - NUMBER_BOX_WIDTH - 16;
  let y = frame.top - 13;
  // Every box above the lines table has a bounded height, so the first page always has room: the
  // longest names and addresses the database allows are cut short with "…" rather than drawn off it.
  for (const line of kit.wrapAtMost(m.issuer.legalName, kit.bold, 14, textWidth, 3)) {
    kit.text(page, line, frame.left, y, { font: kit.bold, size: 14, color: c.accent });
    y -= 15;
  }
  if (m.issuer.tradeName && m.issuer.tradeName !== m.issuer.legalName) {
    const [tradeName = ""] = kit.wrapAtMost(m.issuer.tradeName, kit.regular, 9, textWidth, 1);
    kit.text(page, tradeName, frame.left, y, { font: kit.regular, size: 9, color: c.muted });
    y -= 12;
  }
  y -= 1;
  kit.text(page, m.issuer.taxId, frame.left, y, { font: kit.bold, size: 9.5, color: c.ink });
  y -= 12;
  for (const detail of m.issuer.details) {
    for (const line of kit.wrapAtMost(detail, kit.regular, 8, textWidth, 2)) {
      kit.text(page, line, frame.left, y, { font: kit.regular, size: 8, color: c.ink });
      y -= 10;
    }
  }

  // number box, top right
  const bx = frame.right - NUMBER_BOX_WIDTH;
  const top = frame.top;
  kit.rect(page, { x: bx, y: top - 22, width: NUMBER_BOX_WIDTH, height: 22, fill: c.accent });
  kit.text(page, m.names.title.toUpperCase(), bx + NUMBER_BOX_WIDTH / 2, top - 15, {
    font: kit.bold,
    size: 9.5,
    color: c.white,
    align: "center",
  });
  kit.rect(page, {
    x: bx,
    y: top - 72,
    width: NUMBER_BOX_WIDTH,
    height: 50,
    stroke: c.accent,
    lineWidth: 0.8,
  });
  kit.text(page, "No.", bx + NUMBER_BOX_WIDTH / 2, top - 34, {
    font: kit.regular,
    size: 7.5,
    color: c.muted,
    align: "center",
  });
  const size = fitSize(kit, m.number, kit.bold, 16, NUMBER_BOX_WIDTH - 12);
  kit.text(page, m.number, bx + NUMBER_BOX_WIDTH / 2, top - 52, {
    font: kit.bold,
    size,
    color: c.ink,
    align: "center",
  });
  const issued = m.facts[0]?.[1] ?? "";
  kit.text(page, `Emitida el ${issued}`, bx + NUMBER_BOX_WIDTH / 2, top - 65, {
    font: kit.regular,
    size: 7.5,
    color: c.muted,
    align: "center",
  });

  y = Math.min(y, top - 72) - 8;
  if (m.issuer.resolution) {
    for (const line of kit.wrapAtMost(m.issuer.resolution, kit.regular, 7, frame.right - frame.left, 3)) {
      kit.text(page, line, frame.left, y, { font: kit.regular, size: 7, color: c.muted });
      y -= 8.5;
    }
  }
  y -= 2;
  kit.line(page, [frame.left, y], [frame.right, y], c.rule, 0.6);
  return y - 10;
}

/** The red banner under the header of a document the DIAN has not accepted. */
export function drawPendingBanner(kit: Kit, page: PDFPage, frame: Frame, y: number): number {
  const c = palette(kit.lib);
  const width = frame.right - frame.left;
  kit.rect(page, { x: frame.left, y: y - 20, width, height: 20, fill: c.danger });
  kit.text(page, PENDING_BANNER, frame.left + width / 2, y - 13.5, {
    font: kit.bold,
    size: 9.5,
    color: c.white,
    align: "center",
  });
  return y - 30;
}

/** Buyer box (left) and invoice-data box (right), side by side. */
export function drawParties(kit: Kit, page: PDFPage, frame: Frame, y: number, m: DocumentPdfModel): number {
  const c = palette(kit.lib);
  const gap = 12;
  const leftWidth = Math.round((frame.right - frame.left - gap) * 0.56);
  const rightX = frame.left + leftWidth + gap;
  const rightWidth = frame.right - rightX;
  const pad = 7;

  const buyer: { text: string; bold: boolean; size: number }[] = [];
  for (const line of kit.wrapAtMost(m.buyer.name, kit.bold, 9.5, leftWidth - 2 * pad, 3)) {
    buyer.push({ text: line, bold: true, size: 9.5 });
  }
  buyer.push({ text: m.buyer.taxId, bold: true, size: 8.5 });
  for (const detail of m.buyer.details) {
    for (const line of kit.wrapAtMost(detail, kit.regular, 8, leftWidth - 2 * pad, 2)) {
      buyer.push({ text: line, bold: false, size: 8 });
    }
  }
  const lineHeight = 11;
  const bodyHeight = Math.max(buyer.length, m.facts.length) * lineHeight + 2 * pad - 2;
  const boxHeight = 15 + bodyHeight;

  for (const [x, width, title] of [
    [frame.left, leftWidth, "ADQUIRIENTE"],
    [rightX, rightWidth, `DATOS DE LA ${m.names.short.toUpperCase()}`],
  ] as const) {
    kit.rect(page, {
      x,
      y: y - boxHeight,
      width,
      height: boxHeight,
      stroke: c.rule,
      lineWidth: 0.8,
    });
    kit.rect(page, { x, y: y - 15, width, height: 15, fill: c.accentLight });
    kit.text(page, title, x + pad, y - 10.5, { font: kit.bold, size: 7.5, color: c.accent });
  }

  let by = y - 15 - pad - 7;
  for (const line of buyer) {
    const font = line.bold ? kit.bold : kit.regular;
    kit.text(page, line.text, frame.left + pad, by, { font, size: line.size, color: c.ink });
    by -= lineHeight;
  }
  let fy = y - 15 - pad - 7;
  for (const [label, value] of m.facts) {
    kit.text(page, label, rightX + pad, fy, { font: kit.regular, size: 8, color: c.muted });
    kit.text(page, value, rightX + rightWidth - pad, fy, {
      font: kit.bold,
      size: fitSize(kit, value, kit.bold, 8, rightWidth - 110),
      color: c.ink,
      align: "right",
    });
    fy -= lineHeight;
  }
  return y - boxHeight - 12;
}

export function drawContinuationHeader(kit: Kit, page: PDFPage, frame: Frame, m: DocumentPdfModel): number {
  const c = palette(kit.lib);
  const y = frame.top - 10;
  const [legalName = ""] = kit.wrapAtMost(
    m.issuer.legalName,
    kit.bold,
    10,
    (frame.right - frame.left) / 2,
    1,
  );
  kit.text(page, legalName, frame.left, y, { font: kit.bold, size: 10, color: c.accent });
  kit.text(page, m.issuer.taxId, frame.left, y - 12, { font: kit.regular, size: 8, color: c.ink });
  kit.text(page, `${m.names.title} No. ${m.number}`, frame.right, y, {
    font: kit.bold,
    size: 10,
    color: c.ink,
    align: "right",
  });
  kit.text(page, "(continuación)", frame.right, y - 12, {
    font: kit.regular,
    size: 8,
    color: c.muted,
    align: "right",
  });
  kit.line(page, [frame.left, y - 20], [frame.right, y - 20], c.rule, 0.6);
  return y - 32;
}

export function drawFooter(
  kit: Kit,
  page: PDFPage,
  frame: Frame,
  m: DocumentPdfModel,
  index: number,
  count: number,
) {
  const c = palette(kit.lib);
  const y = frame.footer;
  kit.line(page, [frame.left, y + 10], [frame.right, y + 10], c.rule, 0.5);
  const [left = ""] = kit.wrapAtMost(
    `${m.names.title} ${m.number} · ${m.issuer.legalName} · ${m.issuer.taxId}`,
    kit.regular,
    7,
    frame.right - frame.left - 80,
    1,
  );
  kit.text(page, left, frame.left, y, { font: kit.regular, size: 7, color: c.muted });
  kit.text(page, `Página ${index + 1} de ${count}`, frame.right, y, {
    font: kit.bold,
    size: 7,
    color: c.muted,
    align: "right",
  });
}

/**
 * A large, light diagonal mark across the page, drawn over the content with transparency. The
 * rotation is the exact 3-4-5 triangle (cos 0.6, sin 0.8, about 53°, near the page diagonal) applied
 * as a matrix: no sin/cos/atan2, whose last bit differs between V8 versions, so Node and Deno write
 * the same bytes.
 */
export function drawWatermark(kit: Kit, page: PDFPage, frame: Frame): void {
  const { lib } = kit;
  const size = 66;
  const width = kit.width(WATERMARK, kit.bold, size);
  const capHeight = size * 0.72;
  const [cos, sin] = [0.6, 0.8];
  const x = frame.width / 2 - (width / 2) * cos + (capHeight / 2) * sin;
  const y = frame.height / 2 - (width / 2) * sin - (capHeight / 2) * cos;
  page.pushOperators(
    lib.pushGraphicsState(),
    lib.concatTransformationMatrix(cos, sin, -sin, cos, round(x), round(y)),
  );
  kit.text(page, WATERMARK, 0, 0, { font: kit.bold, size, color: palette(lib).danger, opacity: 0.1 });
  page.pushOperators(lib.popGraphicsState());
}

/** The largest size ≤ `size` (down to 6 pt) at which `text` fits in `width`. */
export function fitSize(kit: Kit, text: string, font: Kit["bold"], size: number, width: number): number {
  let s = size;
  while (s > 6 && kit.width(text, font, s) > width) s -= 0.5;
  return s;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** Label/value pairs under a heading, full width, values wrapped: a credit note's reference. */
export function drawReference(kit: Kit, flow: Flow, block: ReferenceBlock): void {
  const c = palette(kit.lib);
  const pad = 6;
  const labelWidth = 120;
  const valueWidth = flow.contentWidth - labelWidth - 2 * pad;
  const rows = block.facts.map(([label, value]) => ({
    label,
    // measured in the font it is drawn in: a code wrapped by the regular face runs past the box in bold
    lines: kit.wrapAtMost(value, kit.bold, 8, valueWidth, 8),
  }));
  const height = 15 + pad + rows.reduce((h, r) => h + r.lines.length * 10 + 2, 0);
  flow.ensure(height + 12);
  const { page } = flow;
  const top = flow.y;
  kit.rect(page, {
    x: flow.frame.left,
    y: top - height,
    width: flow.contentWidth,
    height,
    stroke: c.rule,
    lineWidth: 0.8,
  });
  kit.rect(page, {
    x: flow.frame.left,
    y: top - 15,
    width: flow.contentWidth,
    height: 15,
    fill: c.accentLight,
  });
  kit.text(page, block.heading, flow.frame.left + pad, top - 10.5, {
    font: kit.bold,
    size: 7.5,
    color: c.accent,
  });
  let y = top - 15 - pad - 5;
  for (const row of rows) {
    kit.text(page, row.label, flow.frame.left + pad, y, { font: kit.regular, size: 8, color: c.muted });
    for (const line of row.lines) {
      kit.text(page, line, flow.frame.left + pad + labelWidth, y, { font: kit.bold, size: 8, color: c.ink });
      y -= 10;
    }
    y -= 2;
  }
  flow.y = top - height - 12;
}
