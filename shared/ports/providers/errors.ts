/**
 * Typed provider failures. Every failure of a provider call becomes one of these, built in one place
 * (`providerError`, after stripe-node's `StripeError.generate`), so the core can branch on `kind`
 * and on `maybeProcessed` without knowing HTTP.
 *
 * A DIAN rejection is not an error: it is a `DocumentOutcome` with status `rejected` (likewise a
 * refused e-mail is a `DeliveryOutcome` with status `rejected`). The `rejected` kind here means the
 * provider refused our request itself (validation, idempotency conflict).
 */
import type { z } from "zod";
import { DomainError } from "../../kernel/errors.ts";

export type ProviderErrorKind =
  | "timeout"
  | "unavailable"
  | "rate_limited"
  | "rejected"
  | "unauthorized"
  | "malformed";
/** The three provider services of a company (DESIGN §5); adapter-tax when a failure does not say. */
export type ProviderService = "adapter-tax" | "docsgen" | "deliver";
/**
 * submit, query, attached_document: adapter-tax; render: docsgen; send, message_query: deliver;
 * check_credential: all three.
 */
export type ProviderOperation =
  | "submit"
  | "query"
  | "attached_document"
  | "check_credential"
  | "render"
  | "send"
  | "message_query";

/** What went wrong, as the client saw it; the only input of the factory. */
export type RawProviderFailure = (
  | { type: "timeout"; operation: ProviderOperation; timeoutMs: number }
  | { type: "network"; operation: ProviderOperation; cause: unknown }
  | {
      type: "response";
      operation: ProviderOperation;
      status: number;
      /** The provider's `error.code` and `error.message`, when the body had that shape. */
      providerCode?: string;
      providerMessage?: string;
      /** Raw Retry-After header value. */
      retryAfter?: string | null;
    }
  | { type: "malformed"; operation: ProviderOperation; status: number; problem: string }
) & { service?: ProviderService };

interface ProviderErrorInit {
  service?: ProviderService;
  operation: ProviderOperation;
  maybeProcessed: boolean;
  status?: number;
  providerCode?: string;
  /** The provider's (or DIAN's) own words about the failure, as it wrote them, one line, bounded. */
  providerMessage?: string | undefined;
  cause?: unknown;
}

/**
 * Base of every provider failure. `message` is ours, in English, and safe to show: it never holds a
 * key or a token, nor the provider's own words, which are `providerMessage` (answered beside it as
 * `provider_message`).
 */
export abstract class ProviderError extends DomainError {
  abstract readonly kind: ProviderErrorKind;
  /** Which of the company's providers failed. */
  readonly service: ProviderService;
  readonly operation: ProviderOperation;
  /**
   * True when the provider may have processed the request although we got no usable answer
   * (timeout, connection lost, 5xx, garbage). For a submit the outcome is then unknown: resolve it
   * with a query, never with a blind resend.
   */
  readonly maybeProcessed: boolean;
  /** The provider's HTTP status, when it answered. */
  readonly status: number | undefined;
  /** The provider's `error.code`, when it sent one. */
  readonly providerCode: string | undefined;
  /** The provider's own words, when it gave any (already scrubbed of the key: ./transport.ts). */
  readonly providerMessage: string | undefined;

  constructor(message: string, init: ProviderErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.service = init.service ?? "adapter-tax";
    this.operation = init.operation;
    this.maybeProcessed = init.maybeProcessed;
    this.status = init.status;
    this.providerCode = init.providerCode;
    this.providerMessage = init.providerMessage || undefined;
  }
}

/** No answer within the per-call timeout (or a gateway timeout). */
export class ProviderTimeoutError extends ProviderError {
  readonly code = "provider_timeout";
  readonly kind = "timeout";
}

/** Unreachable, or a 5xx. */
export class ProviderUnavailableError extends ProviderError {
  readonly code = "provider_error";
  readonly kind = "unavailable";
}

/** 429: nothing was processed; try again after `retryAfterSeconds`. */
export class ProviderRateLimitedError extends ProviderError {
  readonly code = "rate_limited";
  readonly kind = "rate_limited";
  readonly retryAfterSeconds: number;

  constructor(message: string, init: ProviderErrorInit & { retryAfterSeconds: number }) {
    super(message, init);
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/** Another 4xx: the provider refused the request (nothing was processed). */
export class ProviderRejectedError extends ProviderError {
  readonly code = "provider_error";
  readonly kind = "rejected";
}

/**
 * 401/403: the company's key does not authenticate. Answered as `credential_rejected` (422): the
 * fix is the company's saved credential, not waiting for the provider.
 */
export class ProviderUnauthorizedError extends ProviderError {
  readonly code = "credential_rejected";
  readonly kind = "unauthorized";
}

/** An answer that is not what the protocol promises (not JSON, wrong shape, wrong document). */
export class ProviderMalformedError extends ProviderError {
  readonly code = "provider_error";
  readonly kind = "malformed";
}

const DEFAULT_RETRY_AFTER_SECONDS = 1;
const MAX_RETRY_AFTER_SECONDS = 3600;

/** The one factory: a raw failure in, the typed error out. */
export function providerError(raw: RawProviderFailure): ProviderError {
  const op = raw.operation;
  const service = raw.service ?? "adapter-tax";
  const what = OPERATION_LABEL[op];
  const who = SERVICE_LABEL[service];
  switch (raw.type) {
    case "timeout":
      return new ProviderTimeoutError(`The ${who} did not answer the ${what} within ${raw.timeoutMs} ms.`, {
        service,
        operation: op,
        maybeProcessed: true,
      });
    case "network":
      // The request may have left before the connection failed, so the outcome is unknown.
      return new ProviderUnavailableError(`The ${who} could not be reached for the ${what}.`, {
        service,
        operation: op,
        maybeProcessed: true,
        cause: raw.cause,
      });
    case "malformed":
      return new ProviderMalformedError(`The ${who} answered the ${what} with ${raw.problem}.`, {
        service,
        operation: op,
        maybeProcessed: true,
        status: raw.status,
      });
    case "response":
      return fromResponse(raw, service, what);
  }
}

function fromResponse(
  raw: Extract<RawProviderFailure, { type: "response" }>,
  service: ProviderService,
  what: string,
): ProviderError {
  const { status, operation, providerCode } = raw;
  const who = SERVICE_LABEL[service];
  const base = { service, operation, status, providerCode, providerMessage: raw.providerMessage };
  if (status === 401 || status === 403) {
    return new ProviderUnauthorizedError(`The ${who} rejected the credential (HTTP ${status}).`, {
      ...base,
      maybeProcessed: false,
    });
  }
  if (status === 429) {
    const retryAfterSeconds = parseRetryAfter(raw.retryAfter);
    return new ProviderRateLimitedError(
      `The ${who} is rate limiting requests; retry the ${what} after ${retryAfterSeconds} s.`,
      { ...base, maybeProcessed: false, retryAfterSeconds },
    );
  }
  if (status === 408 || status === 504) {
    return new ProviderTimeoutError(`The ${who} timed out on the ${what} (HTTP ${status}).`, {
      ...base,
      maybeProcessed: true,
    });
  }
  if (status >= 500 && status <= 599) {
    return new ProviderUnavailableError(`The ${who} failed on the ${what} (HTTP ${status}).`, {
      ...base,
      maybeProcessed: true,
    });
  }
  if (status === 409 && providerCode === "idempotency_conflict") {
    // The key is already bound to a body the provider stored: something went through before.
    return new ProviderRejectedError(`The ${who} already holds another request under this key (HTTP 409).`, {
      ...base,
      maybeProcessed: true,
    });
  }
  if (status >= 400 && status <= 499) {
    return new ProviderRejectedError(`The ${who} refused the ${what} (HTTP ${status}).`, {
      ...base,
      maybeProcessed: false,
    });
  }
  return new ProviderMalformedError(`The ${who} answered the ${what} with unexpected HTTP ${status}.`, {
    ...base,
    maybeProcessed: true,
  });
}

const OPERATION_LABEL: Record<ProviderOperation, string> = {
  submit: "document submission",
  query: "document query",
  attached_document: "AttachedDocument download",
  check_credential: "credential check",
  render: "PDF rendering",
  send: "message delivery",
  message_query: "message query",
};

/** How messages name each service's provider. */
export const SERVICE_LABEL: Record<ProviderService, string> = {
  "adapter-tax": "tax provider",
  docsgen: "document provider",
  deliver: "delivery provider",
};

/** Retry-After as delta-seconds or an HTTP date; missing or unreadable means 1 s; capped at 1 h. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number {
  if (!value) return DEFAULT_RETRY_AFTER_SECONDS;
  const trimmed = value.trim();
  let seconds: number;
  if (/^\d+$/.test(trimmed)) {
    seconds = Number(trimmed);
  } else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return DEFAULT_RETRY_AFTER_SECONDS;
    seconds = Math.ceil((at - now) / 1000);
  }
  return Math.min(Math.max(seconds, 0), MAX_RETRY_AFTER_SECONDS);
}

/**
 * A request we refused to send because it breaks the protocol (a bug, or data the caller should
 * have checked first, such as a stored e-mail address). Nothing reached the provider.
 */
export class ProviderRequestError extends TypeError {
  override name = "ProviderRequestError";
  readonly operation: ProviderOperation;
  /** One entry per problem: the field path and what is wrong with it. */
  readonly details: { field: string; message: string }[];

  constructor(operation: ProviderOperation, details: { field: string; message: string }[]) {
    super(`invalid ${operation} request: ${details.map((d) => `${d.field}: ${d.message}`).join("; ")}`);
    this.operation = operation;
    this.details = details;
  }
}

/** Validates what we are about to send; the parsed value drops unknown keys (so no stray secrets). */
export function checkRequest<T extends z.ZodType>(
  operation: ProviderOperation,
  schema: T,
  value: unknown,
): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ProviderRequestError(
    operation,
    result.error.issues.map((i) => ({ field: i.path.join(".") || "(body)", message: i.message })),
  );
}
