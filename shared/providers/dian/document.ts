/**
 * A signed DIAN document from the document our protocol submits: the UBL 2.1 Invoice or CreditNote
 * (./ubl.ts), signed XAdES-EPES (./signature.ts). The bytes returned are the bytes to send.
 */
import type { Signer } from "./certificate.ts";
import type { DianDocumentInput } from "./input.ts";
import { issueInstant, signDocument } from "./signature.ts";
import { buildUnsignedDocument } from "./ubl.ts";

export interface SignedDocument {
  /** The signed XML, UTF-8: send these bytes, never a re-serialisation of them. */
  xml: Uint8Array;
  /** The CUFE (invoice) or CUDE (credit note) the document carries. */
  authorityCode: string;
  /** The QR text of the document (the representación gráfica prints it). */
  qrText: string;
}

export interface BuildOptions {
  /**
   * The signature's SigningTime. Default: the document's issue instant, which is on its issue date
   * as DIAN requires (FAD09e) whenever the document is signed, and makes a rebuild byte-identical.
   */
  signingTime?: string;
}

/** Builds and signs `input`'s document. Throws a RangeError when the input cannot make one. */
export async function buildSignedDocument(
  input: DianDocumentInput,
  signer: Signer,
  options: BuildOptions = {},
): Promise<SignedDocument> {
  const unsigned = await buildUnsignedDocument(input);
  const { document } = input;
  const xml = await signDocument(unsigned, signer, {
    id: document.reference.toLowerCase(),
    signingTime: options.signingTime ?? issueInstant(document.issue_date, document.issue_time),
  });
  return { xml, authorityCode: unsigned.authorityCode, qrText: unsigned.qrText };
}
