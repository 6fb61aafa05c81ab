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

/** Height the block takes; the renderer keeps this much free at the foot of the last page. */
export const VALIDATION_BLOCK_HEIGHT = 122;
const PAD = 9;
const QR_SIDE = VALIDATION_BLOCK_HEIGHT - 2 * PAD + 4;

export const NOT_VALID_TITLE = "DOCUMENTO SIN VALIDEZ FISCAL";

export interface Box {
  x: number;
  y: number;
  width: number;
}

/** The accepted invoice's block: QR left, CUFE and validation data right. `qr` from `qrMatrix`. */
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
  y -= 14;
  kit.text(page, names.codeLabel, left, y, { font: kit.bold, size: 7.5, color: c.ink });
  y -= 9.5;
  for (const line of kit.wrap(stamp.authorityCode, kit.mono, 7, width)) {
    kit.text(page, line, left, y, { font: kit.mono, size: 7, color: c.ink });
    y -= 9;
  }
  y -= 5;
  const facts: [string, string][] = [
    ["Fecha y hora de validación DIAN", formatTimestampCo(stamp.validatedAt)],
    ["Ambiente", test ? "Habilitación (pruebas)" : "Producción"],
  ];
  for (const [label, value] of facts) {
    kit.text(page, `${label}:`, left, y, { font: kit.bold, size: 7.5, color: c.ink });
    kit.text(page, value, left + kit.width(`${label}: `, kit.bold, 7.5), y, {
      font: kit.regular,
      size: 7.5,
      color: c.ink,
    });
    y -= 10;
  }
  const url = dianQrUrl(stamp.authorityCode, stamp.environment).replace(/\?.*$/, "");
  for (const line of kit.wrap(
    `Verifique este documento escaneando el código QR o en ${url}`,
    kit.regular,
    7,
    width,
  )) {
    kit.text(page, line, left, y, { font: kit.regular, size: 7, color: c.muted });
    y -= 8.5;
  }
}

/** The placeholder of a document the DIAN has not accepted: same place, red, no QR. */
export function drawPendingBlock(
  kit: Kit,
  page: PDFPage,
  box: Box,
  statusLabel: string,
  names: DocumentNames,
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
}

function frame(box: Box) {
  return { x: box.x, y: box.y, width: box.width, height: VALIDATION_BLOCK_HEIGHT };
}
