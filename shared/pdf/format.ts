/**
 * Colombian (es-CO) formatting for the printed invoice: "$ 1.234.567,89", "1.234,5", "20/11/2026",
 * "NIT 900.123.456-7". Implemented by hand rather than with `Intl.NumberFormat("es-CO")`: an
 * edge runtime may ship without full ICU locale data and silently fall back to "1,234,567.89", and
 * a printed invoice must not change with the runtime. Amounts are exact integer cents (bigint).
 */
import { colombianTime } from "../co/time.ts";

/** "1234567" → "1.234.567": groups of three with the es-CO thousands separator. */
export function groupThousands(digits: string): string {
  let out = "";
  for (let end = digits.length; end > 0; end -= 3) {
    const chunk = digits.slice(Math.max(0, end - 3), end);
    out = out === "" ? chunk : `${chunk}.${out}`;
  }
  return out === "" ? "0" : out;
}

/** 123456789n → "1.234.567,89" (always two decimals, "," as decimal mark). */
export function formatAmount(cents: bigint): string {
  const negative = cents < 0n;
  const digits = (negative ? -cents : cents).toString().padStart(3, "0");
  const text = `${groupThousands(digits.slice(0, -2))},${digits.slice(-2)}`;
  return negative ? `-${text}` : text;
}

const CURRENCY_SYMBOLS: Record<string, string> = { COP: "$", USD: "US$", EUR: "€" };

/** 123456789n, "COP" → "$ 1.234.567,89"; currencies without a symbol print their ISO code. */
export function formatMoney(cents: bigint, currency: string): string {
  const symbol = CURRENCY_SYMBOLS[currency] ?? currency;
  const amount = formatAmount(cents < 0n ? -cents : cents);
  return cents < 0n ? `-${symbol} ${amount}` : `${symbol} ${amount}`;
}

/** A quantity (numeric(18,6)) without trailing zeros: 2 → "2", 1234.5 → "1.234,5". */
export function formatQuantity(value: number): string {
  const [whole = "0", fraction = ""] = value
    .toFixed(6)
    .replace(/\.?0+$/, "")
    .split(".");
  const negative = whole.startsWith("-");
  const grouped = groupThousands(negative ? whole.slice(1) : whole);
  return `${negative ? "-" : ""}${grouped}${fraction ? `,${fraction}` : ""}`;
}

/**
 * A percentage as it is declared, never rounded: 19 → "19 %", 8.5 → "8,5 %", ReteICA's 9,66 per
 * mil → "0,966 %".
 */
export function formatRate(rate: number): string {
  return `${formatQuantity(rate)} %`;
}

/** "900123456", "7" → "900.123.456-7"; identifiers with letters are printed as they are. */
export function formatTaxId(id: string, checkDigit?: string | null): string {
  const body = /^\d+$/.test(id) ? groupThousands(id) : id;
  return checkDigit ? `${body}-${checkDigit}` : body;
}

/** "2026-11-20" → "20/11/2026" (day first, as dates are read in Colombia). */
export function formatDate(isoDate: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(isoDate);
  return match ? `${match[3]}/${match[2]}/${match[1]}` : isoDate;
}

/** PostgreSQL's "10:15:00-05" or DIAN's "10:15:00-05:00" → "10:15:00-05:00". */
export function isoTimeWithOffset(value: string): string {
  const match = /^(\d{2}:\d{2}:\d{2})(?:\.\d+)?(?:([+-]\d{2})(?::?(\d{2}))?|Z)?$/.exec(value.trim());
  if (!match) return value;
  return `${match[1]}${match[2] ?? "+00"}:${match[3] ?? "00"}`;
}

/** "10:15:00-05" → "10:15:00 (UTC-05:00)". */
export function formatTime(value: string): string {
  const iso = isoTimeWithOffset(value);
  const match = /^(\d{2}:\d{2}:\d{2})([+-]\d{2}:\d{2})$/.exec(iso);
  return match ? `${match[1]} (UTC${match[2]})` : value;
}

/** An ISO-8601 instant → "20/11/2026 10:20:31 (UTC-05:00)", in Colombian time. */
export function formatTimestampCo(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const [date, time] = colombianTime(new Date(ms)).split("T") as [string, string];
  return `${formatDate(date)} ${time.slice(0, 8)} (UTC-05:00)`;
}
