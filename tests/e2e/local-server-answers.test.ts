/**
 * The local server's front door (scripts/local/router.ts), over real HTTP: whatever the method and
 * path — TRACE included, which a fetch `Request` cannot even carry — the answer is JSON with
 * `x-request-id`, and storage downloads answer browsers' preflights like Supabase Storage.
 */
import { request as httpRequest } from "node:http";
import { describe, expect, inject, it } from "vitest";
import { useLocalServer } from "../support/local-server.ts";

const target = inject("database");
const server = useLocalServer(target);

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** node:http, which sends any method (fetch refuses TRACE). */
function send(method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.get().baseUrl}${path}`, { method, headers }, (res) => {
      let body = "";
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

const errorShape = (answer: Answer) => {
  const body = JSON.parse(answer.body);
  expect(body.error.request_id).toBe(answer.headers["x-request-id"]);
  return body.error.code;
};

describe.skipIf(target.kind !== "postgres")("every method on every path of the local server", () => {
  it.each([
    ["TRACE", "/functions/v1/einvoicing/transmit", 405, "POST"],
    ["TRACK", "/functions/v1/einvoicing/credit-notes", 405, "POST"],
    ["TRACE", "/functions/v1/reconcile", 405, "POST"],
    ["PUT", "/functions/v1/einvoicing/transmit", 405, "POST"],
    ["DELETE", "/functions/v1/einvoicing/integrations/save", 405, "POST"],
    ["GET", "/functions/v1/einvoicing/transmit", 405, "POST"],
    ["TRACE", "/docs", 405, "GET"],
    ["POST", "/docs", 405, "GET"],
    ["PATCH", "/auth/v1/.well-known/jwks.json", 405, "GET"],
    ["TRACE", "/sandbox/adapter-tax/documents", 405, "GET, POST"],
  ])("%s %s answers %i in the error shape, with Allow: %s", async (method, path, status, allow) => {
    const answer = await send(method, path);
    expect(answer.status).toBe(status);
    expect(answer.headers.allow).toBe(allow);
    expect(errorShape(answer)).toBe("method_not_allowed");
  });

  it.each([
    ["GET", "/"],
    ["TRACE", "/nothing/here"],
    ["POST", "/functions/v1/no-such-function"],
    ["DELETE", "/storage/v1/bucket/service-documentos"],
  ])("%s %s answers 404 in the error shape", async (method, path) => {
    const answer = await send(method, path);
    expect(answer.status).toBe(404);
    expect(errorShape(answer)).toBe("not_found");
  });

  it("answers a storage download's preflight, and its refusals, with CORS headers and a request id", async () => {
    const path = "/storage/v1/object/authenticated/service-documentos/some/invoice.pdf";
    const preflight = await send("OPTIONS", path, {
      origin: "http://localhost:5173",
      "access-control-request-method": "GET",
      "access-control-request-headers": "authorization, apikey, x-client-info",
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers["access-control-allow-origin"]).toBe("*");
    expect(preflight.headers["access-control-allow-methods"]).toContain("GET");
    expect(preflight.headers["access-control-allow-headers"]).toMatch(/authorization.*apikey.*x-client-info/);

    const refused = await send("GET", path, { origin: "http://localhost:5173" });
    expect(refused.status).toBe(400); // no token, as Storage answers
    expect(refused.headers["access-control-allow-origin"]).toBe("*");
    expect(refused.headers["x-request-id"]).toEqual(expect.any(String));
    expect(JSON.parse(refused.body)).toMatchObject({ statusCode: "400", error: "InvalidJWT" });

    const upload = await send("PUT", path);
    expect({ status: upload.status, allow: upload.headers.allow }).toEqual({
      status: 405,
      allow: "GET, HEAD",
    });
  });

  it.each([
    ["GET", "/docs"],
    ["GET", "/docs/openapi.json"],
    ["GET", "/auth/v1/.well-known/jwks.json"],
    ["OPTIONS", "/storage/v1/object/authenticated/service-documentos/x.pdf"],
    ["POST", "/sandbox/adapter-tax/nothing"],
  ])("tags %s %s with x-request-id too", async (method, path) => {
    const answer = await send(method, path);
    expect(answer.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("hands the demo token to its own /docs page only: never in a script, never to another site or name", async () => {
    const { run: local } = server.get();
    const token = local.users.find((u) => u.role === "operador")?.access_token ?? "";
    expect(token).not.toBe("");
    // any page may run <script src=…/docs/init.js>: it holds neither the token nor the apikey
    const script = await send("GET", "/docs/init.js");
    expect(script.status).toBe(200);
    expect(script.body).not.toContain(token);
    expect(script.body).not.toContain(local.apikey);
    // the page's own same-origin fetch, and a tool's (no Fetch Metadata): the token, with no CORS header
    for (const headers of [{ "sec-fetch-site": "same-origin" }, {}] as Record<string, string>[]) {
      const own = await send("GET", "/docs/authorization.json", headers);
      expect(own.status).toBe(200);
      expect(JSON.parse(own.body)).toEqual({ apikey: local.apikey, access_token: token });
      expect(own.headers["access-control-allow-origin"]).toBeUndefined();
    }
    // another site's fetch, and a rebinding page (its own name in Host): refused, no token
    for (const headers of [{ "sec-fetch-site": "cross-site" }, { host: "evil.example:54321" }] as Record<
      string,
      string
    >[]) {
      const refused = await send("GET", "/docs/authorization.json", headers);
      expect(refused.status).toBe(403);
      expect(refused.body).not.toContain(token);
    }
  });

  it("exposes Allow and x-request-id to a page of another origin", async () => {
    const preflight = await send("OPTIONS", "/functions/v1/einvoicing/transmit", {
      origin: "http://localhost:5173",
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization, apikey, content-type, x-client-info, idempotency-key",
    });
    expect(preflight.status).toBe(204);
    const get = await send("GET", "/functions/v1/einvoicing/transmit", { origin: "http://localhost:5173" });
    expect(String(get.headers["access-control-expose-headers"]).split(/,\s*/)).toEqual(
      expect.arrayContaining(["x-request-id", "allow", "retry-after"]),
    );
  });
});
