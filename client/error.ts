/**
 * The client's one error class, and how supabase-js's failures become it. supabase-js's
 * FunctionsHttpError and FunctionsRelayError carry the answer as `context` (a Response); its
 * FunctionsFetchError means no answer at all. They are told apart by shape, not by class, so the
 * client imports nothing of supabase-js at run time.
 */
import type { components } from "./openapi.ts";
import { retryAfterMs } from "./retry.ts";

type ApiError = components["schemas"]["Error"]["error"];
/** Every error code the API answers with (each route's own: `ErrorCodeOf<"transmit">`). */
export type ErrorCode = ApiError["code"];
/** One entry of an error's `details`: which field, and what is wrong with it. */
export type ErrorDetail = NonNullable<ApiError["details"]>[number];

/**
 * The client's own codes: `network_error` (status 0) when no answer arrived, `unexpected_response`
 * when the answer was not the API's, `download_failed` when storage refused the file, `not_accepted`
 * when an XML is asked of a document the authority has not accepted (its `xml_path` is null).
 */
export type ClientErrorCode = "network_error" | "unexpected_response" | "download_failed" | "not_accepted";
export type EinvoicingErrorCode = ErrorCode | ClientErrorCode;

/** The answer's headers the client reads (the service exposes them to other origins too). */
export const REQUEST_ID_HEADER = "x-request-id";
export const IDEMPOTENT_REPLAYED_HEADER = "Idempotent-Replayed";

/** What the client reads of a Response; told by shape, so any fetch's Response will do. */
export interface ResponseLike {
  status: number;
  headers: { get(name: string): string | null };
  json(): Promise<unknown>;
}

/**
 * Every failure: the API's error (`code`, `status`, `details`, `request_id` as the service sent
 * them), or one of the client's own codes. `C` is the codes it can carry: `isEinvoicingError(error,
 * "transmit")` narrows it to what that route answers.
 */
export class EinvoicingError<C extends EinvoicingErrorCode = EinvoicingErrorCode> extends Error {
  override readonly name = "EinvoicingError";
  readonly code: C;
  readonly status: number;
  readonly details: ErrorDetail[];
  readonly request_id: string | null;
  /** Seconds to wait before calling again, when the service said (429, 503). */
  readonly retry_after: number | null;
  /** The route called (`credit-notes/reissue`), or null before one was. */
  readonly route: string | null;
  /** The call's Idempotency-Key: call again with it later and a call already done is not redone. */
  readonly idempotency_key: string | null;
  /** True when this is the kept answer to an earlier call with the same key (a final 4xx). */
  readonly replayed: boolean;

  constructor(init: {
    code: C;
    status: number;
    message: string;
    details?: ErrorDetail[];
    request_id?: string | null;
    retry_after?: number | null;
    route?: string | null;
    idempotency_key?: string | null;
    replayed?: boolean;
    cause?: unknown;
  }) {
    super(init.message, { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    this.details = init.details ?? [];
    this.request_id = init.request_id ?? null;
    this.retry_after = init.retry_after ?? null;
    this.route = init.route ?? null;
    this.idempotency_key = init.idempotency_key ?? null;
    this.replayed = init.replayed ?? false;
  }
}

/** Which call a failure belongs to. */
export interface CallIdentity {
  route: string;
  idempotency_key: string;
}

function isResponseLike(value: unknown): value is ResponseLike {
  const candidate = value as Partial<ResponseLike> | null;
  return (
    typeof candidate?.status === "number" &&
    typeof candidate.headers?.get === "function" &&
    typeof candidate.json === "function"
  );
}

/** No answer came: supabase-js's FunctionsFetchError, or an invoke that threw. */
export function networkError(error: unknown, call: CallIdentity): EinvoicingError {
  const message = (error as { message?: unknown } | null)?.message;
  return new EinvoicingError({
    code: "network_error",
    status: 0,
    message: typeof message === "string" ? message : "The service could not be reached.",
    ...call,
    cause: error,
  });
}

/** supabase-js's `error` of an invoke as an EinvoicingError. */
export async function toEinvoicingError(error: unknown, call: CallIdentity): Promise<EinvoicingError> {
  const context = (error as { context?: unknown } | null)?.context;
  if (!isResponseLike(context)) return networkError(error, call);
  const waitMs = retryAfterMs(context.headers.get("retry-after"));
  const answer = {
    status: context.status,
    request_id: context.headers.get(REQUEST_ID_HEADER),
    retry_after: waitMs === null ? null : Math.ceil(waitMs / 1000),
    replayed: context.headers.get(IDEMPOTENT_REPLAYED_HEADER) === "true",
    ...call,
    cause: error,
  };
  const body = (await context.json().catch(() => null)) as {
    error?: { code?: unknown; message?: unknown; details?: unknown; request_id?: unknown };
  } | null;
  const apiError = body?.error;
  if (!apiError || typeof apiError.code !== "string" || typeof apiError.message !== "string") {
    return new EinvoicingError({
      ...answer,
      code: "unexpected_response",
      message: `The service answered ${context.status} without an error body.`,
    });
  }
  return new EinvoicingError({
    ...answer,
    code: apiError.code as ErrorCode,
    message: apiError.message,
    details: Array.isArray(apiError.details) ? (apiError.details as ErrorDetail[]) : [],
    request_id: typeof apiError.request_id === "string" ? apiError.request_id : answer.request_id,
  });
}
