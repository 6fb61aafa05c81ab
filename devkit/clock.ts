/**
 * A clock a test sets (the `Clock` port, shared/ports/clock.ts): it stays at the instant it was set to
 * until it is set again or moved on, so a test decides when a document is issued and signed.
 */
import type { Clock } from "../shared/ports/clock.ts";

export interface TestClock extends Clock {
  /** From now on it reads `at` (an ISO-8601 instant or a Date). */
  set(at: string | Date): void;
  /** Moves it on by `ms` milliseconds. */
  advance(ms: number): void;
}

export function createTestClock(at: string | Date): TestClock {
  let current = new Date(at);
  if (Number.isNaN(current.getTime())) throw new RangeError(`not an instant: ${String(at)}`);
  return {
    now: () => new Date(current),
    set(next) {
      const date = new Date(next);
      if (Number.isNaN(date.getTime())) throw new RangeError(`not an instant: ${String(next)}`);
      current = date;
    },
    advance(ms) {
      current = new Date(current.getTime() + ms);
    },
  };
}
