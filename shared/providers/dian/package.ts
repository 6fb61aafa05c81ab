/**
 * The ZIP a document travels in to DIAN: exactly one XML per ZIP. SendBillSync refuses more
 * (status 89, "El método síncrono solo puede recibir un documento.", [D] DianPAServices
 * `UploadDocumentSync`), and a test set batch of one document settles with one answer, so this
 * module makes no other kind.
 *
 * The names follow the Anexo técnico's convention (brief §3, the same stem as the buyer's files in
 * ../../co/delivery-files.ts): `fv` (invoice), `nc` (credit note) or `nd` (debit note) + the issuer's NIT padded to 10 + `000`
 * + the year's two digits + an 8-character hexadecimal consecutive, inside `z…zip`. DIAN does not
 * enforce them — Odoo sends `invoice.zip` holding `invoice.xml` and DIAN accepts it ([O]
 * `_send_to_dian`; DIAN echoes the name in `XmlFileName`) — so the consecutive is the caller's
 * choice; it only has to keep two ZIPs of one issuer and year apart.
 */

import { type DeliveryPackage, dianFileStem } from "../../co/delivery-files.ts";
import { zipFiles } from "../../kernel/zip.ts";
import { toBase64 } from "../../ports/providers/deliver.ts";
import type { DocumentKind } from "../../ports/providers/protocol.ts";

export interface SubmissionFiles {
  /** The XML's name inside the ZIP: `fv…xml`, `nc…xml` or `nd…xml`. */
  xml: string;
  /** The ZIP's name: SendBillSync's and SendTestSetAsync's `fileName`. */
  zip: string;
}

const PREFIX: Record<DocumentKind, string> = { invoice: "fv", credit_note: "nc", debit_note: "nd" };

/** The names of a document's XML and of its ZIP. Throws a RangeError for an impossible package. */
export function submissionFiles(input: {
  kind: DocumentKind;
  /** The issuer's NIT without the check digit. */
  issuerNit: string;
  package: DeliveryPackage;
}): SubmissionFiles {
  const stem = dianFileStem(input.issuerNit, input.package);
  return { xml: `${PREFIX[input.kind]}${stem}.xml`, zip: `z${stem}.zip` };
}

/** What a send operation carries: the ZIP's name and the ZIP in base64. */
export interface PackedDocument {
  fileName: string;
  contentFile: string;
}

/**
 * The signed XML zipped alone under `files.xml` (its bytes untouched: they are what was signed),
 * named `files.zip`. `modified` is the entry's time.
 */
export async function packDocument(
  files: SubmissionFiles,
  xml: Uint8Array,
  modified: Date,
): Promise<PackedDocument> {
  const zip = await zipFiles([{ name: files.xml, bytes: xml }], modified);
  return { fileName: files.zip, contentFile: toBase64(zip) };
}
