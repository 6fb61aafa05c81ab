/**
 * What answers while the app is not loaded yet. A cold instance's first request is usually a
 * browser's CORS preflight, which needs nothing but the CORS policy: the front answers it with
 * Hono's CORS middleware alone (on `hono/tiny`). The first other request loads the app (config, auth, database,
 * routes) and waits for it; once it is loaded every request, preflights included, goes to it. If
 * the app cannot be loaded (a bad configuration), the cause is logged and each request is answered
 * 500 in the error shape.
 *
 * The app is not loaded in the background after a preflight: a timer pending while the preflight's
 * answer leaves delayed that answer by about 5 ms on Deno (`npm run bench`), and the POST that
 * follows a preflight comes one round trip later, too soon to gain much.
 */

import { cors } from "hono/cors";
import { Hono } from "hono/tiny";
import { corsOptions, parseCorsOrigins } from "../../shared/cors.ts";

type Handler = (request: Request) => Response | Promise<Response>;

export function createFront(
  env: Record<string, string | undefined>,
  load: () => Promise<Handler>,
  log: (line: string) => void = (line) => console.error(line),
): Handler {
  let app: Handler | undefined;
  let loading: Promise<Handler> | undefined;
  const start = () =>
    (loading ??= load().then(
      (handler) => (app = handler),
      (error: unknown) => {
        log(
          JSON.stringify({
            time: new Date().toISOString(),
            level: "error",
            msg: "the function could not start",
            error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
          }),
        );
        throw error;
      },
    ));
  const preflight = new Hono().use(cors(corsOptions(parseCorsOrigins(env.EINV_CORS_ORIGINS))));

  return async (request) => {
    if (app) return app(request);
    if (request.method === "OPTIONS" && !loading) {
      const response = await preflight.fetch(request);
      response.headers.set("x-request-id", crypto.randomUUID());
      return response;
    }
    try {
      return await (await start())(request);
    } catch {
      return unavailable();
    }
  };
}

function unavailable(): Response {
  const requestId = crypto.randomUUID();
  const body = {
    error: {
      code: "internal_error",
      message: "The service is not configured correctly. Try again later.",
      request_id: requestId,
    },
  };
  return Response.json(body, { status: 500, headers: { "x-request-id": requestId } });
}
