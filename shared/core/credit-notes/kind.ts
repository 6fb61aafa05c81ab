/**
 * Credit notes, the second kind of fiscal document: what the lifecycle (shared/core/documents) needs
 * to know about them. Content in `credit_notes` and `credit_note_lines`, created by the service
 * (./create.ts); accepted means `emitida`; the authority code is the CUDE (with the company's software
 * PIN), and the invoice's CUFE travels as the billing reference.
 */
import { toCreditNotePdfModel } from "../../pdf/model.ts";
import type { DocumentKindSpec } from "../documents/kind.ts";
import { prepareCreditNote } from "./document.ts";

/** A credit note's status: `emitida` once accepted; `error` reissuable; `en_proceso` while unknown. */
export type CreditNoteStatus = "en_proceso" | "emitida" | "error";

export const creditNoteKind: DocumentKindSpec<"credit_note"> & { accepted: "emitida" } = {
  kind: "credit_note",
  accepted: "emitida",
  unsent: "error",
  words: {
    noun: "credit note",
    alreadyAccepted: "already issued: the authority accepted this credit note",
    howToResend: "send it again with /credit-notes/reissue",
    // what a note says never changes: a corrected one is a new note, which discards this one
    whenRejected:
      "a note cannot be edited: issue a new note for its lines with /credit-notes (it replaces this one)",
    whileInProgress:
      "use /credit-notes/refresh to ask the authority, or /credit-notes/reissue once it is idle",
  },
  folder: "credit-notes",
  prepare: prepareCreditNote,
  pdfModel: (document, fiscal, software) => toCreditNotePdfModel(document, fiscal, { software }),
  fileName: (document, fingerprint) => `nota-credito-${document.number}-${fingerprint}.pdf`,
};
