import type { Context } from "hono";
import { ApiError, type ErrorCode, toApiError } from "../kernel/errors.ts";
import type { AppEnv } from "./context.ts";

/** The one error body: `{ error: { code, message, provider_message?, details?, request_id } }`. */
export function errorResponse(c: Context<AppEnv>, error: ApiError): Response {
  const requestId = c.get("requestId");
  const body = {
    error: {
      code: error.code,
      message: error.message,
      ...(error.providerMessage ? { provider_message: error.providerMessage } : {}),
      ...(error.details ? { details: error.details } : {}),
      request_id: requestId,
    },
  };
  for (const [name, value] of Object.entries(error.headers ?? {})) c.header(name, value);
  return c.json(body, error.status);
}

export function fail(
  code: ErrorCode,
  message: string,
  options?: ConstructorParameters<typeof ApiError>[2],
): never {
  throw new ApiError(code, message, options);
}

/** Hono's `onError`: answers with the error shape; 5xx causes are logged, never shown. */
export function handleError(error: unknown, c: Context<AppEnv>): Response {
  const apiError = toApiError(error);
  if (apiError.status >= 500) {
    c.get("log")?.error("request failed", { code: apiError.code, error: apiError.cause ?? apiError });
  }
  return errorResponse(c, apiError);
}

export function handleNotFound(c: Context<AppEnv>): Response {
  return errorResponse(c, new ApiError("not_found", `No route ${new URL(c.req.url).pathname}.`));
}
