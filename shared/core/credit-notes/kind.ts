/**
 * Credit notes, the second kind of fiscal document and the first kind of note of an invoice
 * (../notes/): content in `credit_notes` and `credit_note_lines`, created by the service (./create.ts);
 * accepted means `emitida`; the authority code is the CUDE (with the company's software PIN), and
 * the invoice's CUFE travels as the billing reference.
 */
import { toCreditNotePdfModel } from "../../pdf/model.ts";
import { noteKind } from "../notes/kind.ts";

export const creditNoteKind = noteKind({
  kind: "credit_note",
  noun: "credit note",
  routes: "/credit-notes",
  // what a note says never changes: a corrected one is a new note, which discards this one
  whenRejected:
    "a note cannot be edited: issue a new note for its lines with /credit-notes (it replaces this one)",
  folder: "credit-notes",
  // imported on the first send or render (../documents/kind.ts)
  prepare: async (document, environment) =>
    (await import("./document.ts")).prepareCreditNote(document, environment),
  pdfModel: (document, fiscal, software) => toCreditNotePdfModel(document, fiscal, { software }),
  fileName: (document, fingerprint) => `nota-credito-${document.number}-${fingerprint}.pdf`,
});
