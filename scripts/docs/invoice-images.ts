/**
 * `npm run docs:images`: renders the demo invoice, stamped and unstamped, and writes the README's
 * pictures to docs/images/ (needs pdftoppm, from Debian's poppler-utils).
 */
import { mkdtempSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { toInvoicePdfModel } from "../../shared/pdf/model.ts";
import { renderDocumentPdf } from "../../shared/pdf/render-document.ts";
import { acceptedFiscal, demoInvoice, pendingFiscal } from "../../tests/pdf/fixtures.ts";
import { rasterise } from "../../tests/pdf/support.ts";

const out = fileURLToPath(new URL("../../docs/images/", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "einv-docs-"));
for (const [name, fiscal] of [
  ["invoice-stamped", acceptedFiscal()],
  ["invoice-unstamped", pendingFiscal()],
] as const) {
  const pdf = join(work, `${name}.pdf`);
  writeFileSync(pdf, await renderDocumentPdf(toInvoicePdfModel(demoInvoice(), fiscal)));
  rasterise(pdf, 1, 110, join(work, `${name}.png`));
  renameSync(join(work, `${name}.png`), join(out, `${name}.png`));
  console.log(`docs/images/${name}.png`);
}
