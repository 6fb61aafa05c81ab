/**
 * The sandbox's knobs: latency, a concurrency limit, and injected faults, either queued
 * (`failNext`, deterministic) or drawn against rates from a seeded generator (reproducible).
 */
import { z } from "zod";

const rate = z.number().min(0).max(1);

export const FailRule = z.object({
  /**
   * hang: answered only after `hangMs` (a submit, render or send is processed first: an unknown
   * outcome); error: 503, nothing processed; malformed: processed, then a 200 that is not JSON (not a
   * PDF, for a render); rate_limited: 429 with Retry-After: 1, nothing processed.
   */
  kind: z.enum(["hang", "error", "malformed", "rate_limited"]),
  /** How many matching requests it applies to. */
  count: z.number().int().min(1).default(1),
  /** Default: the service's main operation (submit for adapter-tax, render for docsgen, send for deliver). */
  on: z.enum(["submit", "query", "attached_document", "check", "render", "send"]).optional(),
  /** Only requests about this document or message (its `reference`, in the body or the query path). */
  reference: z.string().optional(),
});
export type FailRule = z.input<typeof FailRule>;
export type FaultKind = z.infer<typeof FailRule>["kind"];
export type FaultTarget = NonNullable<z.infer<typeof FailRule>["on"]>;

export const SandboxKnobs = z.object({
  /** Added before every protocol request is handled; a client that gives up meanwhile leaves nothing behind. */
  latencyMs: z.number().int().min(0).max(600_000),
  /** Protocol requests in flight at once; past it the answer is 429 with Retry-After: 1. 0 = no limit. */
  concurrencyLimit: z.number().int().min(0),
  /** How long a hung answer is held (released early when the client goes away or on reset). */
  hangMs: z.number().int().min(0).max(3_600_000),
  /** Probability that a request hangs. */
  timeoutRate: rate,
  /** Probability of a 503 without processing. */
  errorRate: rate,
  /** Probability of a garbled 200 (after processing). */
  malformedRate: rate,
  /** adapter-tax: queries that still answer `pending` before a pending document turns accepted. */
  pendingPolls: z.number().int().min(0),
  /** Seed of the generator the rates draw from; setting it restarts the sequence. */
  seed: z.number().int(),
  failNext: z.array(FailRule),
});
export type SandboxKnobs = z.infer<typeof SandboxKnobs>;
export type SandboxKnobsPatch = Partial<Omit<SandboxKnobs, "failNext">> & { failNext?: FailRule[] };
export const SandboxKnobsPatch = SandboxKnobs.partial();

export const DEFAULT_KNOBS: SandboxKnobs = {
  latencyMs: 0,
  concurrencyLimit: 0,
  hangMs: 30_000,
  timeoutRate: 0,
  errorRate: 0,
  malformedRate: 0,
  pendingPolls: 0,
  seed: 42,
  failNext: [],
};

export interface Faults {
  readonly knobs: SandboxKnobs;
  set(patch: SandboxKnobsPatch): SandboxKnobs;
  /** The fault to inject into this request, if any: the first matching failNext rule, else a draw. */
  draw(on: FaultTarget, reference: string | undefined): FaultKind | undefined;
  reset(): void;
}

/** `primary` is the operation a rule without `on` applies to. */
export function createFaults(initial: SandboxKnobsPatch = {}, primary: FaultTarget = "submit"): Faults {
  const start = SandboxKnobs.parse({ ...DEFAULT_KNOBS, ...SandboxKnobsPatch.parse(initial) });
  let knobs = start;
  let random = mulberry32(knobs.seed);
  return {
    get knobs() {
      return knobs;
    },
    set(patch) {
      const parsed = SandboxKnobsPatch.parse(patch);
      knobs = SandboxKnobs.parse({ ...knobs, ...parsed });
      if (parsed.seed !== undefined) random = mulberry32(knobs.seed);
      return knobs;
    },
    draw(on, reference) {
      const index = knobs.failNext.findIndex(
        (r) => (r.on ?? primary) === on && (!r.reference || r.reference === reference),
      );
      const rule = knobs.failNext[index];
      if (rule) {
        const rest = knobs.failNext.filter((_, i) => i !== index);
        knobs = { ...knobs, failNext: rule.count > 1 ? [{ ...rule, count: rule.count - 1 }, ...rest] : rest };
        return rule.kind;
      }
      const x = random();
      if (x < knobs.errorRate) return "error";
      if (x < knobs.errorRate + knobs.timeoutRate) return "hang";
      if (x < knobs.errorRate + knobs.timeoutRate + knobs.malformedRate) return "malformed";
      return undefined;
    },
    reset() {
      knobs = start;
      random = mulberry32(knobs.seed);
    },
  };
}

/** Small seedable PRNG (mulberry32) so rate-based faults are reproducible. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
