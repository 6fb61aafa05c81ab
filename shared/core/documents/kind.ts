/**
 * What makes one kind of fiscal document different from another, and nothing else: the lifecycle
 * (transmit, refresh, representation) is written once, in ./transmit.ts, ./refresh.ts and
 * ./representation.ts, and takes one of these. A new kind is a descriptor, its content tables and
 * its routes (docs/adr/0001-one-fiscal-document-lifecycle.md).
 */

import type { SoftwareMaker } from "../../co/software.ts";
import type { AuthorityRule } from "../../kernel/result-codes.ts";
import type { DocumentKind, DocumentPayloads, Environment, FiscalRow } from "../../kernel/rows.ts";
import type { DocumentPdfModel } from "../../pdf/model.ts";
import type { SubmitDocumentRequest } from "../../ports/providers/protocol.ts";
import type { DocumentFolder } from "../../ports/storage.ts";

/**
 * The provider's submit request, or every problem that keeps the document from being sent, and,
 * of those, the authority's rules the document breaks (each with our sentence for it: nothing was
 * sent, so nothing of the authority's was said).
 */
export type PreparedDocument =
  | { ok: true; request: SubmitDocumentRequest }
  | { ok: false; problems: string[]; rules?: AuthorityRule[] };

/** The fiscal state a PDF shows. */
export type PdfFiscal = Pick<
  FiscalRow,
  "status" | "authority_code" | "qr_text" | "transmitted_at" | "environment"
>;

export interface DocumentKindSpec<K extends DocumentKind = DocumentKind> {
  kind: K;
  /** Status once the authority accepted it: `transmitida`, `emitida`. */
  accepted: "transmitida" | "emitida";
  /**
   * Status of a document whose first sending stopped before anything left (a check failed, no
   * credential): `pendiente` for an invoice (a draft again, editable), `error` for a credit note
   * (the service wrote it; it is reissued).
   */
  unsent: "pendiente" | "error";
  /** Words for the messages the lifecycle writes. */
  words: {
    /** "invoice", "credit note". */
    noun: string;
    /** The skip message of an accepted document. */
    alreadyAccepted: string;
    /** How to send a failed document again. */
    howToResend: string;
    /**
     * What to do about one the authority rejected; by default "correct it, then <howToResend>". A
     * kind whose documents cannot be edited (a note) says what replaces them instead.
     */
    whenRejected?: string;
    /** What to do about one whose transmission is in progress. */
    whileInProgress: string;
  };
  /** Folder of its PDFs in the bucket: `<org_id>/<folder>/<document_id>/…`. */
  folder: DocumentFolder;
  /**
   * Pre-send checks, then the provider's payload (a docsgen provider renders it, secrets removed:
   * ./render-request.ts). Asynchronous so that a kind imports its request builder, and with it the
   * protocol's schemas (~17 ms to build), only when a document is first sent or a provider renders
   * one: a cold instance's first /representation of a document the built-in renderer draws never
   * needs them. (A docsgen provider's fingerprint is drawn from the request, so it does.)
   */
  prepare(document: DocumentPayloads[K], environment: Environment): Promise<PreparedDocument>;
  /** What the built-in renderer draws (and the stamp, of a provider's PDF): title, code label, blocks. */
  pdfModel(document: DocumentPayloads[K], fiscal: PdfFiscal, software: SoftwareMaker): DocumentPdfModel;
  /** The PDF's file name, with the first characters of its fingerprint. */
  fileName(document: DocumentPayloads[K], fingerprint: string): string;
}
