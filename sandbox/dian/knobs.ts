/**
 * The DIAN stand-in's knobs, like the other sandboxes' (sandbox/faults.ts) but per DIAN operation:
 * latency, batches that stay in process, and queued faults — a 500, a hang past the caller's
 * timeout, a garbage body, a SOAP Fault.
 */
import { z } from "zod";
import { OPERATIONS, type Operation } from "./envelope.ts";
import type { RuleSettings } from "./finding.ts";
import { TestSetRequirement } from "./test-sets.ts";

export const DianFault = z.object({
  /**
   * error: HTTP 500 with an HTML body, nothing processed; hang: processed, then the answer is held
   * for `hangMs` (the caller times out: an unknown outcome); garbage: processed, then a 200 whose
   * body is not SOAP; fault: a SOAP 1.2 Fault `s:Client` without a reason, nothing processed
   * ([F] unknown_error.xml).
   */
  kind: z.enum(["error", "hang", "garbage", "fault"]),
  /** Default: any operation. */
  operation: z.enum(OPERATIONS).optional(),
  count: z.number().int().min(1).max(1_000).default(1),
});
export type DianFault = z.input<typeof DianFault>;

export const DianKnobs = z.object({
  /** Added before each SOAP request is handled. */
  latencyMs: z.number().int().min(0).max(600_000),
  /** How long a hung answer is held (released early when the caller goes away or on reset). */
  hangMs: z.number().int().min(0).max(3_600_000),
  /**
   * Status calls a new test-set batch answers in process before its results: GetStatusZip's "Batch en
   * proceso de validación." or GetStatus's 98 for one of its documents (either counts).
   */
  pendingPolls: z.number().int().min(0).max(1_000),
  /** New batches stay in process until released (POST /_sandbox/dian/release). */
  holdBatches: z.boolean(),
  failNext: z.array(DianFault).max(100),
  /**
   * The day DIAN's date rules count from (FAD09c: issued more than 10 days before it), YYYY-MM-DD;
   * null: the stand-in's clock's date in Colombia. A test whose documents are dated once and for all
   * sets it to their day, as the world they live in.
   */
  today: z.iso.date().nullable(),
  /**
   * How far, in cents, a product the rules recompute (FAS07, FAX07, FAT07 base × rate; FAV06 price ×
   * quantity) may be from the amount written. DIAN's tolerance was not established (brief-business
   * "Not established": facho's Anexo summary says ±2.00, Vendix assumes one cent); 200 is facho's,
   * and one cent would refuse documents rounded per line, as Odoo and the database round them
   * (docs/adr/0009): up to half a cent per line on a document subtotal. Sums are always exact.
   */
  productToleranceCents: z.number().int().min(0).max(100_000),
  /**
   * What every habilitación test set requires (./test-sets.ts), over each set's own `required`;
   * null: each set's own (a set without numbers never closes).
   */
  testSetRequired: TestSetRequirement.nullable(),
});
export type DianKnobs = z.infer<typeof DianKnobs>;
export const DianKnobsPatch = DianKnobs.partial();
export type DianKnobsPatch = Partial<Omit<DianKnobs, "failNext">> & { failNext?: DianFault[] };

export const DEFAULT_DIAN_KNOBS: DianKnobs = {
  latencyMs: 0,
  hangMs: 30_000,
  pendingPolls: 1,
  holdBatches: false,
  failNext: [],
  today: null,
  productToleranceCents: 200,
  testSetRequired: null,
};

/** The content rules' settings from the knobs, at `now`: `today` is its date in Colombia (UTC−5) by default. */
export function ruleSettings(knobs: DianKnobs, now: Date): RuleSettings {
  return {
    today: knobs.today ?? new Date(now.getTime() - 5 * 3_600_000).toISOString().slice(0, 10),
    productToleranceCents: knobs.productToleranceCents,
  };
}

/** Knobs with their initial values, a patch setter and the queue of faults. */
export function createDianKnobs(initial: DianKnobsPatch = {}) {
  const start = DianKnobs.parse({ ...DEFAULT_DIAN_KNOBS, ...DianKnobsPatch.parse(initial) });
  let knobs = start;
  return {
    get current(): DianKnobs {
      return knobs;
    },
    set(patch: DianKnobsPatch): DianKnobs {
      knobs = DianKnobs.parse({ ...knobs, ...DianKnobsPatch.parse(patch) });
      return knobs;
    },
    /** The first queued fault for `operation`, consumed. */
    take(operation: Operation): DianFault["kind"] | undefined {
      const index = knobs.failNext.findIndex((f) => !f.operation || f.operation === operation);
      const fault = knobs.failNext[index];
      if (!fault) return undefined;
      const rest = knobs.failNext.filter((_, i) => i !== index);
      const count = fault.count ?? 1;
      knobs = { ...knobs, failNext: count > 1 ? [{ ...fault, count: count - 1 }, ...rest] : rest };
      return fault.kind;
    },
    reset(): void {
      knobs = start;
    },
  };
}
