/**
 * One call of a route through `supabase.functions.invoke`: its Idempotency-Key (the caller's, or a
 * new random one), its tries (./retry.ts), and what the answer says besides its body.
 */
import {
  EinvoicingError,
  IDEMPOTENT_REPLAYED_HEADER,
  networkError,
  REQUEST_ID_HEADER,
  toEinvoicingError,
} from "./error.ts";
import { isRetryable, type RetryOptions, retryDelayMs, retryPolicy, sleep } from "./retry.ts";

/** What the client needs of a supabase-js client (`createClient(…)` is one). */
export interface SupabaseLike {
  functions: {
    invoke(
      name: string,
      options: { body: Record<string, unknown>; headers?: Record<string, string>; method?: "POST" },
    ): Promise<{
      data: unknown;
      error: unknown;
      response?: { headers: { get(name: string): string | null } };
    }>;
  };
  storage: {
    from(bucket: string): { download(path: string): Promise<{ data: Blob | null; error: unknown }> };
  };
}

export interface CallOptions {
  /**
   * Sent as `Idempotency-Key`: the same key with the same body within 24 hours answers the first
   * answer again instead of doing the work twice. Without one, each call makes its own (and reuses
   * it on its retries); pass one per user action to make a later retry of that action safe too.
   */
  idempotencyKey?: string;
  /** This call's retries, over the client's (`false`: none). */
  retry?: RetryOptions | false;
}

/** A successful call's answer with what the headers said (`{ withMeta: true }`). */
export interface WithMeta<T> {
  data: T;
  /** True when the service answered with the kept answer of an earlier call with this key. */
  replayed: boolean;
  /** The key the call was made with (the caller's, or the one the client made). */
  idempotency_key: string;
  /** The service's id of the request that answered (quote it to support). */
  request_id: string | null;
}

/** What the service accepts; anything else could not even be sent as a header. */
const KEY_SHAPE = /^[\x20-\x7E]{1,255}$/;

/**
 * Calls `target` (`einvoicing/transmit`) with `body`, trying again as the policy allows, and answers
 * the body with what its headers said; every failure is an EinvoicingError.
 */
export async function invokeRoute(
  supabase: SupabaseLike,
  target: { functionName: string; route: string; retry: RetryOptions | false | undefined },
  body: Record<string, unknown>,
  options: CallOptions,
): Promise<WithMeta<unknown>> {
  const key = options.idempotencyKey ?? newKey();
  const call = { route: target.route, idempotency_key: key };
  if (!KEY_SHAPE.test(key)) {
    throw new EinvoicingError({
      code: "validation_failed",
      status: 0,
      message: "The idempotency key is not valid.",
      details: [{ field: "Idempotency-Key", message: "must be 1 to 255 printable ASCII characters" }],
      ...call,
    });
  }
  const policy = retryPolicy(target.retry, options.retry);
  let unanswered = false;
  for (let attempt = 1; ; attempt++) {
    let failure: EinvoicingError;
    try {
      const result = await supabase.functions.invoke(`${target.functionName}/${target.route}`, {
        method: "POST",
        body,
        headers: { "Idempotency-Key": key },
      });
      if (!result.error) return answered(result, call);
      failure = await toEinvoicingError(result.error, call);
    } catch (error) {
      if (error instanceof EinvoicingError) throw error;
      failure = networkError(error, call);
    }
    const wait =
      attempt < policy.attempts && isRetryable(failure, unanswered)
        ? retryDelayMs(policy, attempt, failure.retry_after === null ? null : failure.retry_after * 1000)
        : null;
    if (wait === null) throw failure;
    unanswered ||= failure.code === "network_error";
    await sleep(wait);
  }
}

function answered(
  result: Awaited<ReturnType<SupabaseLike["functions"]["invoke"]>>,
  call: { route: string; idempotency_key: string },
): WithMeta<unknown> {
  const { data, response } = result;
  // every answer of the API is a JSON object; anything else (an HTML page at a wrong URL) is not it
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new EinvoicingError({
      code: "unexpected_response",
      status: 200,
      message: "The answer was not the service's: check the Supabase URL.",
      request_id: response?.headers.get(REQUEST_ID_HEADER) ?? null,
      ...call,
    });
  }
  return {
    data,
    replayed: response?.headers.get(IDEMPOTENT_REPLAYED_HEADER) === "true",
    idempotency_key: call.idempotency_key,
    request_id: response?.headers.get(REQUEST_ID_HEADER) ?? null,
  };
}

/**
 * A random UUID. `crypto.randomUUID` exists only in secure contexts (https, localhost); a page served
 * over plain http elsewhere still has `getRandomValues`.
 */
function newKey(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
