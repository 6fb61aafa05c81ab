/**
 * What the person reads when something fails, in Spanish: the client's sentence for an
 * EinvoicingError's code (`describe(code, "es")`), and for PostgREST's errors (a draft refused by
 * the database) a sentence per SQLSTATE, with the field the database named.
 */
import { describe, isEinvoicingError } from "@einvoicing/client";

interface PostgrestErrorLike {
  code: string;
  message: string;
  details: string | null;
  hint: string | null;
}

const isPostgrestError = (error: unknown): error is PostgrestErrorLike =>
  typeof error === "object" &&
  error !== null &&
  typeof (error as { code?: unknown }).code === "string" &&
  "hint" in error;

const DATABASE_SENTENCES: Record<string, string> = {
  "42501": "No tiene permiso para esto: solo un administrador u operador de la organización crea borradores.",
  "23505": "Ese número de factura ya existe. Inténtelo de nuevo.",
  "23503": "La empresa no pertenece a esta organización.",
};

/** A sentence for the person, in Spanish, for any error an action can end in. */
export function explain(error: unknown): string {
  if (isEinvoicingError(error)) {
    const fields = error.details.map((detail) => detail.field).filter(Boolean);
    const where = fields.length > 0 ? ` (campos: ${fields.join(", ")})` : "";
    const support = error.request_id ? ` Referencia para soporte: ${error.request_id}.` : "";
    return `${describe(error.code, "es")}${where}${support}`;
  }
  if (isPostgrestError(error)) {
    const known = DATABASE_SENTENCES[error.code];
    if (known) return known;
    // 23514 names the field in `details` and says what kind of refusal in `hint` (validation_failed…)
    const sentence = error.hint ? describe(error.hint, "es") : "La base de datos rechazó el borrador.";
    return error.details ? `${sentence} (campo: ${error.details})` : sentence;
  }
  if (error instanceof TypeError) return describe("network_error", "es");
  return describe("unexpected_response", "es");
}
