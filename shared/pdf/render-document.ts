/**
 * The built-in renderer: the graphic representation of a Colombian electronic document (a sales
 * invoice, a credit note), from a `DocumentPdfModel` to PDF bytes. pdf-lib (and the QR encoder) are imported on the
 * first call, so importing this module costs a cold start nothing.
 *
 * Deterministic: the same model gives the same bytes — dates come from the model, producer and
 * creator are fixed, and pdf-lib's resource names come from a seeded generator.
 */
import type { PDFDocument } from "pdf-lib";
import { Flow, type Frame, frameFor } from "./flow.ts";
import { type Kit, loadPdfLib, makeKit, PRODUCER } from "./kit.ts";
import type { DocumentPdfModel } from "./model.ts";
import { qrMatrix } from "./qr.ts";
import {
  drawContinuationHeader,
  drawFirstHeader,
  drawFooter,
  drawParties,
  drawPendingBanner,
  drawReference,
  drawWatermark,
} from "./sections.ts";
import { drawLinesTable, drawNotes, drawSummary } from "./tables.ts";
import {
  drawPendingBlock,
  drawValidationBlock,
  layoutValidationBlock,
  VALIDATION_BLOCK_HEIGHT,
} from "./validation-block.ts";

export type { DocumentPdfModel } from "./model.ts";

/** Renders the document; stamped (CUFE/CUDE, QR, validation date) when `model.fiscal.stamped`. */
export async function renderDocumentPdf(model: DocumentPdfModel): Promise<Uint8Array> {
  const lib = await loadPdfLib();
  const doc = await lib.PDFDocument.create({ updateMetadata: false });
  const kit = await makeKit(lib, doc);
  const frame = frameFor(model.pageSize);

  setMetadata(doc, model);
  const flow = new Flow(doc, frame, (page) => drawContinuationHeader(kit, page, frame, model));
  flow.y = drawFirstHeader(kit, flow.page, frame, model);
  if (!model.fiscal.stamped) flow.y = drawPendingBanner(kit, flow.page, frame, flow.y);
  flow.y = drawParties(kit, flow.page, frame, flow.y, model);
  if (model.reference) drawReference(kit, flow, model.reference);
  drawLinesTable(kit, flow, model);
  drawSummary(kit, flow, model);
  if (model.notes?.trim()) drawNotes(kit, flow, model.notes);

  // the validation block sits at the foot of the last page, as `stampPdf` places it on a provider PDF
  const box = { x: frame.left, y: frame.bottom, width: frame.right - frame.left };
  const { fiscal } = model;
  if (fiscal.stamped) {
    const layout = layoutValidationBlock(kit, box.width, fiscal);
    if (flow.room() < layout.height + 8) flow.newPage();
    drawValidationBlock(kit, flow.page, box, layout, await qrMatrix(fiscal.qrText));
  } else {
    if (flow.room() < VALIDATION_BLOCK_HEIGHT + 8) flow.newPage();
    drawPendingBlock(kit, flow.page, box, fiscal.statusLabel, model.names, fiscal.software);
  }

  finishPages(kit, flow.pages, frame, model);
  return doc.save({ useObjectStreams: true, objectsPerTick: Number.POSITIVE_INFINITY });
}

function finishPages(kit: Kit, pages: Flow["pages"], frame: Frame, model: DocumentPdfModel): void {
  pages.forEach((page, index) => {
    drawFooter(kit, page, frame, model, index, pages.length);
    if (!model.fiscal.stamped) drawWatermark(kit, page, frame);
  });
}

function setMetadata(doc: PDFDocument, model: DocumentPdfModel): void {
  const date = new Date(model.documentDate);
  const fixed = Number.isNaN(date.getTime()) ? new Date(0) : date;
  const { title, short, codeLabel } = model.names;
  const kind = `${short.toLowerCase()} electrónica`;
  doc.setTitle(`${title} ${model.number}`);
  doc.setAuthor(model.issuer.legalName);
  doc.setSubject(
    model.fiscal.stamped
      ? `Representación gráfica de ${kind}. ${codeLabel} ${model.fiscal.authorityCode}`
      : "Documento sin validez fiscal: pendiente de validación DIAN",
  );
  doc.setKeywords([kind, "DIAN", model.number]);
  doc.setLanguage("es-CO");
  doc.setProducer(PRODUCER);
  doc.setCreator(`${PRODUCER}; ${model.templateVersion}`);
  doc.setCreationDate(fixed);
  doc.setModificationDate(fixed);
}
