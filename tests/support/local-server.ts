/**
 * `npm start` as a developer runs it, against this run's PostgreSQL: a fresh, empty database (not a
 * clone of the migrated template) that the local server migrates and seeds itself, its own data
 * folder, and the `.data/local.json` it writes.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll } from "vitest";
import { type DenoProcess, startDeno } from "../../devkit/deno.ts";
import type { LocalRun } from "../../scripts/local/local-json.ts";

export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

/** An empty database on the test cluster, and a way to drop it. */
export async function createFreshDatabase(adminUrl: string): Promise<FreshDatabase> {
  const name = `fresh_${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`).finally(() => admin.end({ timeout: 5 }));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await dropper
        .unsafe(`drop database if exists ${name} with (force)`)
        .finally(() => dropper.end({ timeout: 5 }));
    },
  };
}

export interface LocalServer extends DenoProcess {
  dataDir: string;
  /** What the server wrote to `<data dir>/local.json`. */
  local(): Promise<LocalRun>;
}

/**
 * The flags `npm start` gives `deno run` (package.json's `start`, such as
 * `--unstable-no-legacy-abort`), so the tests run the server as a developer does.
 */
export function npmStartFlags(): string[] {
  const root = new URL("../../", import.meta.url);
  const { scripts } = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as {
    scripts: { start: string };
  };
  const words = scripts.start.split(/\s+/);
  return words
    .slice(words.indexOf("run") + 1, words.indexOf("scripts/local/serve.ts"))
    .filter((word) => word !== "--allow-all");
}

/**
 * Starts scripts/local/serve.ts on `databaseUrl` with a data folder of its own (kept across restarts),
 * on `port` if given (a restart that keeps the demo credentials' URLs), else a free one, with the
 * flags `npm start` gives it.
 */
export async function startLocalServer(
  databaseUrl: string,
  options: { dataDir?: string; env?: Record<string, string>; port?: number } = {},
): Promise<LocalServer> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), "einv-local-")));
  const server = await startDeno(
    "scripts/local/serve.ts",
    {
      DATABASE_URL: databaseUrl,
      EINV_DATA_DIR: dataDir,
      SANDBOX_LATENCY_MS: "0",
      EINV_RECONCILE_INTERVAL_MS: "0",
      ...options.env,
    },
    { readyPath: "/functions/v1/einvoicing/transmit", port: options.port, flags: npmStartFlags() },
  );
  return {
    ...server,
    dataDir,
    local: async () => JSON.parse(await readFile(join(dataDir, "local.json"), "utf8")) as LocalRun,
  };
}

/** Removes a data folder the server made. */
export const removeDataDir = (dataDir: string) => rm(dataDir, { recursive: true, force: true });

/**
 * For a test file: a local server on a fresh database for the whole file (started before its tests,
 * stopped and dropped after). Call at the top level; `get()` is the running server, once started.
 * Does nothing on PGlite runs, where the server's DATABASE_URL mode has no cluster to use.
 */
export function useLocalServer(target: { kind: string; adminUrl?: string }): {
  get(): LocalServer & { run: LocalRun };
} {
  let fresh: FreshDatabase | undefined;
  let server: (LocalServer & { run: LocalRun }) | undefined;
  beforeAll(async () => {
    if (target.kind !== "postgres" || !target.adminUrl) return;
    fresh = await createFreshDatabase(target.adminUrl);
    const started = await startLocalServer(fresh.url);
    server = { ...started, run: await started.local() };
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    if (server) await removeDataDir(server.dataDir);
    await fresh?.drop();
  });
  return {
    get: () => {
      if (!server) throw new Error("the local server is not running (PostgreSQL runs only)");
      return server;
    },
  };
}
