/**
 * A signal that aborts with a TimeoutError after `ms`, as `AbortSignal.timeout(ms)`'s does, and
 * `stop`, which clears its timer. AbortSignal.timeout's timer cannot be cleared: it keeps its signal,
 * the signal its listeners and they whatever they close over (a provider's answer, through the
 * race that waited on it) until it fires — under load, every answer of the last `ms`, hundreds of
 * MiB (bench/heap-snapshot.ts showed it). Stopped when the work is done, nothing holds them.
 */
export function deadline(ms: number): { signal: AbortSignal; stop: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException("The operation timed out.", "TimeoutError")),
    ms,
  );
  return { signal: controller.signal, stop: () => clearTimeout(timer) };
}
