/**
 * How guessable a DIAN software PIN is. DIAN treats the PIN as the software's secret, but its own
 * formulas publish a hash of it: a credit or debit note's CUDE is SHA-384 over the note's number,
 * date, time, amounts, both parties' ids and the environment — all printed on the note — plus the
 * PIN (./cufe.ts), and every document's SoftwareSecurityCode is SHA-384(software id + PIN + number).
 * Whoever holds one note (its buyer, and every member of the issuing organization, lectores included,
 * who read notes and their CUDE) can try PINs offline until one gives the CUDE.
 *
 * Measured on the development machine, one core of Node tries about 420,000 PINs a second: 5 digits
 * (what DIAN's guides show) fall in a quarter of a second, 10 digits in about 7 hours, 16 digits in
 * centuries, and 10 random letters and digits (62^10) in tens of thousands of years — on one core;
 * graphics cards and rented machines try many times more. So a PIN of fewer than 10 characters, or
 * of digits only and fewer than 16, is called guessable here.
 */

export const SAFE_PIN_CHARACTERS = 10;
export const SAFE_DIGITS_ONLY_PIN = 16;

/** True when `pin` is short enough to be recovered from a CUDE by trying PINs. */
export function isGuessablePin(pin: string): boolean {
  return pin.length < SAFE_PIN_CHARACTERS || (/^[0-9]+$/.test(pin) && pin.length < SAFE_DIGITS_ONLY_PIN);
}

/** What an admin is told about a guessable PIN (never the PIN, nor anything derived from it but that). */
export const GUESSABLE_PIN_WARNING =
  "The software PIN is short: anyone who holds one of the company's credit notes (its buyer, and every " +
  "member of the organization, lectores included) can recover it from the note's CUDE by trying PINs, " +
  `and a 5-digit one falls in under a second. Register the software with DIAN under a PIN of at least ` +
  `${SAFE_PIN_CHARACTERS} random letters and digits (${SAFE_DIGITS_ONLY_PIN} if only digits) and save that one here.`;
