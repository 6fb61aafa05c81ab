/**
 * One realistic error answer per code, for the API reference: what a caller reads when that code
 * comes back (the messages are the service's own wording). docs/openapi.json shows, under each
 * status of each route, exactly the codes that status carries there, each with its example.
 */
import type { ErrorCode, ErrorDetail } from "../kernel/errors.ts";

export const ERROR_EXAMPLES: Record<
  ErrorCode,
  { summary: string; message: string; details?: ErrorDetail[] }
> = {
  invalid_json: { summary: "The body is not JSON", message: "The request body is not valid JSON." },
  validation_failed: {
    summary: "A field is missing, misspelled or out of bounds",
    message: "The request body is not valid: org_id: required (and 1 more in details).",
    details: [
      { field: "org_id", message: "required" },
      { field: "colour", message: "unknown field" },
    ],
  },
  unauthenticated: {
    summary: "No valid session",
    message: "token expired",
  },
  forbidden: {
    summary: "Not a member, or a role the route does not allow",
    message: "This operation needs the role admin or operador; you are lector.",
  },
  not_found: {
    summary: "Not in this organization",
    message: "The document was not found in this organization.",
  },
  method_not_allowed: { summary: "Not a POST", message: "Use POST." },
  invalid_state: {
    summary: "The document's state does not allow it",
    message: "This invoice was never sent; transmit it first.",
  },
  idempotency_conflict: {
    summary: "The Idempotency-Key was used with another body, or is in flight",
    message: "This Idempotency-Key was used with another request body.",
  },
  payload_too_large: { summary: "Body over the limit", message: "The request body exceeds 65536 bytes." },
  unsupported_media_type: {
    summary: "Not JSON",
    message: "Send the body as JSON with Content-Type: application/json.",
  },
  credential_rejected: {
    summary: "The provider key does not authenticate",
    message: "The provider refused the company's API key for adapter-tax (uat).",
  },
  business_rule: {
    summary: "A rule refuses it; nothing was done",
    message: "Every line of this invoice has already been credited.",
  },
  rate_limited: {
    summary: "Too many requests; retry after Retry-After",
    message: "The provider is rate limiting requests; retry after 30 seconds.",
  },
  internal_error: {
    summary: "Unexpected; the request id finds it in the logs",
    message: "An unexpected error occurred.",
  },
  provider_error: {
    summary: "The provider failed; nothing changed",
    message: "The provider answered 500; nothing was changed. Try again later.",
  },
  service_unavailable: {
    summary: "A dependency could not be reached",
    message: "Could not verify the token right now. Try again shortly.",
  },
  database_unavailable: {
    summary: "The database is busy or restarting",
    message: "The database is temporarily unavailable. Try again in a few seconds.",
  },
  provider_timeout: {
    summary: "The provider did not answer in time; nothing changed",
    message: "The provider did not answer within 10 seconds; nothing was changed.",
  },
};
