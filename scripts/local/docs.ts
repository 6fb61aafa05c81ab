/**
 * The API reference at /docs: Swagger UI (swagger-ui-dist, from node_modules; nothing from a CDN)
 * rendering docs/openapi.json, whose server points at this local server so "Try it out" works. On
 * the local server only, Authorize comes filled in: the publishable key and a demo user's token
 * (Swagger UI's `preauthorizeApiKey`, once the document is loaded); docs/openapi.json itself holds
 * neither. The page fetches them from /docs/authorization.json, which only this server's own pages
 * may read: it carries no CORS header, answers only a request addressed to a loopback name (a
 * rebinding page's Host is its own name), and refuses a cross-site fetch. Never inside a script: any
 * web page may run `<script src>` of another origin, and would read a token written into it.
 */
import { readFile } from "node:fs/promises";
import { CORS_HEADERS, localError, methodNotAllowed } from "./answers.ts";

const ROOT = new URL("../../", import.meta.url);
const SWAGGER = new URL("node_modules/swagger-ui-dist/", ROOT);

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Electronic invoicing API — reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

/** What Authorize is filled in with: the apikey and a demo user's access token. */
export interface DocsAuthorization {
  apikey: string;
  accessToken: string;
}

// validatorUrl: null — Swagger UI would otherwise send the document to validator.swagger.io.
const init = (authorized: boolean) => `window.ui = SwaggerUIBundle({
  url: "/docs/openapi.json",
  dom_id: "#reference",
  deepLinking: true,
  validatorUrl: null,
  docExpansion: "list",${
    authorized
      ? `
  onComplete: async () => {
    const answer = await fetch("/docs/authorization.json", { cache: "no-store" });
    if (!answer.ok) return;
    const { apikey, access_token } = await answer.json();
    window.ui.preauthorizeApiKey("apikey", apikey);
    window.ui.preauthorizeApiKey("bearerAuth", access_token);
  },`
      : ""
  }
});
`;

/** The names this machine answers to on loopback: a page served under any other name is not ours. */
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Whether `request` may read the demo token: addressed to a loopback name (DNS rebinding puts the
 * attacker's own name in Host) and not a cross-site fetch (Fetch Metadata, sent by every current
 * browser; a tool such as curl sends none).
 */
function mayReadAuthorization(request: Request): boolean {
  const host = request.headers.get("host") ?? "";
  const name = host.replace(/:[0-9]+$/, "").toLowerCase();
  const site = request.headers.get("sec-fetch-site");
  return LOOPBACK.has(name) && (site === null || site === "same-origin" || site === "none");
}

const ASSETS: Record<string, { file: URL; type: string }> = {
  "/docs/swagger-ui.css": { file: new URL("swagger-ui.css", SWAGGER), type: "text/css; charset=utf-8" },
  "/docs/swagger-ui-bundle.js": {
    file: new URL("swagger-ui-bundle.js", SWAGGER),
    type: "text/javascript; charset=utf-8",
  },
};

export function isDocsPath(url: URL): boolean {
  return url.pathname === "/docs" || url.pathname.startsWith("/docs/");
}

/**
 * Serves the page, its script and styles, and the document with `base_url` set to `functionsRoot`;
 * with `authorization`, Authorize is filled in with it.
 */
export function createDocsHandler(
  functionsRoot: string,
  authorization?: DocsAuthorization,
): (request: Request) => Promise<Response> {
  const INIT = init(authorization !== undefined);
  return async (request) => {
    if (request.method !== "GET" && request.method !== "HEAD") return methodNotAllowed(request.method, "GET");
    const { pathname } = new URL(request.url);
    const answer = (body: string, type: string) =>
      new Response(request.method === "HEAD" ? null : body, {
        headers: { ...CORS_HEADERS, "content-type": type, "cache-control": "no-cache" },
      });
    if (pathname === "/docs" || pathname === "/docs/") return answer(PAGE, "text/html; charset=utf-8");
    if (pathname === "/docs/init.js") return answer(INIT, "text/javascript; charset=utf-8");
    if (pathname === "/docs/authorization.json" && authorization) {
      if (!mayReadAuthorization(request))
        return localError(403, "forbidden", "The demo token is for this server's own /docs page only.");
      const body = JSON.stringify({ apikey: authorization.apikey, access_token: authorization.accessToken });
      // no CORS header: another origin's page cannot read it
      return new Response(request.method === "HEAD" ? null : body, {
        headers: { "content-type": "application/json", "cache-control": "no-store" },
      });
    }
    if (pathname === "/docs/openapi.json") {
      const document = JSON.parse(await readFile(new URL("docs/openapi.json", ROOT), "utf8"));
      document.servers[0].variables.base_url.default = functionsRoot;
      return answer(JSON.stringify(document), "application/json");
    }
    const asset = ASSETS[pathname];
    if (!asset) return localError(404, "not_found", `Nothing at ${pathname}; the reference is at /docs.`);
    return answer(await readFile(asset.file, "utf8"), asset.type);
  };
}
