/**
 * Stamps the authority's validation (CUFE, QR code, validation date) onto a PDF made elsewhere — the
 * company's `docsgen` provider — at the foot of its last page, exactly as the built-in renderer
 * draws it. The block is opaque: on a Letter or A4 page a provider template must keep the lowest
 * `STAMP_AREA_HEIGHT` points of the last page free, or the block covers what is there. On a
 * narrower page the block keeps its text whole and so grows upward (a credit note on half-letter,
 * 396 pt wide, takes about 250 pt; on an 80 mm roll the text goes under the QR code).
 */
import { MAX_PAGES, RenderBudgetError } from "./flow.ts";
import { loadPdfLib, makeKit, PRODUCER } from "./kit.ts";
import type { ValidationStamp } from "./model.ts";
import { qrMatrix } from "./qr.ts";
import { drawValidationBlock, layoutValidationBlock, VALIDATION_BLOCK_HEIGHT } from "./validation-block.ts";

/** Space the stamp takes at the foot of a Letter or A4 page, from the bottom edge. */
export const STAMP_AREA_HEIGHT = 36 + VALIDATION_BLOCK_HEIGHT;
const MARGIN = 36;

/**
 * Returns a copy of `basePdf` with the validation block on its last page. `fixedDate` becomes the
 * modification date (pass the validation instant), so equal inputs give equal bytes.
 */
export async function stampPdf(
  basePdf: Uint8Array,
  stamp: ValidationStamp,
  fixedDate: Date,
): Promise<Uint8Array> {
  const lib = await loadPdfLib();
  const doc = await lib.PDFDocument.load(basePdf, {
    updateMetadata: false,
    parseSpeed: lib.ParseSpeeds.Fastest,
  });
  const pages = doc.getPages();
  if (pages.length > MAX_PAGES) throw new RenderBudgetError();
  const page = pages[pages.length - 1];
  if (!page) throw new Error("the PDF to stamp has no pages");
  const kit = await makeKit(lib, doc);
  const qr = await qrMatrix(stamp.qrText);

  // the visible page area (CropBox, else MediaBox), which need not start at (0, 0)
  const { x, y, width } = page.getCropBox();
  const margin = Math.min(MARGIN, width / 20);
  const box = { x: x + margin, y: y + MARGIN, width: width - 2 * margin };
  drawValidationBlock(kit, page, box, layoutValidationBlock(kit, box.width, stamp), qr);

  doc.setProducer(PRODUCER);
  doc.setModificationDate(fixedDate);
  return doc.save({ useObjectStreams: true, objectsPerTick: Number.POSITIVE_INFINITY });
}
