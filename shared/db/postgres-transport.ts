import { assertApiName, type Caller, type Db, type DbScope } from "../ports/db/port.ts";
import { type SqlErrorLike, toDomainError } from "./errors.ts";
import { type SqlClient, sqlLiteral } from "./sql-client.ts";

/**
 * The `postgres` transport: calls database API functions over a direct SQL connection and
 * reproduces what PostgREST does for each request — inside one transaction, `role` is set to
 * `authenticated` or `service_role` and `request.jwt.claims` to the caller's verified claims, so
 * grants and RLS apply exactly as they would behind PostgREST. Values travel as escaped literals
 * (`sqlLiteral`) of unknown type, so PostgreSQL takes each one's type from the function signature,
 * as PostgREST's named arguments do; function and argument names are checked by `assertApiName`.
 */
export function createPostgresDb(client: SqlClient): Db {
  const scope = (role: "authenticated" | "service_role", claims: Record<string, unknown>): DbScope => ({
    call: async (fn, args) => {
      assertApiName(fn, args);
      const named = Object.entries(args).map(([name, value]) => `${name} => ${sqlLiteral(value)}`);
      try {
        // One round trip: both statements run as one implicit transaction, so the role and claims
        // set here apply to the call and end with it. The call's privileges are checked when it
        // starts, after the role is set. Not `set local …`: pg_stat_statements keeps the constants
        // of utility statements, so every caller's claims would be stored as a statement of its own.
        const rows = await client.script<{ result: unknown }>(
          `select set_config('role', '${role}', true), set_config('request.jwt.claims', ${sqlLiteral(claims)}, true);` +
            `select public.${fn}(${named.join(", ")}) as result`,
        );
        return (rows[0]?.result ?? null) as never;
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

function isSqlError(error: unknown): error is SqlErrorLike {
  return typeof error === "object" && error !== null && typeof (error as SqlErrorLike).code === "string";
}
