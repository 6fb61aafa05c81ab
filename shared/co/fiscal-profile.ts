/**
 * The codes of a party's fiscal profile and their names, as DIAN's lists give them, for whoever
 * writes them (the UBL's parties) or prints them (the PDF). Sources: DIAN's genericode lists as
 * vendored in bryamzxz/facho@d0e74dbb `facho/fe/data/dian/codelist/` — TipoResponsabilidad-2.1.gc
 * (O-13, O-15, O-23, O-47: the only codes TaxLevelCode accepts besides R-99-PN, FAJ26/FAK26),
 * TipoResponsabilidad-2.1.custom.gc (R-99-PN "No responsable", from the 2019 list),
 * TipoOrganizacion-2.1.gc (1, 2), FormasPago-2.1.gc, MediosPago-2.1.gc, CodigoDescuento-2.1.gc;
 * the party's TaxScheme (Anexo 1.9 table 13.2.6.2: 01 IVA, 04 INC, ZA IVA e INC, ZZ No aplica) as
 * Odoo 19's l10n_co_edi `res_partner.py` maps its fiscal regimes (yckhg/sse@d4c746f).
 */

/** TaxLevelCode: a party's fiscal responsibilities (RUT casilla 53), the five DIAN accepts. */
export const RESPONSIBILITY_NAMES: Readonly<Record<string, string>> = {
  "O-13": "Gran contribuyente",
  "O-15": "Autorretenedor",
  "O-23": "Agente de retención IVA",
  "O-47": "Régimen simple de tributación",
  "R-99-PN": "No responsable",
};

/** The party's TaxScheme (PartyTaxScheme/TaxScheme): ID and the name DIAN's table gives it. */
export const PARTY_TAX_SCHEME_NAMES: Readonly<Record<string, string>> = {
  "01": "IVA",
  "04": "INC",
  ZA: "IVA e INC",
  ZZ: "No aplica",
};

/** AdditionalAccountID (TipoOrganizacion): 1 persona jurídica, 2 persona natural. */
export const PERSON_TYPE_NAMES: Readonly<Record<string, string>> = {
  "1": "Persona jurídica",
  "2": "Persona natural",
};

/**
 * A buyer's person type when the draft does not say: a company when identified by a NIT
 * (Colombian 31 or foreign 50), else a natural person — the database reads it the same way
 * (`einv_private.person_type`, …_amounts.sql).
 */
export function personTypeOf(given: string | null | undefined, idType: string): "1" | "2" {
  if (given === "1" || given === "2") return given;
  return idType === "31" || idType === "50" ? "1" : "2";
}

/** FormasPago: 1 contado, 2 crédito. */
export const PAYMENT_FORM_NAMES: Readonly<Record<string, string>> = { "1": "Contado", "2": "Crédito" };

/** MediosPago: the codes in common use (the list has 75; any other is printed by its code). */
export const PAYMENT_MEANS_NAMES: Readonly<Record<string, string>> = {
  "1": "Instrumento no definido",
  "10": "Efectivo",
  "20": "Cheque",
  "30": "Transferencia crédito",
  "31": "Transferencia débito",
  "42": "Consignación bancaria",
  "45": "Transferencia crédito bancario",
  "47": "Transferencia débito bancaria",
  "48": "Tarjeta crédito",
  "49": "Tarjeta débito",
  ZZZ: "Acuerdo mutuo",
};

/** CodigoDescuento: a discount's reason (AllowanceChargeReasonCode). Charges have none. */
export const DISCOUNT_REASON_NAMES: Readonly<Record<string, string>> = {
  "00": "Descuento no condicionado",
  "01": "Descuento condicionado",
};

/** The names of `codes` from `table`, each as "code name" (a code the table lacks: the code alone). */
export function namedCodes(table: Readonly<Record<string, string>>, codes: readonly string[]): string[] {
  return codes.map((code) => (table[code] ? `${code} ${table[code]}` : code));
}
