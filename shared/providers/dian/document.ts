/**
 * A signed DIAN document from the document our protocol submits: the UBL 2.1 Invoice or CreditNote
 * (./ubl.ts), signed XAdES-EPES (./signature.ts). The bytes returned are the bytes to send.
 */
import type { Signer } from "./certificate.ts";
import type { DianDocumentInput } from "./input.ts";
import { signDocument } from "./signature.ts";
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
   * The signature's SigningTime: the instant the signature is made, in Colombia's offset
   * (`colombianTime(clock.now())`), never a copy of the issue date (DESIGN §12). DIAN wants its date
   * to be the issue date (FAD09e/CAD09e): the lifecycle stamps that date when it first sends the
   * document, and signs it right after.
   */
  signingTime: string;
}

/** Builds and signs `input`'s document. Throws a RangeError when the input cannot make one. */
export async function buildSignedDocument(
  input: DianDocumentInput,
  signer: Signer,
  options: BuildOptions,
): Promise<SignedDocument> {
  const unsigned = await buildUnsignedDocument(input);
  const { document } = input;
  const xml = await signDocument(unsigned, signer, {
    id: document.reference.toLowerCase(),
    signingTime: options.signingTime,
  });
  return { xml, authorityCode: unsigned.authorityCode, qrText: unsigned.qrText };
}
