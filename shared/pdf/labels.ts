/**
 * Printable names for the DIAN codes an invoice stores (Anexo Técnico v1.9 code lists). Only the
 * codes in common use are named; any other code is printed as "código X" rather than guessed.
 */
import { cityName } from "../co/divipola.ts";
import {
  namedCodes,
  PARTY_TAX_SCHEME_NAMES,
  PAYMENT_FORM_NAMES,
  PAYMENT_MEANS_NAMES,
  PERSON_TYPE_NAMES,
  RESPONSIBILITY_NAMES,
} from "../co/fiscal-profile.ts";

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
  ML: "mL",
  MLT: "mL",
  ZZ: "Mutuo",
};

/** Taxes as printed, by DIAN code (TipoImpuesto-2.1); any other prints the name the database gave it. */
export const TAX_NAMES: Record<string, string> = {
  "01": "IVA",
  "03": "ICA",
  "04": "INC",
  "05": "ReteIVA",
  "06": "ReteFuente",
  "07": "ReteICA",
  "22": "INC bolsas",
  "32": "ICL",
  "34": "IBUA",
  "35": "ICUI",
  ZZ: "No gravado",
};

/** The longer names the totals print. */
/** The totals' labels: as long as their column holds without cutting (about 26 characters). */
const TAX_LONG_NAMES: Record<string, string> = {
  "03": "Industria y comercio (ICA)",
  "04": "Impuesto al consumo (INC)",
  "22": "INC bolsas plásticas",
};

/**
 * A tax as printed: IVA at 0 % is "IVA exento" (exempt: inside the tax, at rate zero), while a
 * line with no tax is "No gravado" (outside it) — two different things to a Colombian accountant.
 */
export function taxName(code: string, rate: number | null, name?: string): string {
  if (code === "01" && rate === 0) return "IVA exento";
  return TAX_NAMES[code] ?? name ?? code;
}

/** A tax's name in the totals: "Impuesto al consumo (INC)", or as the breakdown names it. */
export function taxLongName(code: string, name?: string): string {
  return TAX_LONG_NAMES[code] ?? taxName(code, null, name);
}

const TAX_REGIMES: Record<string, string> = { "48": "Responsable de IVA", "49": "No responsable de IVA" };

const named = (table: Record<string, string>, code: string | null | undefined): string | null =>
  code == null || code === "" ? null : (table[code] ?? `código ${code}`);

export const idTypeLabel = (code: string) => ID_TYPES[code] ?? `Doc. ${code}`;
export const paymentFormLabel = (code: string) => named(PAYMENT_FORM_NAMES, code) ?? "—";
export const paymentMethodLabel = (code: string) => named(PAYMENT_MEANS_NAMES, code) ?? "—";
export const unitLabel = (code: string) => UNITS[code] ?? code;
export const cityLabel = (code: string | null) => (code ? (cityName(code) ?? `Municipio ${code}`) : null);
export const taxRegimeLabel = (code: unknown) =>
  typeof code === "string" ? (TAX_REGIMES[code] ?? null) : null;
export const personTypeLabel = (code: unknown) =>
  typeof code === "string" ? (PERSON_TYPE_NAMES[code] ?? null) : null;

/**
 * A party's fiscal profile as its codes say, with DIAN's names: "Persona jurídica · Régimen: 01 IVA
 * · Responsabilidades: O-13 Gran contribuyente; O-15 Autorretenedor".
 */
export function fiscalProfileLabel(profile: {
  person_type: string | null | undefined;
  tax_scheme: string | null | undefined;
  fiscal_responsibilities: readonly string[] | null | undefined;
}): string {
  const scheme = profile.tax_scheme
    ? `Régimen: ${namedCodes(PARTY_TAX_SCHEME_NAMES, [profile.tax_scheme]).join("")}`
    : null;
  const responsibilities = profile.fiscal_responsibilities?.length
    ? `Responsabilidades: ${namedCodes(RESPONSIBILITY_NAMES, profile.fiscal_responsibilities).join("; ")}`
    : null;
  return [personTypeLabel(profile.person_type), scheme, responsibilities].filter(Boolean).join(" · ");
}

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
