/**
 * The box at the foot of the last page. Once the DIAN accepted the invoice: the QR code, the CUFE,
 * the validation date and the environment. Before that: a placeholder that says, in red, that the
 * document has no fiscal validity yet. The built-in renderer and `stampPdf` (a provider's PDF) both
 * draw it through `drawValidationBlock`, so a stamped PDF looks the same whichever made the base.
 */
import type { PDFPage } from "pdf-lib";
import { dianQrUrl } from "../fiscal/co/cufe.ts";
import { formatTimestampCo } from "./format.ts";
import { type Kit, palette } from "./kit.ts";
import type { DocumentNames, ValidationStamp } from "./model.ts";
import { drawQr, type QrMatrix } from "./qr.ts";

/**
 * Height the block takes; the renderer keeps this much free at the foot of the last page. It is
 * set by the QR code: DIAN's text (two 96-character codes among ten fields, ~450 bytes) needs a
 * version 14–16 code even at error correction L, and a module must stay ≥ 1.5 pt (≥ 3 pixels at
 * 150 dpi) for common decoders (jsQR) to read the code from a scan or a screen.
 */
export const VALIDATION_BLOCK_HEIGHT = 158;
const PAD = 9;
const QR_SIDE = VALIDATION_BLOCK_HEIGHT - 2 * PAD + 4;
/** The issuing software's line, at the foot of the block's text column. */
const SOFTWARE_SIZE = 6.5;

export const NOT_VALID_TITLE = "DOCUMENTO SIN VALIDEZ FISCAL";

export interface Box {
  x: number;
  y: number;
  width: number;
}

/**
 * The accepted document's block: QR left; right, the authority code, what a credit note corrects
 * (invoice, its CUFE, concept), the validation data, and the issuing software. `qr` from `qrMatrix`.
 */
export function drawValidationBlock(
  kit: Kit,
  page: PDFPage,
  box: Box,
  stamp: ValidationStamp,
  qr: QrMatrix,
): void {
  const { lib } = kit;
  const c = palette(lib);
  const h = VALIDATION_BLOCK_HEIGHT;
  kit.rect(page, { x: box.x, y: box.y, width: box.width, height: h, fill: c.white });
  kit.rect(page, { ...frame(box), stroke: c.accent, lineWidth: 0.8 });
  drawQr(lib, kit.doc, page, qr, box.x + PAD - 2, box.y + PAD - 2, QR_SIDE);

  const left = box.x + QR_SIDE + 2 * PAD;
  const width = box.x + box.width - PAD - left;
  let y = box.y + h - PAD - 9;
  const { names } = stamp;
  kit.text(page, `Representación gráfica de la ${names.title.toLowerCase()}`, left, y, {
    font: kit.bold,
    size: 9.5,
    color: c.accent,
  });
  y -= 12;
  const test = stamp.environment !== "prd";
  kit.text(
    page,
    test
      ? "Validada por la DIAN en ambiente de habilitación (pruebas): documento de prueba."
      : `${names.short} electrónica validada por la DIAN.`,
    left,
    y,
    { font: kit.regular, size: 7.5, color: test ? c.danger : c.muted },
  );
  y -= 13;
  y = drawCode(kit, page, `${names.codeLabel}:`, stamp.authorityCode, left, y, width);
  if (stamp.corrects) {
    y = drawFact(kit, page, "Factura que corrige", stamp.corrects.invoice, left, y, width);
    y = drawCode(kit, page, "CUFE de la factura:", stamp.corrects.cufe, left, y, width);
    y = drawFact(kit, page, "Concepto de corrección", stamp.corrects.concept, left, y, width);
  }
  y = drawFact(
    kit,
    page,
    "Validación DIAN",
    `${formatTimestampCo(stamp.validatedAt)} · Ambiente: ${test ? "Habilitación (pruebas)" : "Producción"}`,
    left,
    y,
    width,
  );
  const url = dianQrUrl(stamp.authorityCode, stamp.environment).replace(/\?.*$/, "");
  for (const line of kit.wrapAtMost(
    `Verifique este documento escaneando el código QR o en ${url}`,
    kit.regular,
    7,
    width,
    2,
  )) {
    kit.text(page, line, left, y, { font: kit.regular, size: 7, color: c.muted });
    y -= 8.5;
  }
  drawSoftware(kit, page, stamp.software, left, box.y + PAD - 1, width);
}

/** A code (CUFE, CUDE) under its label, in the monospaced font, wrapped to the column. */
function drawCode(kit: Kit, page: PDFPage, label: string, code: string, x: number, y: number, width: number) {
  const c = palette(kit.lib);
  kit.text(page, label, x, y, { font: kit.bold, size: 7.5, color: c.ink });
  y -= 8.5;
  for (const line of kit.wrap(code, kit.mono, 6.5, width)) {
    kit.text(page, line, x, y, { font: kit.mono, size: 6.5, color: c.ink });
    y -= 8;
  }
  return y - 2;
}

/** "Label: value", the value wrapped to the column (two lines at most). */
function drawFact(
  kit: Kit,
  page: PDFPage,
  label: string,
  value: string,
  x: number,
  y: number,
  width: number,
) {
  const c = palette(kit.lib);
  const head = `${label}: `;
  const indent = kit.width(head, kit.bold, 7.5);
  kit.text(page, head, x, y, { font: kit.bold, size: 7.5, color: c.ink });
  const [first = "", ...rest] = kit.wrapAtMost(value, kit.regular, 7.5, width - indent, 2);
  kit.text(page, first, x + indent, y, { font: kit.regular, size: 7.5, color: c.ink });
  y -= 9.5;
  for (const line of rest) {
    kit.text(page, line, x + indent, y, { font: kit.regular, size: 7.5, color: c.ink });
    y -= 9.5;
  }
  return y;
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
