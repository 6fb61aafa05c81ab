/**
 * What the person reads when something fails, in Spanish: the client's sentence for an
 * EinvoicingError's code (`describe(code, "es")`), and for PostgREST's errors a sentence per
 * SQLSTATE or PGRST code, with the field the database named. Never a stack or the database's own
 * English: those go to the console (main.ts).
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
  "23514": "Algunos datos no son válidos. Revise el borrador.",
  "23502": "Falta un dato obligatorio. Revise el borrador.",
  "22001": "Un texto es demasiado largo. Revise el borrador.",
  "22003": "Un número está fuera del rango permitido. Revise el borrador.",
  "22P02": "Un número no tiene un formato válido. Revise el borrador.",
  // `.single()` found no row: deleted meanwhile, or not visible to this user (RLS)
  PGRST116: "No se encontró el registro: pudo haberse borrado, o no es de esta organización.",
  PGRST301: describe("unauthenticated", "es"),
  PGRST303: describe("unauthenticated", "es"),
};

/** The database's names of the draft's fields, as the form labels them. */
const FIELD_LABELS: Record<string, string> = {
  description: "Descripción",
  quantity: "Cantidad",
  unit_price: "Precio unitario",
  taxes: "IVA",
  allowance_charges: "Descuento %",
  withholdings: "ReteFuente %",
  buyer_name: "Razón social",
  buyer_id_number: "NIT",
  buyer_address: "Dirección",
  buyer_email: "Correo",
};

/** `taxes[0].percent` as "IVA"; a name without a label stays as it is (it is a field, not prose). */
const label = (field: string): string => FIELD_LABELS[field.split(/[[.]/)[0] ?? ""] ?? field;

/** A sentence for the person, in Spanish, for any error an action can end in. */
export function explain(error: unknown): string {
  if (isEinvoicingError(error)) {
    const fields = error.details.map((detail) => detail.field).filter(Boolean);
    const where = fields.length > 0 ? ` (campos: ${fields.join(", ")})` : "";
    // a business rule's sentence says "the detail tells why": the API's message (English) is that detail
    const detail = error.code === "business_rule" ? ` Detalle: ${error.message}` : "";
    const support = error.request_id ? ` Referencia para soporte: ${error.request_id}.` : "";
    return `${describe(error.code, "es")}${where}${detail}${support}`;
  }
  if (isPostgrestError(error)) {
    // postgrest-js answers a failed fetch (no answer at all) as an error without a code
    if (error.code === "") return describe("network_error", "es");
    // the schema's refusals (…_amounts.sql) are 23514 with the field in `details` and the API's code
    // in `hint`; the other hints (P0001: invalid_state, not_found…) are API codes too
    if (error.hint === "validation_failed" && error.details) {
      const line = /^invoice line ([0-9]+):/.exec(error.message)?.[1];
      return `${describe("validation_failed", "es")} (${line ? `línea ${line}, ` : ""}campo: ${label(error.details)})`;
    }
    const known = DATABASE_SENTENCES[error.code];
    if (known) return known;
    if (error.code === "P0001" && error.hint) return describe(error.hint, "es");
    return `La base de datos no pudo completar la operación (código ${error.code}). Inténtelo de nuevo; si se repite, contacte a soporte.`;
  }
  if (error instanceof TypeError) return describe("network_error", "es");
  return describe("unexpected_response", "es");
}
