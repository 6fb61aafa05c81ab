/**
 * A minimal SQL client the `postgres` transport runs on: one transaction at a time, positional
 * parameters, rows back. Implemented over postgres.js (a PostgreSQL URL) and PGlite (embedded).
 */
import type postgres from "postgres";
import { lifoPool } from "./lifo-pool.ts";

/**
 * A parameter, typed by the statement's context and serialised by the driver: a JSON object or
 * array for a `json`/`jsonb` parameter (never JSON text), a boolean for `boolean`, and so on.
 */
export type SqlParam = string | number | boolean | null | Record<string, unknown> | unknown[];

export interface SqlSession {
  query<Row = Record<string, unknown>>(
    text: string,
    params?: SqlParam[],
    options?: QueryOptions,
  ): Promise<Row[]>;
}

export interface QueryOptions {
  /**
   * Every parameter is sent as text of type `unknown` (OID 705), as PostgREST's driver (hasql's
   * `Encoders.unknown`) sends a filter's value: PostgreSQL types it from where it stands and parses
   * the text with that type's input function, and the driver leaves the text as it is.
   */
  unknownTypes?: boolean;
}

/** The `unknown` pseudo-type's OID. */
const UNKNOWN_OID = 705;

export interface SqlClient {
  /** Runs a script of several statements without parameters (migrations, seeds). */
  exec(script: string): Promise<void>;
  /**
   * Runs several parameterless statements in one round trip (the simple query protocol), as one
   * implicit transaction, and returns the rows of the last one. Values must be spliced in with
   * `sqlLiteral`.
   */
  script<Row = Record<string, unknown>>(statements: string): Promise<Row[]>;
  transaction<T>(work: (session: SqlSession) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * postgres.js over a PostgreSQL URL (also the Supabase transaction pooler: no prepared statements),
 * up to `max` connections, the most recently used idle one first (./lifo-pool.ts). The driver is
 * imported on first use, so it costs nothing at a function's cold start.
 */
export async function connectPostgres(
  url: string,
  options: {
    max?: number;
    /**
     * false: postgres.js does not read the database's array types on each new connection (a catalog
     * query and a round trip, ~15 ms of a cold instance's first call). Only for a client whose
     * statements send no array parameters and read no array columns: the `postgres` transport, which
     * splices its values into the text and reads one `jsonb` per call (./postgres-transport.ts).
     */
    arrayTypes?: boolean;
  } = {},
): Promise<SqlClient> {
  let driver: Promise<typeof postgres> | undefined;
  const load = () => {
    driver ??= import("postgres").then((m) => m.default);
    return driver;
  };
  // errors a transaction's work threw itself, not the driver: they say nothing of the connection
  const workErrors = new WeakSet<object>();
  // each connection is a postgres.js client of one connection, so that the pool decides which runs
  const pool = lifoPool<{ sql: Promise<postgres.Sql> }>({
    open: () => ({
      sql: load().then((connect) =>
        connect(url, {
          max: 1,
          prepare: false,
          onnotice: () => {},
          fetch_types: options.arrayTypes ?? true,
          // closes a connection idle this long, one a replaced client reconnected for its queued calls
          // included (postgres.js reconnects for those, out of the pool's sight)
          idle_timeout: 60,
          connection: { application_name: "einvoicing" },
        }),
      ),
    }),
    // calls it has sent or queued may still finish (postgres.js reconnects for them); then it ends
    close: async ({ sql }) => (await sql).end({ timeout: 5 }),
    broken: (error) => !workErrors.has(error as object) && connectionLost(error),
    unavailable: (reason) =>
      Object.assign(new Error(`no database connection: the client is ${reason}`), {
        code: reason === "closed" ? "CONNECTION_ENDED" : "CONNECTION_CLOSED",
      }),
    max: options.max ?? 10,
  });
  const simple = (text: string) => pool.use(async ({ sql }) => (await sql).unsafe(text).simple());
  return {
    exec: async (script) => {
      await simple(script);
    },
    script: async (statements) => {
      const results = (await simple(statements)) as unknown[];
      // one statement: its rows; several: one array of rows per statement
      return (Array.isArray(results[0]) ? results.at(-1) : results) as never;
    },
    transaction: (work) =>
      pool.use(async ({ sql }) =>
        (await sql).begin((tx) => {
          const fromDriver = new WeakSet<object>();
          const mark = (set: WeakSet<object>, error: unknown) => {
            if (typeof error === "object" && error !== null) set.add(error);
            throw error;
          };
          return work({
            query: async (text, params = [], queryOptions = {}) => {
              const values = queryOptions.unknownTypes
                ? params.map((p) => (p === null ? p : tx.typed(String(p) as never, UNKNOWN_OID)))
                : params;
              return (await tx
                .unsafe(text, values as never[])
                .catch((e: unknown) => mark(fromDriver, e))) as never;
            },
          }).catch((error: unknown) =>
            fromDriver.has(error as object) ? Promise.reject(error) : mark(workErrors, error),
          );
        }),
      ) as never,
    close: () => pool.close(),
  };
}

/**
 * Whether an error means the connection may be gone: anything but an error the server reported for
 * a statement (severity ERROR, e.g. a constraint or a function's own `raise`) or one the driver
 * raised before sending anything (a value it cannot serialise) — a socket error, one of
 * postgres.js's connection errors, a FATAL (terminated, shutting down, refused, too many clients). Such a connection is replaced rather than used again: postgres.js keeps the failed query
 * attached to it, and a client of one connection then never answers again (porsager/postgres#1130).
 */
export function connectionLost(error: unknown): boolean {
  if (isPostgresError(error)) return (error as { severity?: unknown }).severity !== "ERROR";
  // refused by the driver before anything was sent: a value it cannot serialise, too many parameters
  if (error instanceof TypeError || error instanceof RangeError) return false;
  const code = (error as { code?: unknown } | null)?.code;
  return !(typeof code === "string" && DRIVER_REFUSALS.has(code));
}
/** postgres.js's own errors that say nothing of the connection. */
const DRIVER_REFUSALS = new Set(["UNDEFINED_VALUE", "MAX_PARAMETERS_EXCEEDED", "NOT_TAGGED_CALL"]);

/** An error the server sent (postgres.js's PostgresError): a SQLSTATE and a severity. */
function isPostgresError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  return typeof severity === "string" && typeof code === "string" && /^[0-9A-Z]{5}$/.test(code);
}

/** The subset of PGlite this module uses, so that callers can pass an instance they created. */
export interface PGliteLike {
  exec(script: string): Promise<{ rows: unknown[] }[]>;
  transaction<T>(
    work: (tx: {
      query<R>(text: string, params?: unknown[], options?: { paramTypes?: number[] }): Promise<{ rows: R[] }>;
    }) => Promise<T>,
  ): Promise<T>;
  close(): Promise<void>;
}

/** An embedded PGlite database; PGlite runs one transaction at a time and queues the rest. */
export function fromPGlite(pg: PGliteLike): SqlClient {
  return {
    exec: async (script) => {
      await pg.exec(script);
    },
    script: async (statements) => ((await pg.exec(statements)).at(-1)?.rows ?? []) as never,
    transaction: (work) =>
      pg.transaction((tx) =>
        work({
          query: async (text, params, queryOptions) =>
            (
              await tx.query(
                text,
                params,
                queryOptions?.unknownTypes
                  ? { paramTypes: (params ?? []).map(() => UNKNOWN_OID) }
                  : undefined,
              )
            ).rows as never,
        }),
      ),
    close: () => pg.close(),
  };
}

/**
 * A value as an SQL literal for `script`: an escape string (E'...'), whose meaning does not depend
 * on `standard_conforming_strings`, with quotes and backslashes escaped; untyped, so PostgreSQL
 * takes its type from where it is used. Objects and arrays become JSON text.
 */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return "null";
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  if (text.includes("\0")) throw new RangeError("text with a NUL character cannot be sent to PostgreSQL");
  return `E'${text.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}
