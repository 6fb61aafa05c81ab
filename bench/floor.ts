/**
 * The floor of /transmit of one invoice: a bare handler making the SQL round trips that call makes —
 * two, the claim (as the caller) and the outcome record (as the service) — each one script in the
 * `postgres` transport's shape (shared/db/postgres-transport.ts): role and claims set for the
 * transaction, then one statement that updates a row and returns it, committed as the call's is.
 * In-process in ./run.ts; in a Deno server under load (./bare-hono-sql.ts with FLOOR=transmit, run by ./load.ts).
 */
import { sqlLiteral } from "../shared/db/sql-client.ts";

/** Rows the floor's writes are spread over (by a counter): 64 connections rarely meet on one. */
const ROWS = 10_000;
const TABLE = "public.bench_floor";

/** Creates the floor's table, writable by the transport's two roles (run as the superuser). */
export const FLOOR_SETUP = `create table if not exists ${TABLE} (id int primary key, n bigint not null default 0);
insert into ${TABLE} (id) select generate_series(0, ${ROWS - 1}) on conflict do nothing;
grant select, update on ${TABLE} to authenticated, service_role;`;

// a caller's claims as a verified token carries them, and the service's
const CALLER = {
  sub: "00000000-0000-4000-8000-000000000001",
  role: "authenticated",
  aud: "authenticated",
  iss: "http://127.0.0.1/auth/v1",
  email: "floor@bench.test",
  exp: 4_102_444_800,
  iat: 1_700_000_000,
};
const CALLS = [
  { role: "authenticated", claims: sqlLiteral(CALLER) },
  { role: "service_role", claims: sqlLiteral({ role: "service_role" }) },
] as const;

/** One call's script: the transport's preamble, then a write of row `row` returning it. */
const callScript = (call: (typeof CALLS)[number], row: number) =>
  `select set_config('role', '${call.role}', true), set_config('request.jwt.claims', ${call.claims}, true);` +
  `update ${TABLE} set n = n + 1 where id = ${row} returning id, n`;

/** /transmit's round trips on `script` (a SqlClient's), one after the other, each on the next row. */
export function transmitRoundTrips(script: (statements: string) => Promise<unknown>): () => Promise<void> {
  let next = 0;
  return async () => {
    for (const call of CALLS) await script(callScript(call, next++ % ROWS));
  };
}
