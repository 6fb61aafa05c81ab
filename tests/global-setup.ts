/**
 * Vitest global setup: decides which engine the database suites run on and provides it to every
 * test file as `inject("database")`.
 *
 * - PostgreSQL 15 binaries installed: a throwaway cluster with a template database (one clone per
 *   test file, see `devkit/database.ts`).
 * - Not installed: embedded PGlite, except on CI (`CI` set), which must test the real server.
 *
 * `EINV_TEST_DB=pglite` forces PGlite; `EINV_TEST_DB=postgres` makes missing binaries an error.
 *
 * It also gives the run a capture directory (`EINV_TEST_CAPTURE_DIR`, inherited by the test workers) where the shared test helpers
 * record responses, log lines, issued tokens and database rows; when the run ends, the secret canary
 * scan (devkit/canary.ts) reads it all and fails the run if a canary secret leaked anywhere.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { FIXED_CANARIES, scanCapture } from "../devkit/canary.ts";
import { findPostgresBinaries, type PostgresServer, startPostgresServer } from "../devkit/postgres-server.ts";

export type DatabaseTarget = { kind: "postgres"; adminUrl: string; version: string } | { kind: "pglite" };

declare module "vitest" {
  export interface ProvidedContext {
    database: DatabaseTarget;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const captureDir = mkdtempSync(join(tmpdir(), "einv-canary-"));
  process.env.EINV_TEST_CAPTURE_DIR = captureDir;
  const stopDatabase = await setupDatabase(project);
  return async () => {
    await stopDatabase();
    checkCanaries(captureDir);
  };
}

/**
 * The secret canary's final check: nothing the run captured holds a canary. Throwing here fails
 * the run (vitest reports an error in the global teardown and exits non-zero).
 */
function checkCanaries(captureDir: string): void {
  const { counts, leaks } = scanCapture(captureDir);
  const scanned =
    `${counts.response} responses, ${counts.log} log lines, ${counts.database} database dumps; ` +
    `${counts.token} tokens, ${counts.secret} other secrets and ${FIXED_CANARIES.length} fixed ones as canaries`;
  if (leaks.length > 0) {
    // vitest prints an error thrown here ("error during close") but keeps its exit code: set it
    process.exitCode = 1;
    const list = leaks.map((l) => `- ${l.kind} in ${l.file}: ${l.canary} … ${JSON.stringify(l.context)}`);
    throw new Error(
      `secret canary: ${leaks.length} leak(s) (scanned ${scanned}; capture kept in ${captureDir}):\n${list.join("\n")}`,
    );
  }
  console.log(`secret canary: no leak (scanned ${scanned})`);
  rmSync(captureDir, { recursive: true, force: true });
}

async function setupDatabase(project: TestProject): Promise<() => Promise<void>> {
  const requested = process.env.EINV_TEST_DB;
  if (requested !== undefined && requested !== "postgres" && requested !== "pglite") {
    throw new Error(`EINV_TEST_DB must be "postgres" or "pglite", not "${requested}"`);
  }
  if (requested === "pglite") {
    if (process.env.CI) throw new Error("EINV_TEST_DB=pglite is not allowed on CI: CI tests the real server");
    project.provide("database", { kind: "pglite" });
    console.log("database suites: PGlite (embedded; forced by EINV_TEST_DB=pglite)");
    return async () => {};
  }

  const bindir = await findPostgresBinaries();
  if (!bindir) {
    if (process.env.CI || requested === "postgres") {
      throw new Error(
        "PostgreSQL 15 binaries not found (tried `pg_config --bindir` and /usr/lib/postgresql/15/bin): " +
          "CI runs the database suites against the real server; install postgresql-15.",
      );
    }
    project.provide("database", { kind: "pglite" });
    console.log("database suites: PGlite (embedded; install postgresql-15 for the real server)");
    return async () => {};
  }

  const server: PostgresServer = await startPostgresServer(bindir);
  project.provide("database", { kind: "postgres", adminUrl: server.adminUrl, version: server.version });
  console.log(
    `database suites: PostgreSQL ${server.version} (throwaway cluster on 127.0.0.1:${server.port})`,
  );
  return () => server.stop();
}
