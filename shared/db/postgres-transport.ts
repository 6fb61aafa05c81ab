import { type SqlErrorLike, toDomainError } from "./errors.ts";
import { assertApiName, type Caller, type Db, type DbScope } from "./port.ts";
import type { SqlClient, SqlParam } from "./sql-client.ts";

/**
 * The `postgres` transport: calls database API functions over a direct SQL connection and
 * reproduces what PostgREST does for each request — inside one transaction, `role` is set to
 * `authenticated` or `service_role` and `request.jwt.claims` to the caller's verified claims, so
 * grants and RLS apply exactly as they would behind PostgREST.
 */
export function createPostgresDb(client: SqlClient): Db {
  const scope = (role: "authenticated" | "service_role", claims: Record<string, unknown>): DbScope => ({
    call: async (fn, args) => {
      assertApiName(fn, args);
      const names = Object.keys(args);
      const values = Object.values(args).map(toParam);
      const call = `select public.${fn}(${names.map((n, i) => `${n} => $${i + 1}`).join(", ")}) as result`;
      try {
        return await client.transaction(async (session) => {
          // Sent together: the driver pipelines both statements on the transaction's connection,
          // in this order, saving a round trip per call.
          const [, rows] = await Promise.all([
            session.query("select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)", [
              role,
              JSON.stringify(claims),
            ]),
            session.query<{ result: unknown }>(call, values),
          ]);
          return (rows[0]?.result ?? null) as never;
        });
      } catch (error) {
        throw isSqlError(error) ? toDomainError(error) : error;
      }
    },
  });

  return {
    asUser: (caller: Caller) => scope("authenticated", { ...caller.claims, role: "authenticated" }),
    asService: () => scope("service_role", { role: "service_role" }),
    close: () => client.close(),
  };
}

/**
 * Values go as they are with no declared type, so PostgreSQL takes each one's type from the
 * function signature, as PostgREST's named arguments do, and the driver serialises the value for
 * that type (JSON for jsonb, t/f for boolean). Never pre-serialise: postgres.js would turn the
 * string "true" into false and double-encode JSON text.
 */
function toParam(value: unknown): SqlParam {
  if (value === null || value === undefined) return null;
  if (typeof value === "bigint") return String(value);
  return value as SqlParam;
}

function isSqlError(error: unknown): error is SqlErrorLike {
  return typeof error === "object" && error !== null && typeof (error as SqlErrorLike).code === "string";
}
