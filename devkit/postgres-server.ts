/**
 * A throwaway PostgreSQL cluster for the test run: `initdb` into a temporary directory, `postgres` on
 * a free loopback port, one template database holding the schema that each test file clones.
 * PostgreSQL refuses to run as root, so on root machines (CI containers) both run as `postgres`.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import postgres from "postgres";
import { applySchema } from "./schema.ts";

const run = promisify(execFile);

export const TEMPLATE_DATABASE = "einv_template";

export interface PostgresServer {
  /** Superuser URL of the `postgres` database (the bootstrap superuser's). */
  adminUrl: string;
  /** e.g. "15.18" */
  version: string;
  port: number;
  stop(): Promise<void>;
}

/** The directory holding `initdb` and `postgres`, or null when PostgreSQL 15 is not installed. */
export async function findPostgresBinaries(): Promise<string | null> {
  const candidates: string[] = [];
  try {
    candidates.push((await run("pg_config", ["--bindir"])).stdout.trim());
  } catch {
    // no pg_config on PATH: try the Debian/Ubuntu location
  }
  candidates.push("/usr/lib/postgresql/15/bin");
  for (const dir of candidates) {
    if (!existsSync(join(dir, "initdb")) || !existsSync(join(dir, "postgres"))) continue;
    const { stdout } = await run(join(dir, "postgres"), ["--version"]);
    if (/\(PostgreSQL\) 15\./.test(stdout)) return dir;
  }
  return null;
}

/** Whether pg_cron's library is installed beside this PostgreSQL (Debian: postgresql-15-cron). */
export function hasPgCron(bindir: string): boolean {
  return existsSync(join(bindir, "..", "lib", "pg_cron.so"));
}

/**
 * Starts a cluster, creates the template database with the schema applied, and returns it.
 * `settings` are extra server settings (`-c name=value`), e.g. the scale bench's shared_buffers.
 * `options.superuser` names the cluster's bootstrap superuser (`postgres` unless given: a hosted
 * Supabase project's is `supabase_admin`); `options.template: false` leaves the template out.
 */
export async function startPostgresServer(
  bindir: string,
  settings: Record<string, string> = {},
  options: { superuser?: string; template?: boolean } = {},
): Promise<PostgresServer> {
  const superuser = options.superuser ?? "postgres";
  const dir = await mkdtemp(join(tmpdir(), "einv-pg-"));
  const dataDir = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  // initdb and postgres refuse to run as root
  const command = (bin: string, args: string[]): [string, string[]] =>
    asRoot ? ["runuser", ["-u", "postgres", "--", join(bindir, bin), ...args]] : [join(bindir, bin), args];
  let server: ChildProcess | undefined;
  const log: string[] = [];

  const stop = async (): Promise<void> => {
    if (server && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server?.once("exit", resolve));
      // SIGINT is a fast shutdown; signal the postmaster itself, not the runuser wrapper
      const pid = (await postmasterPid(dataDir)) ?? (server.pid as number);
      process.kill(pid, "SIGINT");
      const timer = setTimeout(() => {
        server?.kill("SIGKILL");
        killQuietly(pid);
      }, 10_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };

  try {
    if (asRoot) await run("chown", ["postgres:", dir]);
    const [initdb, initArgs] = command("initdb", [
      "-D",
      dataDir,
      "-U",
      superuser,
      "--auth=trust",
      "-E",
      "UTF8",
      "--locale=C.UTF-8",
      "--no-instructions",
    ]);
    await run(initdb, initArgs);

    const port = await freePort();
    const [bin, args] = command("postgres", [
      ...["-D", dataDir, "-p", String(port), "-k", dir],
      ...["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off"],
      ...["-c", "full_page_writes=off", "-c", "max_connections=200"],
      ...Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
      // pg_cron, when Debian's postgresql-15-cron is installed: the reconcile schedule's test needs it
      ...(hasPgCron(bindir)
        ? ["-c", "shared_preload_libraries=pg_cron", "-c", "cron.database_name=postgres"]
        : []),
    ]);
    server = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
    server.stdout?.on("data", (chunk) => log.push(String(chunk)));
    server.stderr?.on("data", (chunk) => log.push(String(chunk)));

    const adminUrl = `postgres://${superuser}@127.0.0.1:${port}/postgres`;
    const version = await waitUntilReady(adminUrl, server);
    if (options.template !== false) await createTemplate(adminUrl, port);
    return { adminUrl, version, port, stop };
  } catch (error) {
    await stop().catch(() => {});
    const detail = log.join("").trim();
    throw new Error(`could not start PostgreSQL: ${(error as Error).message}${detail ? `\n${detail}` : ""}`, {
      cause: error,
    });
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

async function postmasterPid(dataDir: string): Promise<number | null> {
  try {
    const pid = Number.parseInt(
      (await readFile(join(dataDir, "postmaster.pid"), "utf8")).split("\n")[0] ?? "",
      10,
    );
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

async function waitUntilReady(url: string, server: ChildProcess): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null || server.signalCode !== null)
      throw new Error("postgres exited during start-up");
    const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
    try {
      const [row] = await sql<{ server_version: string }[]>`show server_version`;
      return (row?.server_version ?? "").split(" ")[0] ?? "";
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`postgres did not accept connections: ${(error as Error).message}`);
    } finally {
      await sql.end({ timeout: 1 });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function createTemplate(adminUrl: string, port: number): Promise<void> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  // The template must have no connections left once the schema is in, or it cannot be cloned.
  const template = postgres(`postgres://postgres@127.0.0.1:${port}/${TEMPLATE_DATABASE}`, {
    max: 1,
    onnotice: () => {},
  });
  try {
    // `unsafe` without parameters uses the simple protocol, which runs multi-statement files
    await applySchema((text) => template.unsafe(text));
  } finally {
    await template.end({ timeout: 5 });
  }
}
