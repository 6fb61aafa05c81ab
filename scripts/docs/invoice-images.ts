/**
 * `npm run docs:images`: renders the demo invoice, stamped and unstamped, and the demo credit note,
 * stamped, and writes the README's pictures to docs/images/ (needs pdftoppm, from poppler-utils).
 */
import { mkdtempSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  acceptedFiscal,
  DEMO_CUDE,
  demoCreditNote,
  demoInvoice,
  pendingFiscal,
} from "../../devkit/pdf/fixtures.ts";
import { rasterise } from "../../devkit/pdf/support.ts";
import { toCreditNotePdfModel, toInvoicePdfModel } from "../../shared/pdf/model.ts";
import { renderDocumentPdf } from "../../shared/pdf/render-document.ts";

const out = fileURLToPath(new URL("../../docs/images/", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "einv-docs-"));
for (const [name, model] of [
  ["invoice-stamped", toInvoicePdfModel(demoInvoice(), acceptedFiscal())],
  ["invoice-unstamped", toInvoicePdfModel(demoInvoice(), pendingFiscal())],
  [
    "credit-note-stamped",
    toCreditNotePdfModel(demoCreditNote(), acceptedFiscal({ status: "emitida", authority_code: DEMO_CUDE })),
  ],
] as const) {
  const pdf = join(work, `${name}.pdf`);
  writeFileSync(pdf, await renderDocumentPdf(model));
  rasterise(pdf, 1, 110, join(work, `${name}.png`));
  renameSync(join(work, `${name}.png`), join(out, `${name}.png`));
  console.log(`docs/images/${name}.png`);
}
