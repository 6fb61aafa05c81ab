/**
 * The local server's front door, laid out like `supabase start`: functions under /functions/v1 (the
 * prefix stripped, as Supabase does), the tables and database functions under /rest/v1 (the
 * PostgREST stand-in, devkit/postgrest/), the JWKS under /auth/v1, downloads under /storage/v1, the
 * sandboxes under /sandbox, the API reference under /docs, and the local server's own
 * /local/v1/demo-invoice (npm run demo:invoice). Whatever the method or path, the answer
 * is a JSON one with `x-request-id` — never a bare 500, even for a method a `Request` cannot carry.
 */
import { localError, methodNotAllowed, preflight, UNFORWARDABLE_METHODS } from "./answers.ts";
import { DEMO_INVOICE_PATH } from "./demo-invoice-route.ts";
import { isDocsPath } from "./docs.ts";
import { isStorageDownload } from "./storage-download.ts";

type Handler = (request: Request) => Response | Promise<Response>;

/** Where functions live, as under `supabase start`. */
export const FUNCTIONS_PREFIX = "/functions/v1";
const FUNCTION_PATH = new RegExp(`^${FUNCTIONS_PREFIX}/([^/]+)(?:/|$)`);

export interface LocalRoutes {
  /** Function name → its app's fetch; each app is mounted at `/functions/v1` (sees `/functions/v1/<name>/…`). */
  functions: Record<string, Handler>;
  jwks: () => unknown;
  storage: Handler;
  /** `/rest/v1/…`: tables and database functions, as PostgREST answers them. */
  rest: Handler;
  sandboxes: Handler;
  docs: Handler;
  /** POST: a pending demo invoice, created as the caller (./demo-invoice-route.ts). */
  demoInvoice: Handler;
}

export function createLocalRouter(routes: LocalRoutes): (request: Request) => Promise<Response> {
  const route = (request: Request): Response | Promise<Response> => {
    const url = new URL(request.url);
    const functionName = FUNCTION_PATH.exec(url.pathname)?.[1];
    const app = functionName === undefined ? undefined : routes.functions[functionName];
    // A `Request` cannot even be built with these, so they are never handed on (Supabase refuses them too).
    if (UNFORWARDABLE_METHODS.has(request.method) && (app || url.pathname.startsWith("/sandbox/"))) {
      return methodNotAllowed(request.method, app ? "POST" : "GET, POST");
    }
    // handed on as it came (each app is mounted at /functions/v1): copying a request to rewrite its
    // URL cost a quarter of the cached route's throughput under load
    if (app) return app(request);
    if (url.pathname === "/auth/v1/.well-known/jwks.json") {
      if (request.method === "OPTIONS") return preflight("GET, OPTIONS");
      return request.method === "GET"
        ? Response.json(routes.jwks())
        : methodNotAllowed(request.method, "GET");
    }
    if (isStorageDownload(url)) return routes.storage(request);
    if (url.pathname === "/rest/v1" || url.pathname.startsWith("/rest/v1/")) return routes.rest(request);
    if (url.pathname.startsWith("/sandbox/")) return routes.sandboxes(request);
    if (isDocsPath(url)) return routes.docs(request);
    if (url.pathname === DEMO_INVOICE_PATH) return routes.demoInvoice(request);
    return localError(
      404,
      "not_found",
      `Nothing at ${url.pathname}: functions live under /functions/v1, the tables under /rest/v1, the API reference at /docs.`,
    );
  };
  return async (request) => {
    try {
      const response = await route(request);
      if (response.headers.has("x-request-id")) return response;
      // the JWKS, the docs, the sandboxes and preflights: tagged here, as every answer is
      const tagged = new Response(response.body, response);
      tagged.headers.set("x-request-id", crypto.randomUUID());
      return tagged;
    } catch (error) {
      console.error("local server: request failed", error);
      return localError(500, "internal_error", "An unexpected error occurred.");
    }
  };
}
