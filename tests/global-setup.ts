/**
 * Vitest global setup: decides which engine the database suites run on and provides it to every
 * test file as `inject("database")`.
 *
 * - PostgreSQL 15 binaries installed: a throwaway cluster with a template database (one clone per
 *   test file, see `tests/support/database.ts`).
 * - Not installed: embedded PGlite, except on CI (`CI` set), which must test the real server.
 *
 * `EINV_TEST_DB=pglite` forces PGlite; `EINV_TEST_DB=postgres` makes missing binaries an error.
 */
import type { TestProject } from "vitest/node";
import { findPostgresBinaries, type PostgresServer, startPostgresServer } from "./support/postgres-server.ts";

export type DatabaseTarget = { kind: "postgres"; adminUrl: string; version: string } | { kind: "pglite" };

declare module "vitest" {
  export interface ProvidedContext {
    database: DatabaseTarget;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
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
