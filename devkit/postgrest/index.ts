/**
 * A stand-in for Supabase's REST API (PostgREST v14.17, commit 064e5fea7bde63b0424fab53a0109c6f6016e95c,
 * behind Supabase's API gateway) on the real SQL: `npm start` serves it at `/rest/v1`
 * (scripts/local/serve.ts), and the tests hand its `fetch` to supabase-js. One implementation for
 * both, and for tables as for functions:
 *
 * - `/rest/v1/<table>`: ./tables.ts (reads with embeds, filters, order, ranges and counts; writes
 *   with `Prefer: return=…`, upserts; single objects), planned by ./plan.ts, ./mutate.ts, written
 *   by ./sql.ts over the schema cache (./schema-cache.ts);
 * - `/rest/v1/rpc/<fn>`: ./rpc.ts;
 * - every request: the gateway's `apikey` check, the caller's token (src/PostgREST/Auth.hs: a bad one
 *   is PGRST301, an expired one PGRST303, src/PostgREST/Error.hs `JwtError`), its role and claims,
 *   and a transaction set up as PostgREST sets it (./session.ts); errors in PostgREST's shape and
 *   statuses (./errors.ts); CORS as src/PostgREST/Cors.hs answers it.
 *
 * What it does not do, and how it says so, is in docs/postgrest-stand-in.md. It bounds what a
 * caller controls: the URL (16 KiB), the body (2 MiB), embeds, filters and `and`/`or` depth
 * (./plan.ts, ./query-params.ts), and every level's rows to Supabase's `max-rows` (1000).
 */
import type { SqlClient } from "../../shared/db/sql-client.ts";
import { readCapped } from "../../shared/kernel/bytes.ts";
import type { FetchLike } from "../../shared/providers/tax/client.ts";
import { errorResponse, errors, PgrstError } from "./errors.ts";
import { createRpc } from "./rpc.ts";
import { loadSchemaCache, type SchemaCache } from "./schema-cache.ts";
import { type Caller, type Role, SUPABASE_STATEMENT_TIMEOUTS } from "./session.ts";
import { tableRequest } from "./tables.ts";

export { pgErrorStatus } from "./errors.ts";
export { SUPABASE_STATEMENT_TIMEOUTS } from "./session.ts";

/** Supabase's default `max_rows` (supabase/config.toml `[api] max_rows = 1000`; PostgREST `db-max-rows`). */
export const SUPABASE_MAX_ROWS = 1000;
export const MAX_URL_LENGTH = 16 * 1024;
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface PostgrestOptions {
  client: SqlClient;
  /** The project URL the supabase-js clients are created with. */
  url: string;
  publishableKey: string;
  /** The service key (service_role); none locally, where nothing may act as the service. */
  secretKey?: string;
  /** Verifies a user's token and returns its claims (the app's verifier is fine: same keys). */
  verify(token: string): Promise<Record<string, unknown>>;
  /** Overrides of SUPABASE_STATEMENT_TIMEOUTS, so a test can reach a timeout quickly. */
  statementTimeouts?: Partial<Record<Role | "authenticator", string>>;
  maxRows?: number;
}

export interface Postgrest {
  /** Answers one request whose path starts with `/rest/v1/`. */
  handle(request: Request): Promise<Response>;
  /** The same, as the `fetch` a supabase-js client is given (requests to `options.url` only). */
  fetch: FetchLike;
}

export function createPostgrest(options: PostgrestOptions): Postgrest {
  const timeouts = { ...SUPABASE_STATEMENT_TIMEOUTS, ...options.statementTimeouts };
  const rpc = createRpc({ client: options.client, timeouts });
  let cache: Promise<SchemaCache & { timezones: Set<string> }> | undefined;
  const tables = {
    client: options.client,
    maxRows: options.maxRows ?? SUPABASE_MAX_ROWS,
    timeouts,
    cache: () => {
      cache ??= (async () => {
        const loaded = await loadSchemaCache(options.client);
        const zones = await options.client.transaction((s) =>
          s.query<{ name: string }>("select name from pg_catalog.pg_timezone_names"),
        );
        return { ...loaded, timezones: new Set(zones.map((z) => z.name)) };
      })();
      cache.catch(() => {
        cache = undefined;
      });
      return cache;
    },
  };

  async function answer(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname.length + url.search.length > MAX_URL_LENGTH) {
      return gatewayAnswer(414, "Request-URI Too Large");
    }
    const apikey = request.headers.get("apikey");
    if (
      apikey !== options.publishableKey &&
      (options.secretKey === undefined || apikey !== options.secretKey)
    ) {
      return gatewayAnswer(401, "Invalid API key");
    }
    try {
      const caller = await authenticate(request);
      const segments = url.pathname
        .replace(/^\/rest\/v1\/?/, "")
        .split("/")
        .filter((s) => s !== "")
        .map((s) => decodeURIComponent(s));
      const body = await readBody(request);
      if (body === undefined) return gatewayAnswer(413, "Request Entity Too Large");
      if (segments.length === 1)
        return await tableRequest(tables, request, segments[0] as string, caller, body);
      if (segments.length === 2 && segments[0] === "rpc")
        return await rpc(request, segments[1] as string, caller, body);
      if (segments.length === 0)
        throw errors.notImplemented("the stand-in does not serve the OpenAPI description");
      throw errors.invalidResourcePath();
    } catch (error) {
      if (error instanceof PgrstError) return errorResponse(error);
      if (error instanceof URIError) return errorResponse(errors.invalidResourcePath());
      throw error;
    }
  }

  /** Auth.hs: no token is the anon role; the service key is service_role; else the token's claims. */
  async function authenticate(request: Request): Promise<Caller> {
    const bearer = /^Bearer (.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
    if (options.secretKey !== undefined && bearer === options.secretKey) {
      return { role: "service_role", claims: { role: "service_role" } };
    }
    if (!bearer || bearer === options.publishableKey) return { role: "anon", claims: { role: "anon" } };
    try {
      const claims = await options.verify(bearer);
      return { role: String(claims.role ?? "authenticated") as Role, claims };
    } catch (error) {
      throw jwtError(bearer, error);
    }
  }

  async function handle(request: Request): Promise<Response> {
    // Cors.hs: only when the request has an Origin; a preflight is answered here
    const origin = request.headers.get("origin");
    if (
      origin !== null &&
      request.method === "OPTIONS" &&
      request.headers.has("access-control-request-method")
    ) {
      const requested = request.headers.get("access-control-request-headers");
      return new Response(null, {
        status: 200,
        headers: {
          "access-control-allow-origin": "*",
          "access-control-allow-methods": "GET, POST, PATCH, PUT, DELETE, OPTIONS",
          "access-control-allow-headers": [
            "Authorization",
            ...(requested ? requested.split(",").map((h) => h.trim()) : []),
          ].join(", "),
          "access-control-max-age": String(60 * 60 * 24),
        },
      });
    }
    const answered = await answer(request);
    // Warp (PostgREST's HTTP server) sends no body to HEAD, an error's included: its `sendResponse`
    // turns every response to a HEAD into `RspNoBody` (Network/Wai/Handler/Warp/Response.hs, `isHead`)
    const response =
      request.method === "HEAD" && answered.body !== null
        ? new Response(null, { status: answered.status, headers: answered.headers })
        : answered;
    if (origin === null) return response;
    const headers = new Headers(response.headers);
    headers.set("access-control-allow-origin", "*");
    headers.set("access-control-expose-headers", EXPOSED_HEADERS);
    return new Response(response.body, { status: response.status, headers });
  }

  return {
    handle,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      if (!request.url.startsWith(options.url)) {
        throw new Error(`postgrest stand-in: unexpected request ${request.method} ${request.url}`);
      }
      return handle(request);
    },
  };
}

/** The stand-in as the `fetch` a supabase-js client is given (tests). */
export function createPostgrestFetch(options: PostgrestOptions): FetchLike {
  return createPostgrest(options).fetch;
}

const EXPOSED_HEADERS =
  "Content-Encoding, Content-Location, Content-Range, Content-Type, Date, Location, Server, Transfer-Encoding, Range-Unit";

/** What Supabase's gateway answers by itself (no PostgREST code): `{ message }`. */
function gatewayAnswer(status: number, message: string): Response {
  return new Response(JSON.stringify({ message }), {
    status,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}

/** The body, or undefined past MAX_BODY_BYTES (read no further than that). */
async function readBody(request: Request): Promise<string | undefined> {
  if (Number(request.headers.get("content-length") ?? "0") > MAX_BODY_BYTES) return undefined;
  const { bytes, truncated } = await readCapped(request.body, MAX_BODY_BYTES);
  return truncated ? undefined : new TextDecoder().decode(bytes);
}

/**
 * Error.hs `JwtError` as Auth/Jwt.hs raises it: a token that is not three parts, or whose signature
 * or key fails, is 401 PGRST301; an expired one (or one for another audience) 401 PGRST303; each
 * with `WWW-Authenticate: Bearer error="invalid_token", error_description="…"`.
 */
function jwtError(token: string, error: unknown): PgrstError {
  const parts = token.split(".").length;
  const reason = error instanceof Error ? error.message : "";
  const [code, message] =
    parts !== 3
      ? ["PGRST301", `Expected 3 parts in JWT; got ${parts}`]
      : /expired/i.test(reason)
        ? ["PGRST303", "JWT expired"]
        : /audience/i.test(reason)
          ? ["PGRST303", "JWT not in audience"]
          : ["PGRST301", "JWT cryptographic operation failed"];
  return new PgrstError(
    401,
    { code, message, details: null, hint: null },
    { "WWW-Authenticate": `Bearer error="invalid_token", error_description=${JSON.stringify(message)}` },
  );
}
