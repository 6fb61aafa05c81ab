/**
 * One fetch handler for the three sandbox services, by path prefix: `<prefix>/adapter-tax/*`,
 * `<prefix>/docsgen/*` and `<prefix>/deliver/*` (and the DIAN stand-in at `<prefix>/dian/*` when given), each passed on with its prefix stripped (so a
 * credential url of `<origin><prefix>/docsgen` works as that service's base URL). With
 * `adapterTaxAtRoot`, any other path under `prefix` goes to adapter-tax as it is: sandbox/server.ts
 * keeps its original root URLs (`/documents`, `/_sandbox/knobs`, ...) this way.
 */
import { type SandboxFetch, toRequest } from "./common.ts";
import type { SandboxDeliver } from "./deliver.ts";
import type { DianStandIn } from "./dian/index.ts";
import type { SandboxDocsgen } from "./docsgen.ts";
import type { SandboxProvider } from "./provider.ts";

export interface SandboxServices {
  adapterTax: SandboxProvider;
  docsgen: SandboxDocsgen;
  deliver: SandboxDeliver;
  /** The DIAN stand-in (./dian/), when the host runs one. */
  dian?: DianStandIn;
}

/** Where each service lives, below the router's prefix. */
export const SANDBOX_PATHS = {
  adapterTax: "/adapter-tax",
  docsgen: "/docsgen",
  deliver: "/deliver",
  dian: "/dian",
} as const;

export interface SandboxRouterOptions {
  /** Mount point, e.g. "/sandbox"; default "" (the origin's root). */
  prefix?: string;
  /** Send unmatched paths under `prefix` to adapter-tax unchanged (default false: 404). */
  adapterTaxAtRoot?: boolean;
}

/** The handler is also a drop-in `fetch` (relative URLs resolve to http://sandbox.local). */
export function createSandboxRouter(
  services: SandboxServices,
  options: SandboxRouterOptions = {},
): SandboxFetch {
  const prefix = (options.prefix ?? "").replace(/\/+$/, "");
  const routes = (Object.keys(SANDBOX_PATHS) as (keyof SandboxServices)[]).flatMap((name) => {
    const service = services[name];
    return service ? [{ path: `${prefix}${SANDBOX_PATHS[name]}`, service }] : [];
  });
  return (input, init) => {
    const request = toRequest(input, init);
    const url = new URL(request.url);
    for (const { path, service } of routes) {
      if (url.pathname === path || url.pathname.startsWith(`${path}/`)) {
        url.pathname = url.pathname.slice(path.length) || "/";
        return service.fetch(new Request(url, request));
      }
    }
    const underPrefix = prefix === "" || url.pathname === prefix || url.pathname.startsWith(`${prefix}/`);
    if (options.adapterTaxAtRoot && underPrefix) {
      url.pathname = url.pathname.slice(prefix.length) || "/";
      return services.adapterTax.fetch(new Request(url, request));
    }
    const message = `No sandbox service at ${url.pathname}; try ${routes.map((r) => `${r.path}/`).join(", ")}.`;
    return Promise.resolve(Response.json({ error: { code: "not_found", message } }, { status: 404 }));
  };
}
