/**
 * Errors: one API error type, one table from code to HTTP status, and the domain errors that the
 * core operations throw. A domain error names its API code, so the HTTP layer never needs a second,
 * inverse mapping.
 */

/** Every error code the API can answer with, and its HTTP status. The only such table. */
export const ERROR_STATUS = {
  invalid_json: 400,
  validation_failed: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  invalid_state: 409,
  idempotency_conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  credential_rejected: 422,
  business_rule: 422,
  rate_limited: 429,
  internal_error: 500,
  provider_error: 502,
  service_unavailable: 503,
  database_unavailable: 503,
  provider_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

/** One entry of `error.details`: which field, and what is wrong with it. */
export interface ErrorDetail {
  field: string;
  message: string;
}

/**
 * `validation_failed`'s message: it names the first problem, so a developer reading only `message`
 * (a log line, a toast) knows what to fix; `details` has every one.
 */
export function invalidBodyMessage(details: readonly ErrorDetail[]): string {
  const [first] = details;
  if (!first) return "The request body is not valid.";
  const more = details.length > 1 ? ` (and ${details.length - 1} more in details)` : "";
  return `The request body is not valid: ${first.field}: ${first.message}${more}.`;
}

/** An error that becomes an API answer as it is. `message` is shown to the caller: no secrets. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;
  /** A provider's (or DIAN's) own words about its failure, answered as `provider_message`. */
  readonly providerMessage: string | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: {
      details?: ErrorDetail[];
      headers?: Record<string, string>;
      providerMessage?: string | undefined;
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "ApiError";
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
    this.providerMessage = options.providerMessage;
  }

  get status(): ErrorStatus {
    return ERROR_STATUS[this.code];
  }
}

/** Base of the errors core operations throw; each names the API code it is answered with. */
export abstract class DomainError extends Error {
  abstract readonly code: ErrorCode;
}

export class NotFoundError extends DomainError {
  readonly code = "not_found";
}

export class ForbiddenError extends DomainError {
  readonly code = "forbidden";
}

export class InvalidStateError extends DomainError {
  readonly code = "invalid_state";
}

/**
 * A 409 that passes by itself: a transmission holds the document right now. Unlike other 409s it is
 * not the final answer to the request, so an `Idempotency-Key` is not kept on it.
 */
export class BusyError extends InvalidStateError {}

export class BusinessRuleError extends DomainError {
  readonly code = "business_rule";
}

/**
 * A field of the request the operation refuses after the schema passed it (a url the policy refuses,
 * a field of the other credential mode, a certificate too costly to open): answered like a schema
 * failure, 400 with details naming the field, and nothing is sent.
 */
export class FieldError extends DomainError {
  readonly code = "validation_failed";
  readonly details: ErrorDetail[];
  constructor(field: string, message: string, more: ErrorDetail[] = []) {
    super(message);
    this.details = [{ field, message }, ...more];
  }
}

/** A `url` the caller gave that the URL policy refuses (a provider's, a webhook's). */
export class RefusedUrlError extends FieldError {
  constructor(message: string) {
    super("url", message);
  }
}

/** A saved `url` that the URL policy refuses as it stands now (422: the fix is to save another). */
export class SavedUrlRefusedError extends BusinessRuleError {}

/** The provider (or DIAN) says a credential does not authenticate (422). */
export class CredentialRejectedError extends DomainError {
  readonly code = "credential_rejected";
  /** The provider's own words about the key, answered beside ours as `provider_message`. */
  readonly providerMessage: string | undefined;

  constructor(message: string, options: { providerMessage?: string | undefined } = {}) {
    super(message);
    this.providerMessage = options.providerMessage;
  }
}

/** Too many requests of a kind: the caller may try again after `retryAfterSeconds`. */
export class RateLimitedError extends DomainError {
  readonly code = "rate_limited";
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The database could not be reached or answered in a way we did not expect. */
export class DatabaseError extends DomainError {
  readonly code = "service_unavailable";
}

/**
 * The database could not serve the call now but may shortly: a statement timeout, a deadlock, a
 * serialization failure, a lock wait, too many connections, a shutdown. The caller is told to retry.
 */
export class DatabaseUnavailableError extends DomainError {
  readonly code = "database_unavailable";
  readonly retryAfterSeconds = 1;
}

/** The errors whose message is about our internals: the caller reads a fixed sentence instead. */
const UNAVAILABLE: ReadonlySet<ErrorCode> = new Set(["service_unavailable", "database_unavailable"]);

/** Turns anything thrown into the API error the caller sees; unknown errors become a bare 500. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof FieldError) {
    const { details } = error;
    return new ApiError("validation_failed", invalidBodyMessage(details), { details, cause: error });
  }
  if (error instanceof DomainError) {
    const message = UNAVAILABLE.has(error.code)
      ? "The service is temporarily unavailable. Try again shortly."
      : error.message;
    // A rate-limited or busy dependency tells the caller when to come back.
    const retryAfter = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
    const headers = typeof retryAfter === "number" ? { "Retry-After": String(retryAfter) } : undefined;
    // a provider's own words travel beside our sentence, never inside it (shared/providers/errors.ts)
    const providerMessage = (error as { providerMessage?: unknown }).providerMessage;
    return new ApiError(error.code, message, {
      cause: error,
      ...(headers ? { headers } : {}),
      ...(typeof providerMessage === "string" && providerMessage ? { providerMessage } : {}),
    });
  }
  return new ApiError("internal_error", "An unexpected error occurred.", { cause: error });
}
