/**
 * The total in words, as Colombian invoices print it: "CIENTO VEINTINUEVE MIL PESOS M/CTE".
 * Spanish long scale (millón 10^6, billón 10^12), with the apocope before a noun: "veintiún mil",
 * "un millón", "un peso".
 */

const UNITS = ["", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve"];
const TEENS_AND_TWENTIES = [
  "diez",
  "once",
  "doce",
  "trece",
  "catorce",
  "quince",
  "dieciséis",
  "diecisiete",
  "dieciocho",
  "diecinueve",
  "veinte",
  "veintiuno",
  "veintidós",
  "veintitrés",
  "veinticuatro",
  "veinticinco",
  "veintiséis",
  "veintisiete",
  "veintiocho",
  "veintinueve",
];
const TENS = ["", "", "", "treinta", "cuarenta", "cincuenta", "sesenta", "setenta", "ochenta", "noventa"];
const HUNDREDS = [
  "",
  "ciento",
  "doscientos",
  "trescientos",
  "cuatrocientos",
  "quinientos",
  "seiscientos",
  "setecientos",
  "ochocientos",
  "novecientos",
];

/** 1–999; `apocope` shortens a final "uno" to "un"/"ún" before a noun or a larger unit. */
function belowThousand(n: number, apocope: boolean): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  const parts: string[] = [];
  if (hundreds > 0) parts.push(n === 100 ? "cien" : (HUNDREDS[hundreds] ?? ""));
  if (rest >= 10 && rest < 30) {
    const word = TEENS_AND_TWENTIES[rest - 10] ?? "";
    parts.push(apocope && rest === 21 ? "veintiún" : word);
  } else if (rest >= 30) {
    const unit = rest % 10;
    const tens = TENS[Math.floor(rest / 10)] ?? "";
    parts.push(unit === 0 ? tens : `${tens} y ${apocope && unit === 1 ? "un" : UNITS[unit]}`);
  } else if (rest > 0) {
    parts.push(apocope && rest === 1 ? "un" : (UNITS[rest] ?? ""));
  }
  return parts.join(" ");
}

/** 1–999 999: "mil", "veintiún mil", "ciento un mil doscientos". */
function belowMillion(n: number, apocope: boolean): string {
  const thousands = Math.floor(n / 1000);
  const rest = n % 1000;
  const parts: string[] = [];
  if (thousands === 1) parts.push("mil");
  else if (thousands > 1) parts.push(`${belowThousand(thousands, true)} mil`);
  if (rest > 0) parts.push(belowThousand(rest, apocope));
  return parts.join(" ");
}

/** A non-negative integer below 10^18 in Spanish words, e.g. 21 → "veintiuno" (or "veintiún"). */
export function integerToSpanish(value: bigint, apocope = false): string {
  if (value < 0n || value >= 10n ** 18n) throw new RangeError(`out of range: ${value}`);
  if (value === 0n) return "cero";
  const billions = Number(value / 10n ** 12n);
  const millions = Number((value / 10n ** 6n) % 10n ** 6n);
  const rest = Number(value % 10n ** 6n);
  const parts: string[] = [];
  if (billions === 1) parts.push("un billón");
  else if (billions > 1) parts.push(`${belowMillion(billions, true)} billones`);
  if (millions === 1) parts.push("un millón");
  else if (millions > 1) parts.push(`${belowMillion(millions, true)} millones`);
  if (rest > 0) parts.push(belowMillion(rest, apocope));
  return parts.join(" ");
}

/**
 * Cents of Colombian pesos in words: 12900000n → "CIENTO VEINTINUEVE MIL PESOS M/CTE",
 * 100000050n → "UN MILLÓN DE PESOS CON CINCUENTA CENTAVOS M/CTE".
 */
export function pesosInWords(cents: bigint): string {
  const pesos = cents / 100n;
  const centavos = cents % 100n;
  const words = integerToSpanish(pesos, true);
  // "un millón de pesos", "dos millones de pesos", but "un millón cien mil pesos"
  const of = pesos > 0n && pesos % 1_000_000n === 0n ? " de" : "";
  let text = `${words}${of} ${pesos === 1n ? "peso" : "pesos"}`;
  if (centavos > 0n) {
    text += ` con ${integerToSpanish(centavos, true)} ${centavos === 1n ? "centavo" : "centavos"}`;
  }
  return `${text} M/CTE`.toUpperCase();
}
