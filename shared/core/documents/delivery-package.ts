/**
 * What a buyer receives of an accepted document, for any kind: its stamped PDF and its
 * AttachedDocument XML, in one ZIP named as DIAN names it (shared/co/delivery-files.ts).
 */

import { type DeliveryPackage, type DianDeliveryFiles, dianDeliveryFiles } from "../../co/delivery-files.ts";
import type { DocumentKind, DocumentRecord } from "../../kernel/rows.ts";
import { zipFiles } from "../../kernel/zip.ts";
import type { DocumentKindSpec } from "./kind.ts";
import { ensureDocumentPdf, type RepresentationContext } from "./representation.ts";

/** The stamped PDF, made current first; read back from the bucket when it already was. */
export async function stampedPdf<K extends DocumentKind>(
  ctx: RepresentationContext,
  kind: DocumentKindSpec<K>,
  orgId: string,
  record: DocumentRecord<K>,
): Promise<Uint8Array> {
  const pdfInput = { org_id: orgId, document_id: record.document.id };
  const rendered = await ensureDocumentPdf({
    ctx,
    kind,
    input: { ...pdfInput, regenerate: false },
    record,
  });
  const pdf =
    rendered.bytes ??
    (await ctx.documents.get(rendered.result.path)) ??
    (await ensureDocumentPdf({ ctx, kind, input: { ...pdfInput, regenerate: true } })).bytes;
  if (!pdf) throw new Error(`the PDF of ${kind.words.noun} ${record.document.id} could not be produced`);
  return pdf;
}

/** The ZIP a buyer gets, and the names of the files in it. */
export interface BuyerPackage {
  files: DianDeliveryFiles;
  zip: Uint8Array;
}

/**
 * The XML and the PDF under DIAN's names for the delivery's package, zipped with its time fixed at
 * the validation: the same document, the same archive.
 */
export async function packageForBuyer(
  { document, fiscal }: DocumentRecord,
  parcel: DeliveryPackage,
  xml: Uint8Array,
  pdf: Uint8Array,
): Promise<BuyerPackage> {
  const files = dianDeliveryFiles({ issuerNit: document.company.nit, package: parcel });
  const validatedAt = new Date(fiscal.transmitted_at ?? `${document.issue_date}T12:00:00Z`);
  const zip = await zipFiles(
    [
      { name: files.xml, bytes: xml },
      { name: files.pdf, bytes: pdf },
    ],
    validatedAt,
  );
  return { files, zip };
}
