/**
 * What the local server answers by itself (outside the functions): the API's one error shape with a
 * request id, and the CORS headers a page of another origin needs, as Supabase's gateway sends them.
 */

/** Methods the Fetch standard forbids in a `Request`: they cannot be handed on to an app. */
export const UNFORWARDABLE_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

/** Headers supabase-js sends, which a browser asks leave for in its preflight. */
const ALLOWED_HEADERS = "authorization, apikey, content-type, x-client-info, x-upsert, range, cache-control";
const EXPOSED_HEADERS = "x-request-id, allow, content-length, content-type, content-disposition, etag";

export const CORS_HEADERS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": EXPOSED_HEADERS,
};

/** The answer to a browser's CORS preflight for a path that takes `methods`. */
export function preflight(methods: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...CORS_HEADERS,
      "access-control-allow-methods": methods,
      "access-control-allow-headers": ALLOWED_HEADERS,
      "access-control-max-age": "600",
    },
  });
}

/** `{ error: { code, message, request_id } }` with `x-request-id`, as the functions answer. */
export function localError(
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  const requestId = crypto.randomUUID();
  return Response.json(
    { error: { code, message, request_id: requestId } },
    { status, headers: { ...CORS_HEADERS, ...headers, "x-request-id": requestId } },
  );
}

/** 405 naming what the path takes. */
export function methodNotAllowed(method: string, allow: string): Response {
  return localError(405, "method_not_allowed", `Method ${method} is not allowed here; use ${allow}.`, {
    allow,
  });
}
