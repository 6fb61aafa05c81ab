/**
 * Exact decimal arithmetic for the stand-in's rules: what the XML says, as integers scaled by a
 * power of ten, so a product like TaxableAmount × Percent / 100 is compared without a float's
 * rounding. A number longer than MAX_DIGITS characters is not read (the message cap allows megabytes
 * of digits; none of DIAN's fields needs more than a few dozen): it fails the rule that reads it.
 */

/** `n / 10^scale`. */
export interface Decimal {
  n: bigint;
  scale: number;
}

export const MAX_DIGITS = 40;

/** The decimal `text` says, or null when it is not one (or longer than MAX_DIGITS). */
export function decimal(text: string | undefined): Decimal | null {
  if (text === undefined || text.length > MAX_DIGITS) return null;
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) return null;
  const fraction = match[3] ?? "";
  const n = BigInt(`${match[2]}${fraction}`);
  return { n: match[1] ? -n : n, scale: fraction.length };
}

/** A decimal string as cents, truncated past two decimals ([D] `TruncateDecimal(…, 2)`); null if not a number. */
export function cents(value: string): bigint | null {
  const d = decimal(value);
  if (!d) return null;
  return d.scale <= 2 ? d.n * 10n ** BigInt(2 - d.scale) : d.n / 10n ** BigInt(d.scale - 2);
}

export const times = (a: Decimal, b: Decimal): Decimal => ({ n: a.n * b.n, scale: a.scale + b.scale });

/** `a / 10^k`. */
export const shifted = (a: Decimal, k: number): Decimal => ({ n: a.n, scale: a.scale + k });

const scaledTo = (a: Decimal, scale: number) => a.n * 10n ** BigInt(scale - a.scale);

export function plus(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return { n: scaledTo(a, scale) + scaledTo(b, scale), scale };
}

export const minus = (a: Decimal, b: Decimal): Decimal => plus(a, { n: -b.n, scale: b.scale });

export const ZERO: Decimal = { n: 0n, scale: 0 };

/** Whether `exact` and `amount` (an amount as written) differ by at most `toleranceCents` cents. */
export function within(exact: Decimal, amount: Decimal, toleranceCents: number): boolean {
  const scale = Math.max(exact.scale, amount.scale, 2);
  const difference = scaledTo(exact, scale) - scaledTo(amount, scale);
  const bound = BigInt(toleranceCents) * 10n ** BigInt(scale - 2);
  return difference <= bound && -difference <= bound;
}

/** Whether two decimals are the same number (`1.00` and `1`). */
export const equal = (a: Decimal, b: Decimal): boolean => within(a, b, 0);

export const isNegative = (a: Decimal): boolean => a.n < 0n;

/** The number as text without trailing zeros (`19.00` and `19` alike): a key for "the same rate". */
export function canonical(a: Decimal): string {
  let { n, scale } = a;
  while (scale > 0 && n % 10n === 0n) {
    n /= 10n;
    scale--;
  }
  return `${n}e-${scale}`;
}

/** -1, 0 or 1 as `a` is below, equal to or above `b`. */
export function compare(a: Decimal, b: Decimal): number {
  const difference = minus(a, b).n;
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
}
