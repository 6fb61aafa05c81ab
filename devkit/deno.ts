/**
 * Runs a Deno entry point of this repo as a child process (the `deno` npm package's binary) and
 * waits until it answers HTTP, so tests exercise the real runtime the functions deploy to.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const DENO = `${ROOT}node_modules/.bin/deno`;

export interface DenoProcess {
  baseUrl: string;
  output(): string;
  stop(): Promise<void>;
  /** Kills the process at once (SIGKILL): a crash, requests in flight and all. */
  kill(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/**
 * Spawns `deno run` on `entry` with a clean environment: `env` and PORT only (plus PATH, HOME);
 * `flags` go to `deno run` (e.g. `--inspect=127.0.0.1:9229`).
 */
export function spawnDeno(
  entry: string,
  env: Record<string, string>,
  port: number,
  stdio: "ignore" | "pipe" = "pipe",
  flags: string[] = [],
): ChildProcess {
  return spawn(DENO, ["run", "--allow-all", "--quiet", ...flags, entry], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      DENO_NO_UPDATE_CHECK: "1",
      ...env,
      PORT: String(port),
    },
    stdio: stdio === "pipe" ? ["ignore", "pipe", "pipe"] : "ignore",
  });
}

/**
 * Starts `deno run` on `entry` with `env` and PORT (a free one unless given) set, and `flags`;
 * resolves once `readyPath` answers.
 */
export async function startDeno(
  entry: string,
  env: Record<string, string>,
  options: { readyPath?: string; timeoutMs?: number; port?: number; flags?: string[] } = {},
): Promise<DenoProcess> {
  const port = options.port ?? (await freePort());
  const child = spawnDeno(entry, env, port, "pipe", options.flags);
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`deno exited with ${child.exitCode}:\n${output}`);
    try {
      await fetch(`${baseUrl}${options.readyPath ?? "/"}`, { method: "OPTIONS" });
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`deno did not start listening in time:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return {
    baseUrl,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
    kill: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}
