/**
 * The `Db` port: every read and state change goes through a database API function (a SQL function
 * in `public`, prefixed `einv_`; the catalogue is ./catalogue.ts, the rows ./rows.ts). Two
 * transports implement it — supabase-js (`rpc`) and a direct SQL connection — and both must behave
 * the same, which `tests/db/contract.test.ts` checks.
 */
import type { ApiFunctionName, ApiFunctions } from "./catalogue.ts";

export type { ApiFunctionName, ApiFunctions } from "./catalogue.ts";

/** The verified identity of the caller, as the database sees it through `request.jwt.claims`. */
export interface Caller {
  /** The raw bearer token, forwarded as is by the supabase transport. */
  accessToken: string;
  /** The verified claims; `sub` is the user id. */
  claims: Record<string, unknown> & { sub: string };
}

/** A database session acting as one role: the caller (RLS applies) or the service. */
export interface DbScope {
  call<F extends ApiFunctionName>(fn: F, args: ApiFunctions[F]["args"]): Promise<ApiFunctions[F]["result"]>;
}

export interface Db {
  /** Acts as the signed-in user: `authenticated` role, the caller's claims, RLS in force. */
  asUser(caller: Caller): DbScope;
  /** Acts as the service: `service_role`. Callers check org ownership themselves. */
  asService(): DbScope;
  close(): Promise<void>;
}

const FUNCTION_NAME = /^einv_[a-z0-9_]+$/;
const ARGUMENT_NAME = /^p_[a-z0-9_]+$/;

/** Guards the names a transport splices into SQL or a URL; both come from code, never from input. */
export function assertApiName(fn: string, args: Record<string, unknown>): void {
  if (!FUNCTION_NAME.test(fn)) throw new Error(`not a database API function: ${fn}`);
  for (const name of Object.keys(args)) {
    if (!ARGUMENT_NAME.test(name)) throw new Error(`not a database API argument: ${name}`);
  }
}
