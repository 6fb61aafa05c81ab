/**
 * The service's clock: what time it is for a document. A document's issue date and time are the
 * instant it is first claimed for sending (a credit note: its creation), written in Colombia's time
 * by the claim, and its signature's SigningTime is the instant it is signed (DESIGN §12,
 * docs/adr/0010-issue-time-stamped-in-colombia.md). Both come from here, never from the database's
 * clock or a draft's own date. The composition root hands the system's; a test hands one it sets
 * (devkit/clock.ts). Leases, timeouts and transport timestamps (WS-Security) keep real time.
 */
export interface Clock {
  now(): Date;
}

/** The system's clock. */
export const systemClock: Clock = { now: () => new Date() };
