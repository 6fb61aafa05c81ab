/**
 * When the client tries a call again: after no answer at all, or a 429 or 503 (or a 409 saying an
 * earlier unanswered try is still running), with exponential backoff and never sooner than the
 * service's `Retry-After`. Every try carries the call's one
 * Idempotency-Key, so a try whose answer was lost is answered again, not done twice.
 */

/** How a call is retried; `false` instead of these turns retries off. */
export interface RetryOptions {
  /** Tries in all, the first included (default 3; 1 means no retry). */
  attempts?: number;
  /** The wait before the first retry (default 500 ms), doubled for each next one, with jitter. */
  baseDelayMs?: number;
  /**
   * The longest wait (default 10 000 ms). A `Retry-After` longer than this is not waited for: the
   * error is thrown at once, its `retry_after` saying when the service expects the call again.
   */
  maxDelayMs?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 500, maxDelayMs: 10_000 };
/** Bounds on what a caller may set, so a typo cannot make a call spin or hang for hours. */
const MAX_ATTEMPTS = 10;
const MAX_WAIT_MS = 5 * 60_000;

/** The policy of one call: the call's options over the client's, over the defaults. */
export function retryPolicy(
  client: RetryOptions | false | undefined,
  call: RetryOptions | false | undefined,
): RetryPolicy {
  if (call === false || (call === undefined && client === false)) return { ...DEFAULT_RETRY, attempts: 1 };
  const merged = { ...DEFAULT_RETRY, ...(client || {}), ...(call || {}) };
  const bounded = (value: number, fallback: number, max: number) =>
    Number.isFinite(value) && value >= 0 ? Math.min(value, max) : fallback;
  return {
    attempts: Math.max(1, Math.floor(bounded(merged.attempts, DEFAULT_RETRY.attempts, MAX_ATTEMPTS))),
    baseDelayMs: bounded(merged.baseDelayMs, DEFAULT_RETRY.baseDelayMs, MAX_WAIT_MS),
    maxDelayMs: bounded(merged.maxDelayMs, DEFAULT_RETRY.maxDelayMs, MAX_WAIT_MS),
  };
}

/**
 * Whether a failure may be retried: no answer came, or the service asked to come back later. After a
 * try that got no answer, `idempotency_conflict` too: with the same key and body it can only mean
 * that try reached the service and is still running, and once it ends a retry gets its answer.
 */
export function isRetryable(
  failure: { code: string; status: number },
  earlierTryUnanswered: boolean,
): boolean {
  if (failure.code === "idempotency_conflict") return earlierTryUnanswered;
  return failure.code === "network_error" || failure.status === 429 || failure.status === 503;
}

/**
 * How long to wait before retry number `retry` (1 for the first), or null when the service's
 * `Retry-After` is longer than the policy allows: then the caller gets the error instead.
 */
export function retryDelayMs(policy: RetryPolicy, retry: number, retryAfterMs: number | null): number | null {
  if (retryAfterMs !== null && retryAfterMs > policy.maxDelayMs) return null;
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  // "equal jitter": between half and all of the backoff, so clients refused together spread out
  const jittered = backoff / 2 + Math.random() * (backoff / 2);
  return Math.max(jittered, retryAfterMs ?? 0);
}

/** `Retry-After` (delta-seconds or an HTTP date) in milliseconds from `now`; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | null {
  const trimmed = value?.trim();
  if (!trimmed) return null;
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
