/**
 * One isolated database per test file, on the engine the global setup chose: a clone of the
 * template on the throwaway PostgreSQL cluster, or a fresh in-memory PGlite with the schema.
 *
 *   let db: TestDatabase;
 *   beforeAll(async () => { db = await createTestDatabase(); });
 *   afterAll(() => db.close());
 */
import { randomUUID } from "node:crypto";
import postgres from "postgres";
import { inject } from "vitest";
import { connectPostgres, fromPGlite, type SqlClient, type SqlParam } from "../shared/db/sql-client.ts";
import { capture, capturing } from "./capture.ts";
import { TEMPLATE_DATABASE } from "./postgres-server.ts";
import { applySchema } from "./schema.ts";

/** Parameters as tests like to write them; sent as untyped text, so PostgreSQL infers each type. */
export type Param = string | number | boolean | null;
export type Row = Record<string, unknown>;

export interface TestDatabase {
  engine: "postgres" | "pglite";
  /** Superuser URL of this file's database (PostgreSQL only). */
  url?: string;
  /** Connected as the superuser; scope it with `asRole`, or use the client with the transports. */
  client: SqlClient;
  /** Runs one statement as the superuser (RLS and column grants do not apply): for fixtures. */
  superuser<R = Row>(sql: string, params?: Param[]): Promise<R[]>;
  /** Records every row's text for the secret canary's scan, then closes the client and drops the database. */
  close(): Promise<void>;
}

/**
 * Every row of every table, as text, into the secret canary's capture (devkit/canary.ts):
 * events, stored messages, deliveries, idempotency answers, credentials (their ciphertext) and the rest.
 */
async function captureRows(client: SqlClient): Promise<void> {
  if (!capturing()) return;
  const dump = await client.transaction(async (session) => {
    const tables = await session.query<{ name: string }>(
      `select format('%I.%I', table_schema, table_name) as name from information_schema.tables
        where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`,
    );
    const parts: string[] = [];
    for (const { name } of tables) {
      const [row] = await session.query<{ dump: string | null }>(
        `select string_agg(t::text, E'\\n') as dump from ${name} t`,
      );
      if (row?.dump) parts.push(`${name}\n${row.dump}`);
    }
    return parts.join("\n");
  });
  capture("database", dump);
}

export type ApiRole = "anon" | "authenticated" | "service_role";

export async function createTestDatabase(): Promise<TestDatabase> {
  const target = inject("database");
  if (target.kind === "postgres") return clonePostgresTemplate(target.adminUrl);

  const { PGlite } = await import("@electric-sql/pglite");
  const pg = await PGlite.create();
  await applySchema((text) => pg.exec(text));
  const client = fromPGlite(pg);
  const close = async () => {
    await captureRows(client);
    await client.close();
  };
  return { engine: "pglite", client, superuser: superuserOf(client), close };
}

async function clonePostgresTemplate(adminUrl: string): Promise<TestDatabase> {
  const name = `t_${randomUUID().replaceAll("-", "")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name} template ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const client = await connectPostgres(url.toString(), { max: 4 });
  const close = async (): Promise<void> => {
    await captureRows(client);
    await client.close();
    const dropper = postgres(adminUrl, { max: 1, onnotice: () => {} });
    try {
      await dropper.unsafe(`drop database if exists ${name} with (force)`);
    } finally {
      await dropper.end({ timeout: 5 });
    }
  };
  return { engine: "postgres", url: url.toString(), client, superuser: superuserOf(client), close };
}

function superuserOf(client: SqlClient): TestDatabase["superuser"] {
  return (sql, params = []) =>
    client.transaction((session) => session.query(sql, params.map(toParam))) as never;
}

/**
 * Runs one statement the way PostgREST would for a request: in a transaction, with `role` and
 * `request.jwt.claims` set locally. Returns the rows, or throws the driver's error (its `code` is
 * the SQLSTATE, e.g. 42501 for a missing privilege or a row-level security violation).
 */
export function asRole<R = Row>(
  db: TestDatabase,
  role: ApiRole,
  claims: Record<string, unknown>,
  sql: string,
  params: Param[] = [],
): Promise<R[]> {
  return db.client.transaction(async (session) => {
    await session.query("select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)", [
      role,
      JSON.stringify(claims),
    ]);
    return session.query<R>(sql, params.map(toParam));
  });
}

/** The SQLSTATE a promise rejects with (fails the test when it resolves). */
export async function sqlState(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string") return code;
    throw error;
  }
  throw new Error("expected the statement to fail, but it succeeded");
}

function toParam(value: Param): SqlParam {
  return value === null ? null : String(value);
}
