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
 * graphics cards and rented machines try many times more, and the CUDE's fixed prefix can be hashed
 * once, leaving about one SHA-384 block per guess (billions a second on one card). So a PIN is
 * called guessable here unless an offline search of every PIN of its length and kinds of character
 * is out of reach: at least 72 bits (length × log2 of the characters its kinds allow: 10 digits, 26
 * lowercase, 26 uppercase, 33 others), e.g. 13 letters of both cases and digits, or 22 digits.
 */

export const SAFE_PIN_BITS = 72;

/** log2 of how many PINs of `pin`'s length and kinds of character there are. */
export function pinSearchBits(pin: string): number {
  let pool = 0;
  if (/[0-9]/.test(pin)) pool += 10;
  if (/[a-z]/.test(pin)) pool += 26;
  if (/[A-Z]/.test(pin)) pool += 26;
  if (/[^0-9a-zA-Z]/.test(pin)) pool += 33;
  return pool === 0 ? 0 : [...pin].length * Math.log2(pool);
}

/** True when `pin` can be recovered from a CUDE by trying every PIN like it. */
export function isGuessablePin(pin: string): boolean {
  return pinSearchBits(pin) < SAFE_PIN_BITS;
}

/** What an admin is told about a guessable PIN (never the PIN, nor anything derived from it but that). */
export const GUESSABLE_PIN_WARNING =
  "The software PIN is guessable: anyone who holds one of the company's credit notes (its buyer, and every " +
  "member of the organization, lectores included) can recover it from the note's CUDE by trying PINs, " +
  "and a 5-digit one falls in under a second. Register the software with DIAN under a PIN of at least " +
  "13 random letters of both cases and digits (22 if only digits) and save that one here.";
