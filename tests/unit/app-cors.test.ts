/**
 * The app's CORS middleware answers exactly as Hono's `cors()` with the same policy: the same CORS
 * headers on preflights, answers and errors, for any origin policy and request origin.
 */
import { Hono } from "hono";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it } from "vitest";
import { corsOptions } from "../../shared/cors.ts";
import type { AppDeps, AppEnv } from "../../shared/http/context.ts";
import { appCors, requestContext } from "../../shared/http/middleware.ts";
import { createLogger } from "../../shared/kernel/log.ts";

function appWith(middleware: ReturnType<typeof cors>) {
  const app = new Hono();
  app.use(middleware);
  app.post("/ok", (c) => c.json({ ok: true }));
  app.post("/raw", () => new Response("built by the route"));
  app.post("/fails", () => {
    throw new HTTPException(401, { message: "no" });
  });
  app.onError((error, c) =>
    c.json({ error: String(error) }, error instanceof HTTPException ? error.status : 500),
  );
  return app;
}

const corsHeaders = (response: Response) =>
  Object.fromEntries(
    [...response.headers].filter(([name]) => name.startsWith("access-control-") || name === "vary"),
  );

describe("appCors", () => {
  const policies: (string[] | "*")[] = [
    "*",
    ["https://app.example"],
    ["https://a.example", "https://b.example"],
  ];
  const origins = [undefined, "https://app.example", "https://b.example", "https://evil.example"];
  const requests = (origin: string | undefined) => [
    { method: "POST", path: "/ok", headers: { ...(origin ? { origin } : {}) } },
    { method: "POST", path: "/fails", headers: { ...(origin ? { origin } : {}) } },
    { method: "POST", path: "/raw", headers: { ...(origin ? { origin } : {}) } },
    {
      method: "OPTIONS",
      path: "/ok",
      headers: {
        ...(origin ? { origin } : {}),
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    },
  ];

  for (const policy of policies) {
    for (const origin of origins) {
      it(`with origins ${JSON.stringify(policy)} and request origin ${origin ?? "(none)"}`, async () => {
        const hono = appWith(cors(corsOptions(policy)));
        const ours = appWith(appCors(policy));
        for (const { method, path, headers } of requests(origin)) {
          const expected = await hono.request(path, { method, headers });
          const actual = await ours.request(path, { method, headers });
          expect(actual.status, `${method} ${path}`).toBe(expected.status);
          expect(corsHeaders(actual), `${method} ${path}`).toEqual(corsHeaders(expected));
        }
      });
    }
  }
});

describe("requestContext", () => {
  it("puts x-request-id on every answer, a Response the route built itself included", async () => {
    const deps = { logger: createLogger("silent") } as unknown as AppDeps;
    const app = new Hono<AppEnv>();
    app.use(requestContext(deps));
    app.post("/ok", (c) => c.json({ ok: true }));
    app.post("/raw", () => new Response("built by the route"));
    app.post("/fails", () => {
      throw new HTTPException(401, { message: "no" });
    });
    app.onError((_error, c) => c.json({ error: "no" }, 401));
    for (const path of ["/ok", "/raw", "/fails", "/missing"]) {
      const response = await app.request(path, {
        method: "POST",
        headers: { "x-request-id": "req-12345678" },
      });
      expect(response.headers.get("x-request-id"), path).toBe("req-12345678");
    }
  });
});
