/**
 * The request pipeline every route shares, in the order the app installs it: request id and access
 * log, CORS, method guard, `apikey`, bearer token, JSON body. Each step answers with the one error shape.
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { InvalidTokenError } from "../auth/jwt.ts";
import { corsOptions } from "../cors.ts";
import { readCapped } from "../kernel/bytes.ts";
import { ApiError, invalidBodyMessage } from "../kernel/errors.ts";
import type { AppDeps, AppEnv, Mounting } from "./context.ts";
import { fail } from "./errors.ts";

type Middleware = MiddlewareHandler<AppEnv>;

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** Assigns the request id (the caller's `x-request-id` when sane), a logger, and logs the outcome. */
export function requestContext(deps: AppDeps, { mountedAt = "" }: Mounting = {}): Middleware {
  return async (c, next) => {
    c.set("mountedAt", mountedAt);
    const incoming = c.req.header("x-request-id");
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    const log = deps.logger.child({ request_id: requestId });
    c.set("deps", deps);
    c.set("requestId", requestId);
    c.set("log", log);
    // prepared before the route runs, so that Hono puts it on whatever response is made (set on the
    // response afterwards, it would make Hono copy the response)
    c.header("x-request-id", requestId);
    const started = performance.now();
    await next();
    // a Response the route built itself did not get the prepared headers
    if (!c.res.headers.has("x-request-id")) c.header("x-request-id", requestId);
    log.info("request", {
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
  };
}

/**
 * The app's CORS middleware: Hono's `cors()` answers a preflight; on any other request the same
 * response headers (allowed origin, exposed headers, `Vary: Origin` for a list of origins) are
 * prepared before the route runs, and Hono puts them on the response the route makes (or they are
 * set afterwards, on a Response the route built itself).
 *
 * Hono's `cors()` sets them on `c.res` before the route runs, which makes a placeholder Response
 * that Hono then copies into the route's: 17 KB allocated per request, a sixth of a cached
 * /representation, in a server whose load tail is its young-generation collections.
 */
export function appCors(origins: string[] | "*"): Middleware {
  const options = corsOptions(origins);
  const preflight = cors(options);
  const exposed = options.exposeHeaders.join(",");
  return async (c, next) => {
    if (c.req.method === "OPTIONS") return preflight(c, next);
    const origin = c.req.header("origin") ?? "";
    const allowed = origins === "*" ? "*" : origins.includes(origin) ? origin : null;
    const prepare = () => {
      if (allowed) c.header("Access-Control-Allow-Origin", allowed);
      c.header("Access-Control-Expose-Headers", exposed);
      if (origins !== "*") c.header("Vary", "Origin", { append: true });
    };
    prepare();
    await next();
    // a Response the route built itself did not get the prepared headers
    if (!c.res.headers.has("Access-Control-Expose-Headers")) prepare();
  };
}

/** Only POST is accepted (CORS preflights are answered before this runs). */
export const postOnly: Middleware = async (c, next) => {
  if (c.req.method !== "POST") {
    fail("method_not_allowed", `Method ${c.req.method} is not allowed; use POST.`, {
      headers: { Allow: "POST" },
    });
  }
  await next();
};

/** The `apikey` header must be one of the deployment's publishable keys. */
export const requireApiKey: Middleware = async (c, next) => {
  const apiKey = c.req.header("apikey");
  if (!apiKey) fail("unauthenticated", "Missing apikey header.");
  if (!c.get("deps").config.apiKeys.some((key) => timingSafeEqual(key, apiKey))) {
    fail("unauthenticated", "Invalid apikey header.");
  }
  await next();
};

/** Verifies `Authorization: Bearer <user session token>` and records the caller. */
export const authenticate: Middleware = async (c, next) => {
  const header = c.req.header("authorization") ?? "";
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match?.[1])
    fail("unauthenticated", "Missing bearer token: send Authorization: Bearer <access token>.");
  const accessToken = match[1];
  try {
    const claims = await c.get("deps").verifyToken(accessToken);
    c.set("caller", { accessToken, claims });
  } catch (error) {
    if (error instanceof InvalidTokenError) fail("unauthenticated", `Unauthenticated: ${error.message}.`);
    throw new ApiError("service_unavailable", "Could not verify the token right now. Try again shortly.", {
      cause: error,
    });
  }
  await next();
};

/** Requires a JSON object body within the size limit and stores it for the route. */
export const jsonBody: Middleware = async (c, next) => {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    fail("unsupported_media_type", "Send the body as JSON with Content-Type: application/json.");
  }
  const limit = c.get("deps").config.http.maxBodyBytes;
  const text = await readLimited(c.req.raw, limit);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    fail("invalid_json", "The request body is not valid JSON.");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    fail("validation_failed", "The request body must be a JSON object.", {
      details: [{ field: "(body)", message: "expected an object" }],
    });
  }
  const problem = unstorable(body);
  if (problem) fail("validation_failed", invalidBodyMessage([problem]), { details: [problem] });
  c.set("body", body as Record<string, unknown>);
  await next();
};

/** How deep a body may nest: the deepest route (`settings` of /integrations/save) needs about ten. */
export const MAX_BODY_DEPTH = 32;
/** NUL, or half of a surrogate pair: text PostgreSQL cannot store (or would store altered). */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const unstorableText = (text: string) => text.includes("\u0000") || UNPAIRED_SURROGATE.test(text);

/**
 * The first thing in the body no route could accept, as a detail: nesting past MAX_BODY_DEPTH, or a
 * string (value or key) with NUL or an unpaired surrogate. Walked without recursion.
 */
function unstorable(body: object): { field: string; message: string } | undefined {
  const stack: [value: unknown, path: string, depth: number][] = [[body, "", 0]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [value, path, depth] = item;
    const field = path || "(body)";
    if (typeof value === "string") {
      if (unstorableText(value)) return { field, message: "contains NUL or an unpaired surrogate" };
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (depth >= MAX_BODY_DEPTH) return { field, message: `nested deeper than ${MAX_BODY_DEPTH} levels` };
    for (const [key, child] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (unstorableText(key)) return { field: at, message: "a key contains NUL or an unpaired surrogate" };
      stack.push([child, at, depth + 1]);
    }
  }
  return undefined;
}

async function readLimited(request: Request, limit: number): Promise<string> {
  const tooLarge = () => fail("payload_too_large", `The request body exceeds ${limit} bytes.`);
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (declared > limit) tooLarge();
  const { bytes, truncated } = await readCapped(request.body, limit);
  if (truncated) tooLarge();
  return new TextDecoder().decode(bytes);
}

/** Compares two strings in time that depends only on their lengths. */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++)
    diff |= (x[i % x.length] ?? 0) ^ (y[i % y.length] ?? 0);
  return diff === 0;
}
