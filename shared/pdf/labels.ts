/**
 * Printable names for the DIAN codes an invoice stores (Anexo Técnico v1.9 code lists). Only the
 * codes in common use are named; any other code is printed as "código X" rather than guessed.
 */
import { cityName } from "../co/divipola.ts";

const ID_TYPES: Record<string, string> = {
  "11": "RC",
  "12": "TI",
  "13": "CC",
  "21": "TE",
  "22": "CE",
  "31": "NIT",
  "41": "Pasaporte",
  "42": "Doc. extranjero",
  "47": "PEP",
  "48": "PPT",
  "50": "NIT otro país",
  "91": "NUIP",
};

const PAYMENT_FORMS: Record<string, string> = { "1": "Contado", "2": "Crédito" };

const PAYMENT_METHODS: Record<string, string> = {
  "1": "Instrumento no definido",
  "10": "Efectivo",
  "20": "Cheque",
  "42": "Consignación bancaria",
  "45": "Transferencia crédito bancario",
  "47": "Transferencia débito bancaria",
  "48": "Tarjeta crédito",
  "49": "Tarjeta débito",
  ZZZ: "Acuerdo mutuo",
};

/** UN/ECE Recommendation 20 unit codes. */
const UNITS: Record<string, string> = {
  "94": "Unidad",
  NIU: "Unidad",
  EA: "Unidad",
  HUR: "Hora",
  DAY: "Día",
  MON: "Mes",
  KGM: "Kg",
  GRM: "g",
  MTR: "m",
  MTK: "m²",
  LTR: "Litro",
  ZZ: "Mutuo",
};

export const TAX_NAMES: Record<string, string> = { "01": "IVA", "04": "INC", "03": "ICA", ZZ: "No gravado" };

/**
 * A tax as printed: IVA at 0 % is "IVA exento" (exempt: inside the tax, at rate zero), while `ZZ`
 * is "No gravado" (outside the tax) — two different things to a Colombian accountant.
 */
export function taxName(code: string, rate: number): string {
  if (code === "01" && rate === 0) return "IVA exento";
  return TAX_NAMES[code] ?? code;
}

const TAX_REGIMES: Record<string, string> = { "48": "Responsable de IVA", "49": "No responsable de IVA" };
const PERSON_TYPES: Record<string, string> = { "1": "Persona jurídica", "2": "Persona natural" };

const named = (table: Record<string, string>, code: string | null | undefined): string | null =>
  code == null || code === "" ? null : (table[code] ?? `código ${code}`);

export const idTypeLabel = (code: string) => ID_TYPES[code] ?? `Doc. ${code}`;
export const paymentFormLabel = (code: string) => named(PAYMENT_FORMS, code) ?? "—";
export const paymentMethodLabel = (code: string) => named(PAYMENT_METHODS, code) ?? "—";
export const unitLabel = (code: string) => UNITS[code] ?? code;
export const cityLabel = (code: string | null) => (code ? (cityName(code) ?? `Municipio ${code}`) : null);
export const taxRegimeLabel = (code: unknown) =>
  typeof code === "string" ? (TAX_REGIMES[code] ?? null) : null;
export const personTypeLabel = (code: unknown) =>
  typeof code === "string" ? (PERSON_TYPES[code] ?? null) : null;

/** DIAN credit-note correction concepts (Anexo 1.9, table 13.2.4). */
const CORRECTION_CONCEPTS: Record<string, string> = {
  "1": "Devolución parcial de los bienes y/o no aceptación parcial del servicio",
  "2": "Anulación de factura electrónica",
  "3": "Rebaja o descuento parcial o total",
  "4": "Ajuste de precio",
  "5": "Descuento comercial por pronto pago",
  "6": "Descuento comercial por volumen de ventas",
};
export const correctionConceptLabel = (code: string) => CORRECTION_CONCEPTS[code] ?? `código ${code}`;

/** DIAN debit-note concepts (ConceptoNotaDebito-2.1; brief-business §1: every source agrees). */
const DEBIT_CONCEPTS: Record<string, string> = {
  "1": "Intereses",
  "2": "Gastos por cobrar",
  "3": "Cambio del valor",
  "4": "Otros",
};
export const debitConceptLabel = (code: string) => DEBIT_CONCEPTS[code] ?? `código ${code}`;
