/**
 * Cold start (DESIGN §7): time from spawning `deno run` to the first answered request, for the
 * `einvoicing` entry and for a bare Hono app, each started fresh several times (median).
 *
 * - The budget's figure: the first request is a CORS preflight (a browser's first call to a cold
 *   instance), which touches no database: what is measured is loading and wiring.
 * - Beside it, the first authenticated call: a cold instance answering a POST (a cached
 *   /representation: token, membership, database), against a bare Hono app answering a POST with
 *   one SQL round trip — both connect to the database on that first request.
 * - And where the time goes: each module's import, in the order a cold instance loads them for a
 *   first /transmit, timed in fresh processes (./import-timing.ts).
 */
import { freePort, spawnDeno } from "../devkit/deno.ts";
import { median } from "./stats.ts";

interface FirstRequest {
  method: "OPTIONS" | "POST";
  headers: Record<string, string>;
  body?: string;
  /** What a right answer is (a POST must not be answered by an error). */
  ok: (status: number) => boolean;
}

const PREFLIGHT: FirstRequest = {
  method: "OPTIONS",
  headers: { origin: "http://bench.test", "access-control-request-method": "POST" },
  ok: (status) => status === 204,
};

async function startOnce(
  entry: string,
  env: Record<string, string>,
  path: string,
  request: FirstRequest,
): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawnDeno(entry, env, port, "ignore");
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode}`);
      let response: Response;
      try {
        response = await fetch(`http://127.0.0.1:${port}${path}`, {
          method: request.method,
          headers: request.headers,
          ...(request.body ? { body: request.body } : {}),
        });
      } catch {
        if (performance.now() - started > 30_000) throw new Error(`${entry} did not answer within 30 s`);
        await new Promise((resolve) => setTimeout(resolve, 2));
        continue;
      }
      const ms = performance.now() - started;
      const text = await response.text();
      if (!request.ok(response.status)) {
        throw new Error(
          `${entry}: first ${request.method} answered ${response.status} ${text.slice(0, 300)}`,
        );
      }
      return ms;
    }
  } finally {
    child.kill("SIGKILL");
  }
}

/** Alternates the two entries `runs` times after one untimed start each (a warm disk cache). */
async function compare(
  fn: { env: Record<string, string>; path: string; request: FirstRequest },
  bare: { entry: string; env: Record<string, string>; request: FirstRequest },
  runs: number,
): Promise<{ functionMs: number; bareMs: number }> {
  const FUNCTION = "functions/einvoicing/index.ts";
  await startOnce(bare.entry, bare.env, fn.path, bare.request);
  await startOnce(FUNCTION, fn.env, fn.path, fn.request);
  const b: number[] = [];
  const f: number[] = [];
  for (let i = 0; i < runs; i++) {
    b.push(await startOnce(bare.entry, bare.env, fn.path, bare.request));
    f.push(await startOnce(FUNCTION, fn.env, fn.path, fn.request));
  }
  return { functionMs: median(f), bareMs: median(b) };
}

/** The budget's cold start: the first request is a CORS preflight. */
export function measureColdStart(
  functionEnv: Record<string, string>,
  runs = 7,
): Promise<{ functionMs: number; bareMs: number }> {
  return compare(
    { env: functionEnv, path: "/einvoicing/transmit", request: PREFLIGHT },
    { entry: "bench/bare-hono.ts", env: {}, request: PREFLIGHT },
    runs,
  );
}

/** A cold instance's first authenticated POST, against bare Hono + one SQL round trip (cold). */
export function measureFirstCall(
  functionEnv: Record<string, string>,
  call: { path: string; headers: Record<string, string>; body: string },
  databaseUrl: string,
  runs = 7,
): Promise<{ functionMs: number; bareMs: number }> {
  const post = (ok: (status: number) => boolean): FirstRequest => ({
    method: "POST",
    headers: call.headers,
    body: call.body,
    ok,
  });
  return compare(
    { env: functionEnv, path: call.path, request: post((s) => s === 200) },
    { entry: "bench/bare-hono-sql.ts", env: { DATABASE_URL: databaseUrl }, request: post((s) => s === 200) },
    runs,
  );
}

/** What a cold instance imports for its first /transmit, in order; then what it never needs for it. */
export const FIRST_TRANSMIT_IMPORTS = [
  ["hono", "Hono"],
  ["hono/cors", "Hono's CORS middleware"],
  ["../functions/einvoicing/front.ts", "the entry's front (+ the CORS policy)"],
  ["zod", "zod"],
  ["../shared/config.ts", "the config schema (zod, built at import)"],
  ["jose/jwt/verify", "jose's token check (its entry points, not its index)"],
  ["../shared/compose.ts", "the composition root (token check, transports, secret box, egress, log)"],
  ["../functions/einvoicing/app.ts", "the app: pipeline and the three route groups (lazy)"],
  ["../shared/http/route.ts", "the operation wrapper (provider clients and protocol schemas)"],
  ["../functions/invoices/transmit.ts", "the /transmit operation (its schemas, the lifecycle core)"],
  [
    "../shared/core/invoices/document.ts",
    "the invoice's request builder and the protocol's schemas (on the first send)",
  ],
  ["postgres", "postgres.js (imported on the first query)"],
  ["../functions/credit-notes/create.ts", "not for /transmit: /credit-notes"],
  ["../functions/integrations/save.ts", "not for /transmit: /integrations/save"],
  ["pdf-lib", "not for /transmit: pdf-lib (only when a PDF is rendered)"],
] as const;

/** Median import time of each module of FIRST_TRANSMIT_IMPORTS over `runs` fresh processes. */
export async function measureImports(runs = 5): Promise<{ module: string; what: string; ms: number }[]> {
  const { spawn } = await import("node:child_process");
  const samples = new Map<string, number[]>();
  for (let i = 0; i < runs + 1; i++) {
    const child = spawn(
      "node_modules/.bin/deno",
      ["run", "--allow-all", "--quiet", "bench/import-timing.ts", ...FIRST_TRANSMIT_IMPORTS.map(([m]) => m)],
      { env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DENO_NO_UPDATE_CHECK: "1" } },
    );
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    const code = await new Promise((resolve) => child.once("exit", resolve));
    if (code !== 0) throw new Error(`import timing exited with ${code}`);
    if (i === 0) continue; // the first run fills the disk cache
    for (const { module, ms } of JSON.parse(out) as { module: string; ms: number }[]) {
      samples.set(module, [...(samples.get(module) ?? []), ms]);
    }
  }
  return FIRST_TRANSMIT_IMPORTS.map(([module, what]) => ({
    module,
    what,
    ms: median(samples.get(module) ?? []),
  }));
}
