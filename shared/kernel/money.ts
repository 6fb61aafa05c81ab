/**
 * Amounts as exact integer cents (bigint), to and from decimal text: the one conversion the
 * protocol, the pre-send checks, the PDF and the sandbox all use. Never a float sum.
 */

/** A numeric(18,2) value (a JSON number or decimal text) as exact cents; toFixed absorbs binary noise. */
export function toCents(value: number | string): bigint {
  const text = typeof value === "number" ? value.toFixed(2) : value.trim();
  const match = /^(-?)(\d+)(?:\.(\d{0,2})\d*)?$/.exec(text);
  if (!match) throw new RangeError(`not an amount: ${JSON.stringify(value)}`);
  const cents = BigInt(match[2] ?? "0") * 100n + BigInt((match[3] ?? "").padEnd(2, "0"));
  return match[1] === "-" ? -cents : cents;
}

/** 11900000n → "119000.00"; -5n → "-0.05". */
export function centsToDecimal(cents: bigint): string {
  const digits = (cents < 0n ? -cents : cents).toString().padStart(3, "0");
  return `${cents < 0n ? "-" : ""}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}
