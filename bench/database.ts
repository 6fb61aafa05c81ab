/**
 * The bench's database: a clone of the schema template on a throwaway PostgreSQL 15 cluster (the way
 * the tests start one), or PGlite when the binaries are missing or `--pglite` is given, shaped as the
 * test support expects (`TestDatabase`), so the tests' factories and app builder work on it.
 */
import postgres from "postgres";
import type { TestDatabase } from "../devkit/database.ts";
import {
  findPostgresBinaries,
  type PostgresServer,
  startPostgresServer,
  TEMPLATE_DATABASE,
} from "../devkit/postgres-server.ts";
import { applySchema } from "../devkit/schema.ts";
import { connectPostgres, fromPGlite, type SqlClient } from "../shared/db/sql-client.ts";

export interface BenchDatabase {
  db: TestDatabase;
  /** What the figures were measured on, for the report. */
  label: string;
  /** The cluster (PostgreSQL only): more databases can be cloned from its template. */
  server: PostgresServer | null;
  /** Superuser URL of the bench database (PostgreSQL only). */
  url: string | null;
  stop(): Promise<void>;
}

/** Opens the bench database; `poolSize` is the service's default pool (EINV_DB_POOL_SIZE). */
export async function openBenchDatabase(
  options: { pglite?: boolean; poolSize?: number; url?: string; settings?: Record<string, string> } = {},
): Promise<BenchDatabase> {
  if (options.url) {
    // a database the caller prepared (schema applied), e.g. on a cluster started with extra settings
    const client = await connectPostgres(options.url, { max: options.poolSize ?? 5 });
    return {
      db: {
        engine: "postgres",
        url: options.url,
        client,
        superuser: superuserOf(client),
        close: () => client.close(),
      },
      label: `PostgreSQL at ${new URL(options.url).host}`,
      server: null,
      url: options.url,
      stop: () => client.close(),
    };
  }
  const bindir = options.pglite ? null : await findPostgresBinaries();
  if (!bindir) {
    const { PGlite } = await import("@electric-sql/pglite");
    const pg = await PGlite.create();
    await applySchema((text) => pg.exec(text));
    const client = fromPGlite(pg);
    return {
      db: { engine: "pglite", client, superuser: superuserOf(client), close: () => client.close() },
      label: "PGlite (embedded) — FALLBACK, not the real PostgreSQL the overhead budget is defined on",
      server: null,
      url: null,
      stop: () => client.close(),
    };
  }
  const server = await startPostgresServer(bindir, options.settings);
  const url = await cloneTemplate(server, "bench");
  const client = await connectPostgres(url, { max: options.poolSize ?? 5 });
  const stop = () => client.close().finally(() => server.stop());
  return {
    db: { engine: "postgres", url, client, superuser: superuserOf(client), close: stop },
    label: `PostgreSQL ${server.version} (throwaway cluster, 127.0.0.1:${server.port})`,
    server,
    url,
    stop,
  };
}

/** A new database on the cluster, cloned from the schema template; its superuser URL. */
export async function cloneTemplate(server: PostgresServer, name: string): Promise<string> {
  const admin = postgres(server.adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name} template ${TEMPLATE_DATABASE}`).finally(() => admin.end());
  return server.adminUrl.replace(/\/postgres$/, `/${name}`);
}

/** A bench database's `superuser()`, as the tests' (devkit/database.ts): parameters as text. */
export function superuserOf(client: SqlClient): TestDatabase["superuser"] {
  return (sql, params = []) =>
    client.transaction((s) =>
      s.query(
        sql,
        params.map((p) => (p === null ? null : String(p))),
      ),
    ) as never;
}
