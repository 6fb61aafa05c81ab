/**
 * DIAN's code lists, as the stand-in checks a received document against them: its own copies, so it
 * stays an oracle independent of the service (shared/co/ keeps the service's; nothing is imported
 * from there or from the builder). Sources, as ../../shared/dian/brief-business.md names them:
 *
 * - [GC] DIAN's genericode lists (2019), as vendored in bryamzxz/facho@d0e74dbb
 *   `facho/fe/data/dian/codelist/`: TipoImpuesto, TarifaImpuestoIVA, TarifaImpuestoINC,
 *   TipoResponsabilidad, TipoIdFiscal, TipoOrganizacion, FormasPago, MediosPago, CodigoDescuento,
 *   TipoMoneda (all `-2.1.gc`); DIVIPOLA is ./divipola.ts.
 * - [O] Odoo 19 `l10n_co_edi/data/l10n_co_edi.tax.type.csv` and `l10n_co_edi.payment.option.csv`
 *   (yckhg/sse@d4c746f2), where it names or lists otherwise.
 * - [D] DIAN's validator (wscuellar/DIAN@b428fe44 `Common/Validator.cs` `ValidateTaxLevelCodes`).
 */

/**
 * A tax scheme (TaxScheme/ID) with the names DIAN's FAS01b accepts beside it ("revisar Porcentaje,
 * Nombre y ID") and, for IVA and INC, the only rates, written as DIAN compares them (two decimals:
 * Odoo's `account_edi_xml_ubl_dian.py` records that `19.000` for IVA is refused with FAS01b).
 * Names: the [GC] list's, and Odoo's where it differs (22 `INC Bolsas`); 30–36 are the short
 * names both use ([GC]'s 2026 rows add the long name in parentheses). 08 is left out: the [GC]
 * list calls it ReteCREE, Odoo "IC Porcentual". `ZZ` ("Nombre de la figura tributaria") carries a
 * name of the issuer's own.
 */
export const TAX_SCHEMES: Readonly<Record<string, { names: readonly string[]; rates?: readonly string[] }>> =
  {
    "01": { names: ["IVA"], rates: ["0.00", "5.00", "16.00", "19.00"] },
    "02": { names: ["IC"] },
    "03": { names: ["ICA"] },
    "04": { names: ["INC"], rates: ["2.00", "4.00", "8.00", "16.00"] },
    "20": { names: ["FtoHorticultura"] },
    "21": { names: ["Timbre"] },
    "22": { names: ["Bolsas", "INC Bolsas"] },
    "23": { names: ["INCarbono"] },
    "24": { names: ["INCombustibles"] },
    "25": { names: ["Sobretasa Combustibles"] },
    "26": { names: ["Sordicom"] },
    "30": { names: ["IC Datos"] },
    "32": { names: ["ICL"] },
    "33": { names: ["INPP"] },
    "34": { names: ["IBUA"] },
    "35": { names: ["ICUI"] },
    "36": { names: ["ADV"] },
    ZZ: { names: [] },
  };

/** The withholdings (WithholdingTaxTotal, FAT12/FAT13): [GC] names, and Odoo's `ReteRenta` for 06. */
export const WITHHOLDING_SCHEMES: Readonly<Record<string, readonly string[]>> = {
  "05": ["ReteIVA"],
  "06": ["ReteFuente", "ReteRenta"],
  "07": ["ReteICA"],
};

/**
 * TaxLevelCode (FAJ26/FAK26): [GC] TipoResponsabilidad's four, and R-99-PN, which Anexo 1.9 asks of
 * the final consumer (brief-business §9); the RUT's long list is refused.
 */
export const TAX_LEVEL_CODES: ReadonlySet<string> = new Set(["O-13", "O-15", "O-23", "O-47", "R-99-PN"]);

/** What DIAN's final consumer is identified by (brief-business §9: Odoo's `consumidor final`). */
export const FINAL_CONSUMER_ID = "222222222222";

/** Identification types, CompanyID@schemeName ([GC] TipoIdFiscal; 48 PPT new in Anexo 1.9). */
export const ID_TYPES: ReadonlySet<string> = new Set([
  "11",
  "12",
  "13",
  "21",
  "22",
  "31",
  "41",
  "42",
  "47",
  "48",
  "50",
  "91",
]);

/** The NIT's identification type: the only one whose CompanyID carries a check digit. */
export const NIT = "31";

/** AdditionalAccountID ([GC] TipoOrganizacion): 1 persona jurídica, 2 persona natural. */
export const PERSON_TYPES: ReadonlySet<string> = new Set(["1", "2"]);

/** PaymentMeans/ID, the forma de pago ([GC] FormasPago): 1 contado, 2 crédito. */
export const PAYMENT_FORMS: ReadonlySet<string> = new Set(["1", "2"]);

/**
 * PaymentMeansCode: [GC] MediosPago's 75 codes (1–53, 60–67, 70, 74–78, 91–97, ZZZ) and Odoo's 71
 * (Bonos) and 72 (Vales), which the lists disagree on (brief-business §7).
 */
export const PAYMENT_MEANS: ReadonlySet<string> = new Set([
  ...Array.from({ length: 53 }, (_, i) => String(i + 1)),
  ..."60 61 62 63 64 65 66 67 70 71 72 74 75 76 77 78 91 92 93 94 95 96 97 ZZZ".split(" "),
]);

/** A discount's AllowanceChargeReasonCode ([GC] CodigoDescuento): 00 no condicionado, 01 condicionado. */
export const DISCOUNT_REASONS: ReadonlySet<string> = new Set(["00", "01"]);

/**
 * Currencies ([GC] TipoMoneda: ISO 4217 as DIAN lists it, FAD15a, FAR04). Its one malformed row,
 * `VES7` (Bolívar soberano), is left out.
 */
export const CURRENCIES: ReadonlySet<string> = new Set(
  `AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP
BYR BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB
EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS INR IQD IRR ISK JMD JOD
JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRO
MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD
RUB RWF SAR SBD SCR SDG SEK SGD SHP SLL SOS SRD SSP STD SVC SYP SZL THB TJS TMT TND TOP TRY TTD
TWD TZS UAH UGX USD USN UYI UYU UZS VEF VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XDR XOF XPD
XPF XPT XSU XTS XUA XXX YER ZAR ZMW ZWL`.split(/\s+/),
);
