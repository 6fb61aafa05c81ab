/**
 * What DIAN checks of the invoice a note (credit or debit) refers to, as its validator does ([D]
 * Plugin `Common/Validator.cs` `ValidateNoteReference`; brief-business §1): the reference must be
 * there (xBG02 "Se requiere obligatoriamente referencia a documento."), DIAN must hold the document
 * it names (xBG04a "Documento referenciado no existe en los registros de la DIAN."), that document
 * must be the note's issuer's (xBG04b) and not dated after the note (xBG06); `x` is `C` for a credit
 * note (91) and `D` for a debit note (92). DIAN looks the reference up by its CUFE (the note's
 * DocumentReferencedKey) among the documents it validated, which is what the stand-in's store holds
 * as accepted.
 */
import type { ReceivedDocument } from "./document.ts";
import type { RuleFinding } from "./rules.ts";
import type { DianStore } from "./store.ts";

/** The note's reference findings (none for an invoice), in [D]'s order: the first that fails. */
export function referenceFindings(doc: ReceivedDocument, store: DianStore): RuleFinding[] {
  if (doc.kind === "invoice") return [];
  const letter = doc.kind === "credit_note" ? "C" : "D";
  const key = doc.billingReference?.uuid.trim().toLowerCase() ?? "";
  if (key === "") {
    return [{ code: `${letter}BG02`, message: "Se requiere obligatoriamente referencia a documento." }];
  }
  const referenced = store.find(key);
  if (!referenced?.accepted) {
    return [
      { code: `${letter}BG04a`, message: "Documento referenciado no existe en los registros de la DIAN." },
    ];
  }
  const [sender] = referenced.identity.split("|");
  if (sender !== doc.supplier.id) {
    return [{ code: `${letter}BG04b`, message: "Documento referenciado no pertenece al emisor." }];
  }
  if (referenced.issueDate && referenced.issueDate > doc.issueDate) {
    return [
      {
        code: `${letter}BG06`,
        message: "Fecha de emisión de la nota es anterior a la fecha de emisión de FE referenciada.",
      },
    ];
  }
  return [];
}
