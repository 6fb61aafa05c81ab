/** From the stored credit note to the provider's submit request: a note's (../notes/document.ts). */
import type { CreditNoteDocumentRow, Environment } from "../../kernel/rows.ts";
import type { PreparedDocument } from "../documents/kind.ts";
import { prepareNote } from "../notes/document.ts";

export function prepareCreditNote(doc: CreditNoteDocumentRow, environment: Environment): PreparedDocument {
  return prepareNote("credit_note", "credit note", doc, environment);
}
