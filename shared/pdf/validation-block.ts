/**
 * The box at the foot of the last page. Once the DIAN accepted the invoice: the QR code, the CUFE,
 * the validation date and the environment. Before that: a placeholder that says, in red, that the
 * document has no fiscal validity yet. The built-in renderer and `stampPdf` (a provider's PDF) both
 * draw it through `drawValidationBlock`, so a stamped PDF looks the same whichever made the base.
 *
 * The accepted block is laid out before it is drawn (`layoutValidationBlock`): its text is wrapped to
 * the width it is given, never cut, and the block is as tall as its text needs, at least
 * `VALIDATION_BLOCK_HEIGHT` — which is its height on Letter and A4. On a narrow page (half-letter,
 * A5) the text column beside the QR code is narrower, so the block grows upward; where the column
 * would be too narrow (an 80 mm roll) the text goes under the QR code, whichever is shorter.
 */
import type { PDFFont, PDFPage, RGB } from "pdf-lib";
import { dianQrUrl } from "../co/cufe.ts";
import { formatTimestampCo } from "./format.ts";
import { type Kit, palette } from "./kit.ts";
import type { DocumentNames, ValidationStamp } from "./model.ts";
import { drawQr, type QrMatrix } from "./qr.ts";

/**
 * The block's least height, and its height on Letter and A4; the renderer keeps at least this much
 * free at the foot of the last page. It is set by the QR code: DIAN's text (two 96-character codes
 * among ten fields, ~450 bytes) needs a version 14–16 code even at error correction L, and a module
 * must stay ≥ 1.5 pt (≥ 3 pixels at 150 dpi) for common decoders (jsQR) to read the code from a scan
 * or a screen.
 */
export const VALIDATION_BLOCK_HEIGHT = 158;
const PAD = 9;
const QR_SIDE = VALIDATION_BLOCK_HEIGHT - 2 * PAD + 4;
/** The QR code's quiet zone is white: it may come this much closer to the frame than the text. */
const QR_INSET = PAD - 2;
/** The issuing software's lines, at the foot of the block's text column. */
const SOFTWARE_SIZE = 6.5;
const SOFTWARE_LEADING = 7.5;

export const NOT_VALID_TITLE = "DOCUMENTO SIN VALIDEZ FISCAL";

export interface Box {
  x: number;
  y: number;
  width: number;
}

/** One line of text: `dx` from the block's left edge, its baseline `dy` below the block's top. */
interface Run {
  text: string;
  dx: number;
  dy: number;
  font: PDFFont;
  size: number;
  color: RGB;
}

/** The accepted block as it will be drawn in a box of some width; `height` is what it takes. */
export interface ValidationLayout {
  height: number;
  /** The QR code's square (quiet zone included): its left edge and top, from the block's. */
  qr: { dx: number; dy: number; side: number };
  runs: Run[];
}

/**
 * The accepted document's block: QR left and, right of it, the title, the authority code, what a
 * credit note corrects (invoice, its CUFE, concept), the validation data, and the issuing software
 * at the foot. When the text under the QR code (centred) makes a shorter block, it goes there.
 * On a page narrower than the QR code, the code shrinks with it.
 */
export function layoutValidationBlock(kit: Kit, width: number, stamp: ValidationStamp): ValidationLayout {
  const side = Math.max(0, Math.min(QR_SIDE, width - 2 * QR_INSET));
  const beside = side + 2 * PAD;
  const under = layoutText(kit, stamp, { left: PAD, top: QR_INSET + side, width: width - 2 * PAD });
  if (width - PAD - beside > 0) {
    const right = layoutText(kit, stamp, { left: beside, top: 0, width: width - PAD - beside });
    const height = Math.max(VALIDATION_BLOCK_HEIGHT, right.height);
    if (height <= under.height) {
      return { height, qr: { dx: QR_INSET, dy: QR_INSET, side }, runs: right.place(height) };
    }
  }
  const qr = { dx: (width - side) / 2, dy: QR_INSET, side };
  return { height: under.height, qr, runs: under.place(under.height) };
}

/** Draws a laid-out block with its bottom-left corner at (box.x, box.y); `qr` from `qrMatrix`. */
export function drawValidationBlock(
  kit: Kit,
  page: PDFPage,
  box: Box,
  layout: ValidationLayout,
  qr: QrMatrix,
): void {
  const c = palette(kit.lib);
  const { height } = layout;
  const top = box.y + height;
  kit.rect(page, { x: box.x, y: box.y, width: box.width, height, fill: c.white });
  kit.rect(page, { x: box.x, y: box.y, width: box.width, height, stroke: c.accent, lineWidth: 0.8 });
  const { dx, dy, side } = layout.qr;
  drawQr(kit.lib, kit.doc, page, qr, box.x + dx, top - dy - side, side);
  for (const run of layout.runs) {
    kit.text(page, run.text, box.x + run.dx, top - run.dy, {
      font: run.font,
      size: run.size,
      color: run.color,
    });
  }
}

/**
 * The block's text in a column `width` wide at `left`, starting `top` below the block's top: the
 * height the block needs for it, and `place`, the lines for a block of a given height (the
 * software's lines sit at its foot).
 */
function layoutText(kit: Kit, stamp: ValidationStamp, column: { left: number; top: number; width: number }) {
  const c = palette(kit.lib);
  const { left, width } = column;
  const runs: Run[] = [];
  let y = column.top + PAD + 9;
  const put = (text: string, dx: number, font: PDFFont, size: number, color: RGB) =>
    runs.push({ text, dx: left + dx, dy: y, font, size, color });

  const { names } = stamp;
  const title = kit.wrap(`Representación gráfica de la ${names.title.toLowerCase()}`, kit.bold, 9.5, width);
  title.forEach((line, i) => {
    if (i > 0) y += 11.5;
    put(line, 0, kit.bold, 9.5, c.accent);
  });
  y += 12;
  const test = stamp.environment !== "prd";
  const validated = test
    ? "Validada por la DIAN en ambiente de habilitación (pruebas): documento de prueba."
    : `${names.short} electrónica validada por la DIAN.`;
  kit.wrap(validated, kit.regular, 7.5, width).forEach((line, i) => {
    if (i > 0) y += 9;
    put(line, 0, kit.regular, 7.5, test ? c.danger : c.muted);
  });
  y += 13;

  /** A code (CUFE, CUDE) under its label, in the monospaced font, cut into lines of equal length. */
  const code = (label: string, value: string) => {
    put(label, 0, kit.bold, 7.5, c.ink);
    y += 8.5;
    const fits = Math.max(1, Math.floor(width / kit.width("0", kit.mono, 6.5)));
    const per = Math.ceil(value.length / Math.ceil(value.length / fits));
    for (let at = 0; at < value.length; at += per) {
      put(value.slice(at, at + per), 0, kit.mono, 6.5, c.ink);
      y += 8;
    }
    y += 2;
  };
  /** "Label: value", the value after the label and then on the column's full width. */
  const fact = (label: string, value: string) => {
    const head = `${label}: `;
    const indent = kit.width(head, kit.bold, 7.5);
    put(head, 0, kit.bold, 7.5, c.ink);
    const flat = kit.safe(value).trim().split(/ +/).join(" ");
    let [first = ""] = kit.wrap(flat, kit.regular, 7.5, width - indent);
    // a first word that does not fit beside the label starts on the next line instead
    if (first !== flat && flat.charAt(first.length) !== " ") first = "";
    if (first !== "") put(first, indent, kit.regular, 7.5, c.ink);
    y += 9.5;
    const rest = flat.slice(first.length).trim();
    if (rest === "") return;
    for (const line of kit.wrap(rest, kit.regular, 7.5, width)) {
      put(line, 0, kit.regular, 7.5, c.ink);
      y += 9.5;
    }
  };

  code(`${names.codeLabel}:`, stamp.authorityCode);
  if (stamp.corrects) {
    const labels = stamp.corrects.labels ?? {
      invoice: "Factura que corrige",
      concept: "Concepto de corrección",
    };
    fact(labels.invoice, stamp.corrects.invoice);
    code("CUFE de la factura:", stamp.corrects.cufe);
    fact(labels.concept, stamp.corrects.concept);
  }
  fact(
    "Validación DIAN",
    `${formatTimestampCo(stamp.validatedAt)} · Ambiente: ${test ? "Habilitación (pruebas)" : "Producción"}`,
  );
  const url = dianQrUrl(stamp.authorityCode, stamp.environment).replace(/\?.*$/, "");
  for (const line of kit.wrap(
    `Verifique este documento escaneando el código QR o en ${url}`,
    kit.regular,
    7,
    width,
  )) {
    put(line, 0, kit.regular, 7, c.muted);
    y += 8.5;
  }

  const software = kit.wrap(stamp.software, kit.regular, SOFTWARE_SIZE, width);
  const below = (software.length - 1) * SOFTWARE_LEADING + PAD - 1;
  return {
    height: y + 2 + below,
    place(height: number): Run[] {
      const foot = software.map((text, i) => ({
        text,
        dx: left,
        dy: height - below + i * SOFTWARE_LEADING,
        font: kit.regular,
        size: SOFTWARE_SIZE,
        color: c.muted,
      }));
      return [...runs, ...foot];
    },
  };
}

/** The issuing software and its maker, one line at `y` (shrunk to fit the column). */
function drawSoftware(kit: Kit, page: PDFPage, software: string, x: number, y: number, width: number) {
  const [line = ""] = kit.wrapAtMost(software, kit.regular, SOFTWARE_SIZE, width, 1);
  kit.text(page, line, x, y, { font: kit.regular, size: SOFTWARE_SIZE, color: palette(kit.lib).muted });
}

/** The placeholder of a document the DIAN has not accepted: same place, red, no QR. */
export function drawPendingBlock(
  kit: Kit,
  page: PDFPage,
  box: Box,
  statusLabel: string,
  names: DocumentNames,
  software: string,
): void {
  const c = palette(kit.lib);
  const h = VALIDATION_BLOCK_HEIGHT;
  kit.rect(page, { ...frame(box), fill: c.dangerLight, stroke: c.danger, lineWidth: 1 });
  const side = QR_SIDE;
  const qx = box.x + PAD - 2;
  const qy = box.y + PAD - 2;
  kit.rect(page, {
    x: qx,
    y: qy,
    width: side,
    height: side,
    fill: c.white,
    stroke: c.danger,
    lineWidth: 0.6,
  });
  kit.line(page, [qx, qy], [qx + side, qy + side], c.danger, 0.6);
  kit.line(page, [qx, qy + side], [qx + side, qy], c.danger, 0.6);
  const cx = qx + side / 2;
  kit.rect(page, { x: qx + 12, y: qy + side / 2 - 12, width: side - 24, height: 24, fill: c.white });
  kit.text(page, "SIN CÓDIGO QR", cx, qy + side / 2 + 1, {
    font: kit.bold,
    size: 7,
    color: c.danger,
    align: "center",
  });
  kit.text(page, "hasta la validación", cx, qy + side / 2 - 8, {
    font: kit.regular,
    size: 6.5,
    color: c.danger,
    align: "center",
  });

  const left = box.x + QR_SIDE + 2 * PAD;
  const width = box.x + box.width - PAD - left;
  let y = box.y + h - PAD - 14;
  kit.text(page, NOT_VALID_TITLE, left, y, { font: kit.bold, size: 14, color: c.danger });
  y -= 16;
  kit.text(page, `Estado: ${statusLabel}.`, left, y, { font: kit.bold, size: 8.5, color: c.ink });
  y -= 13;
  const short = names.short.toLowerCase();
  const explanation =
    `Este documento es una vista previa y no es una ${short} electrónica válida para efectos ` +
    `fiscales. El ${names.codeLabel}, el código QR y la fecha de validación se incluyen cuando la DIAN acepte la ${short}.`;
  for (const line of kit.wrap(explanation, kit.regular, 8, width)) {
    kit.text(page, line, left, y, { font: kit.regular, size: 8, color: c.ink });
    y -= 10;
  }
  y -= 4;
  kit.text(page, `${names.codeLabel}: pendiente de validación DIAN`, left, y, {
    font: kit.bold,
    size: 8,
    color: c.danger,
  });
  drawSoftware(kit, page, software, left, box.y + PAD - 1, width);
}

function frame(box: Box) {
  return { x: box.x, y: box.y, width: box.width, height: VALIDATION_BLOCK_HEIGHT };
}
