/**
 * The most expensive invoices the database's limits allow (supabase/migrations: 1,000 lines, each
 * description 1,000 characters, codes of 60, notes of 5,000, the longest names and addresses): one
 * all unbroken words, so that every line must be cut inside a word; one all one-letter words of the
 * narrowest letter, so that every line holds as many words as it can. The bench renders both to
 * show that the render budget bounds their cost; the render tests check that it fails fast and
 * clearly.
 */
import type { InvoiceDocumentRow } from "../../shared/kernel/rows.ts";
import { DEMO_COMPANY, demoInvoice, line, withLines } from "./fixtures.ts";

export const LIMITS = {
  lines: 1000,
  description: 1000,
  code: 60,
  notes: 5000,
  name: 450,
  address: 300,
} as const;

export function worstCaseInvoice(lineCount: number = LIMITS.lines): InvoiceDocumentRow {
  const word = (n: number, ch = "W") => ch.repeat(n);
  const lines = Array.from({ length: lineCount }, (_, i) =>
    line(i + 1, 1, 1_000, 19, { code: word(LIMITS.code, "M"), description: word(LIMITS.description) }),
  );
  return withLines(
    {
      ...demoInvoice(),
      notes: word(LIMITS.notes, "N"),
      buyer_name: word(LIMITS.name),
      buyer_address: word(LIMITS.address),
      company: { ...DEMO_COMPANY, legal_name: word(LIMITS.name), address: word(LIMITS.address) },
    },
    lines,
  );
}

/** The same limits filled with "i " (a narrow one-letter word): the most words per line. */
export function shortWordsInvoice(lineCount: number = LIMITS.lines): InvoiceDocumentRow {
  const words = (n: number) => "i ".repeat(n / 2).trim();
  const worst = worstCaseInvoice(lineCount);
  return withLines(
    { ...worst, notes: words(LIMITS.notes) },
    worst.lines.map((l) => ({ ...l, code: words(LIMITS.code), description: words(LIMITS.description) })),
  );
}
