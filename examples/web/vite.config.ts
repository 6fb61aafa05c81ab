/**
 * The example web app's Vite config (`npm run example:web`, from the repository root). Two things
 * are particular to running it against `npm start`:
 * - `@einvoicing/client` is the package as `npm pack` ships it: its build (`client/dist`, made by
 *   `npm run client:build`; `EINV_CLIENT_DIST` points elsewhere), not its sources.
 * - `/demo.json` hands the page the demo users of `.data/local.json` (or `$EINV_DATA_DIR/local.json`),
 *   read on each request, as the local server's /docs fills in a demo token. A real app signs its
 *   users in with Supabase Auth instead; nothing of this is for a deployment.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";

const here = fileURLToPath(new URL(".", import.meta.url));
const repo = resolve(here, "../..");
const clientDist = process.env.EINV_CLIENT_DIST ?? join(repo, "client/dist");

/** What the page gets: the server, the apikey, and each demo user with its organization's name. */
function demoConfig(): unknown {
  const file = join(process.env.EINV_DATA_DIR ?? join(repo, ".data"), "local.json");
  if (!existsSync(file)) return { error: `${file} does not exist: start the local server with npm start.` };
  const local = JSON.parse(readFileSync(file, "utf8")) as {
    base_url: string;
    apikey: string;
    users: { email: string; role: string; org_id: string; access_token: string }[];
    orgs: { id: string; name: string }[];
  };
  return {
    // base_url is the functions root (`<server>/functions`); supabase-js wants the server itself
    supabase_url: new URL(local.base_url).origin,
    apikey: local.apikey,
    // no Realtime server runs locally: the page re-reads the row instead of subscribing
    realtime: false,
    users: local.users.map((user) => ({
      email: user.email,
      role: user.role,
      org_id: user.org_id,
      org_name: local.orgs.find((org) => org.id === user.org_id)?.name ?? user.org_id,
      access_token: user.access_token,
    })),
  };
}

function serveDemoConfig(): Plugin {
  const answer = (response: ServerResponse) => {
    response.setHeader("content-type", "application/json");
    response.setHeader("cache-control", "no-store");
    response.end(JSON.stringify(demoConfig()));
  };
  return {
    name: "einvoicing-demo-config",
    configureServer: (server) => {
      server.middlewares.use("/demo.json", (_request, response) => answer(response));
    },
    configurePreviewServer: (server) => {
      server.middlewares.use("/demo.json", (_request, response) => answer(response));
    },
  };
}

export default defineConfig({
  root: here,
  resolve: { alias: { "@einvoicing/client": join(clientDist, "index.js") } },
  plugins: [serveDemoConfig()],
  // its own, not the repository's node_modules/.vite (which may be a shared install's)
  cacheDir: join(here, "node_modules/.vite"),
  // supabase-js bundled once at start, never discovered on a page load (which would reload the page)
  optimizeDeps: { include: ["@supabase/supabase-js"], noDiscovery: true },
  server: {
    fs: {
      // this folder, the client's build and node_modules (a symlinked install's real folder too), not
      // the repository: its .data/ holds the local server's signing key and the demo users' tokens
      allow: [here, clientDist, join(repo, "node_modules"), realpathSync(join(repo, "node_modules"))],
      // Vite's own denials (replaced by a list of one's own), then the data folder and keys as a belt
      deny: [".env", ".env.*", "*.{crt,pem}", "**/.git/**", "**/.data/**", "**/*.key*"],
    },
  },
});
