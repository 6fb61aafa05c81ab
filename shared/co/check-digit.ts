/**
 * DIAN's check digit (dígito de verificación, DV) of a NIT. Weights from the rightmost digit; r is
 * the weighted sum mod 11; the DV is r when r ≤ 1, else 11 − r (DIAN's own NIT 800197268 → 4). The
 * database computes the same in `einv_private.nit_check_digit` (…_core_schema.sql), which refuses a
 * company whose DV is wrong; tests/db/check-digit.test.ts holds the two together.
 */

const WEIGHTS = [3, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71] as const;

/** The DV of `nit` (1 to 15 digits), or null when `nit` is not one. */
export function nitCheckDigit(nit: string): string | null {
  if (!/^[0-9]{1,15}$/.test(nit)) return null;
  let sum = 0;
  for (let i = 0; i < nit.length; i++) {
    sum += Number(nit[nit.length - 1 - i]) * (WEIGHTS[i] as number);
  }
  const r = sum % 11;
  return String(r <= 1 ? r : 11 - r);
}

/** DIAN's identification type of a NIT (the only type that carries a DV). */
export const NIT_ID_TYPE = "31";
