/**
 * What `deno-parity.test.ts` runs under both runtimes: the SHA-256 of the demo invoice rendered
 * stamped and unstamped, and of a provider PDF stamped.
 */
import { createHash } from "node:crypto";
import {
  acceptedFiscal,
  DEMO_STAMP,
  DEMO_VALIDATED_AT,
  demoInvoice,
  pendingFiscal,
  providerPdf,
} from "../../devkit/pdf/fixtures.ts";
import { toInvoicePdfModel } from "../../shared/pdf/model.ts";
import { renderDocumentPdf } from "../../shared/pdf/render-document.ts";
import { stampPdf } from "../../shared/pdf/stamp.ts";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

export async function renderHashes(): Promise<Record<string, string>> {
  return {
    stamped: sha256(await renderDocumentPdf(toInvoicePdfModel(demoInvoice(), acceptedFiscal()))),
    unstamped: sha256(await renderDocumentPdf(toInvoicePdfModel(demoInvoice(), pendingFiscal()))),
    provider: sha256(await stampPdf(await providerPdf(), DEMO_STAMP, new Date(DEMO_VALIDATED_AT))),
  };
}
