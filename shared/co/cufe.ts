/**
 * DIAN (Colombia) CUFE, CUDE and QR content, per the Anexo Técnico de Factura Electrónica de Venta
 * v1.9 (Resolución 000165 de 2023).
 *
 * CUFE = SHA-384, in lowercase hex, of the concatenation without separators of
 *   NumFac + FecFac + HorFac + ValFac + "01" + ValImp1 + "04" + ValImp2 + "03" + ValImp3 + ValTot
 *   + NitOFE + NumAdq + ClTec + TipoAmbiente
 * The CUDE of a credit (or debit) note is the same formula over the note's own number, dates and
 * amounts, with the issuer's software PIN (Software-PIN) in place of the numbering range's
 * technical key (ClTec): one formula here, two names for its secret.
 * where ValFac is LineExtensionAmount, ValImp1/2/3 the IVA/INC/ICA totals ("0.00" when absent),
 * ValTot is PayableAmount, amounts use "." and exactly two decimals (truncated, not rounded, no
 * thousands separator), NITs go without check digit, and TipoAmbiente is 1 (production) or 2 (test).
 *
 * The QR content is one "Key: value" line per field: NumFac, FecFac, HorFac, NitFac, DocAdq, ValFac,
 * ValIva, ValOtroIm (every tax but IVA), ValTolFac, CUFE, and QRCode, the DIAN lookup URL
 * https://catalogo-vpfe.dian.gov.co/document/searchqr?documentkey=<CUFE> (catalogo-vpfe-hab in test).
 *
 * Sources consulted (public material, not copied): the Anexo's worked CUFE example as reproduced in
 * the implementation notes of bryamzxz/facho (docs/ANEXO_TECNICO_V19.md, §3.4) and in other public
 * summaries of the Anexo v1.9 (§3 and §7, "Código QR"); the field order also matches bryamzxz/facho
 * facho/fe/builders/cufe.py. The example is our test vector (tests/providers/cufe.test.ts).
 */

import { hexDigest } from "../crypto/digest.ts";

/**
 * The three taxes the CUFE/CUDE names (ValImp1–3): IVA, INC and ICA, by their DIAN scheme codes;
 * every other tax reaches it only through ValTot (brief-business §4, DIAN's ValidateCufe).
 */
export const CUFE_TAXES = { iva: "01", inc: "04", ica: "03" } as const;

/** DIAN environment names as our protocol spells them: `prd` production, `uat` habilitación. */
export type DianEnvironment = "prd" | "uat";

export interface CufeInput {
  /** NumFac: prefix + number, e.g. "SETP990000001". */
  number: string;
  /** FecFac: YYYY-MM-DD. */
  issueDate: string;
  /** HorFac: HH:MM:SS-05:00. */
  issueTime: string;
  /** ValFac: LineExtensionAmount (sum of lines before taxes). */
  subtotal: Amount;
  /** ValImp1: IVA (tax scheme 01). */
  iva: Amount;
  /** ValImp2: INC (tax scheme 04). */
  inc: Amount;
  /** ValImp3: ICA (tax scheme 03). */
  ica: Amount;
  /** ValTot: PayableAmount. */
  total: Amount;
  /** NitOFE: issuer NIT without check digit. */
  issuerNit: string;
  /** NumAdq: buyer identification number, without check digit. */
  buyerId: string;
  /** ClTec: the numbering range's technical key. */
  technicalKey: string;
  environment: DianEnvironment;
}

/** An amount as a decimal string ("119000.00", "1234.5") or a number. */
export type Amount = string | number;

/** TipoAmbiente: 1 production, 2 test (habilitación). */
export function tipoAmbiente(environment: DianEnvironment): "1" | "2" {
  return environment === "prd" ? "1" : "2";
}

/** Formats an amount the DIAN way: "." decimal point, exactly two decimals, truncated. */
export function formatAmount(value: Amount): string {
  const raw = typeof value === "number" ? numberToPlain(value) : value.trim();
  const match = /^(\d+)(?:\.(\d*))?$/.exec(raw);
  if (!match) throw new RangeError(`not a non-negative decimal amount: ${JSON.stringify(value)}`);
  const whole = (match[1] ?? "0").replace(/^0+(?=\d)/, "");
  const decimals = `${match[2] ?? ""}00`.slice(0, 2);
  return `${whole}.${decimals}`;
}

/** A credit note's CUDE inputs: the CUFE's, with the software PIN instead of the technical key. */
export interface CudeInput extends Omit<CufeInput, "technicalKey"> {
  /** The issuer's software PIN, registered with the DIAN. A secret: never log it. */
  softwarePin: string;
}

/** The exact string the CUFE hashes (exported for tests and troubleshooting; holds the ClTec). */
export function cufeSource(input: CufeInput): string {
  return authorityCodeSource(input, input.technicalKey);
}

/** The exact string the CUDE hashes (holds the software PIN). */
export function cudeSource(input: CudeInput): string {
  return authorityCodeSource(input, input.softwarePin);
}

/** The one formula: the document's fields, then the secret (ClTec or software PIN), then the environment. */
function authorityCodeSource(input: Omit<CufeInput, "technicalKey">, secret: string): string {
  return [
    input.number,
    input.issueDate,
    input.issueTime,
    formatAmount(input.subtotal),
    "01",
    formatAmount(input.iva),
    "04",
    formatAmount(input.inc),
    "03",
    formatAmount(input.ica),
    formatAmount(input.total),
    input.issuerNit,
    input.buyerId,
    secret,
    tipoAmbiente(input.environment),
  ].join("");
}

/** The CUFE: 96 lowercase hex characters. Uses WebCrypto, available on Node 20 and Deno. */
export function computeCufe(input: CufeInput): Promise<string> {
  return hexDigest("SHA-384", cufeSource(input));
}

/** The CUDE of a credit note: 96 lowercase hex characters. */
export function computeCude(input: CudeInput): Promise<string> {
  return hexDigest("SHA-384", cudeSource(input));
}

/** The DIAN document lookup URL the QR points to. */
export function dianQrUrl(cufe: string, environment: DianEnvironment): string {
  const host = environment === "prd" ? "catalogo-vpfe.dian.gov.co" : "catalogo-vpfe-hab.dian.gov.co";
  return `https://${host}/document/searchqr?documentkey=${encodeURIComponent(cufe)}`;
}

export interface QrInput {
  number: string;
  issueDate: string;
  issueTime: string;
  /** NitFac: issuer NIT, digits only. */
  issuerNit: string;
  /** DocAdq: buyer identification, without dots or dashes. */
  buyerId: string;
  /** ValFac: LineExtensionAmount. */
  subtotal: Amount;
  /** ValIva: IVA total. */
  iva: Amount;
  /** ValOtroIm: sum of every tax other than IVA. */
  otherTaxes: Amount;
  /** ValTolFac: PayableAmount. */
  total: Amount;
  /** The CUFE (or, with `codeLabel: "CUDE"`, a credit note's CUDE). */
  cufe: string;
  environment: DianEnvironment;
  /** How the code's line is labelled: "CUFE" for invoices (default), "CUDE" for credit notes. */
  codeLabel?: "CUFE" | "CUDE";
}

/** The text the document's QR code encodes, one "Key: value" per line. */
export function dianQrText(input: QrInput): string {
  return [
    `NumFac: ${input.number}`,
    `FecFac: ${input.issueDate}`,
    `HorFac: ${input.issueTime}`,
    `NitFac: ${digitsOnly(input.issuerNit)}`,
    `DocAdq: ${input.buyerId.replace(/[.\s-]/g, "")}`,
    `ValFac: ${formatAmount(input.subtotal)}`,
    `ValIva: ${formatAmount(input.iva)}`,
    `ValOtroIm: ${formatAmount(input.otherTaxes)}`,
    `ValTolFac: ${formatAmount(input.total)}`,
    `${input.codeLabel ?? "CUFE"}: ${input.cufe}`,
    `QRCode: ${dianQrUrl(input.cufe, input.environment)}`,
  ].join("\n");
}

function digitsOnly(value: string): string {
  return value.replace(/\D/g, "");
}

/** A finite non-negative number as a plain decimal string (no exponent), enough digits to truncate. */
function numberToPlain(value: number): string {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`not a non-negative amount: ${value}`);
  // toFixed(6) first absorbs binary noise (0.29 → "0.290000"), then formatAmount truncates.
  return value.toFixed(6);
}
