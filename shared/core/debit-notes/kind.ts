/**
 * Debit notes, the third kind of fiscal document and the second kind of note of an invoice
 * (../notes/): content in `debit_notes` and `debit_note_lines`, created by the service (./create.ts);
 * accepted means `emitida`; the authority code is the CUDE (with the company's software PIN), and
 * the invoice's CUFE travels as the billing reference. DIAN's document type 92, UBL `DebitNote`.
 */
import { toDebitNotePdfModel } from "../../pdf/model.ts";
import { noteKind } from "../notes/kind.ts";

export const debitNoteKind = noteKind({
  kind: "debit_note",
  noun: "debit note",
  routes: "/debit-notes",
  folder: "debit-notes",
  // imported on the first send or render (../documents/kind.ts)
  prepare: async (document, environment) =>
    (await import("./document.ts")).prepareDebitNote(document, environment),
  pdfModel: (document, fiscal, software) => toDebitNotePdfModel(document, fiscal, { software }),
  fileName: (document, fingerprint) => `nota-debito-${document.number}-${fingerprint}.pdf`,
});
