/**
 * Colombia's civil time: UTC−5 all year (no daylight saving since 1993), so a fixed offset is exact.
 * A document is issued and signed in it (DESIGN §12; DIAN's FAD09e wants the issue date to be the
 * signing date, both read in Colombia).
 */
const OFFSET_MS = -5 * 3_600_000;

/** A Date as Colombian civil time, with milliseconds: `2026-11-20T10:30:00.000-05:00`. */
export function colombianTime(date: Date): string {
  return `${new Date(date.getTime() + OFFSET_MS).toISOString().slice(0, 23)}-05:00`;
}

/** The day it is in Colombia at `date`: `2026-11-20`. */
export function colombianDate(date: Date): string {
  return colombianTime(date).slice(0, 10);
}
