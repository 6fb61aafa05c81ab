/** From the stored debit note to the provider's submit request: a note's (../notes/document.ts). */
import type { DebitNoteDocumentRow, Environment } from "../../kernel/rows.ts";
import type { PreparedDocument } from "../documents/kind.ts";
import { prepareNote } from "../notes/document.ts";

export function prepareDebitNote(doc: DebitNoteDocumentRow, environment: Environment): PreparedDocument {
  return prepareNote("debit_note", "debit note", doc, environment);
}
