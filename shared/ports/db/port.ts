/**
 * The `Db` port: every read and state change goes through a database API function (a SQL function
 * in `public`, prefixed `einv_`; the catalogue is ./catalogue.ts, the rows ../../kernel/rows.ts). Two
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
  /**
   * Only on the service scope behind a request's membership gate (shared/http/authorize.ts); the
   * way to it is `callAuthorized()` below.
   */
  callAuthorized?<F extends AuthorizedFunctionName>(
    fn: F,
    args: ApiFunctions[Wrapped<F>]["args"],
  ): Promise<ApiFunctions[Wrapped<F>]["result"]>;
}

/** The `_authorized` functions: each makes the call its name ends before, only for a member. */
export type AuthorizedFunctionName = Extract<ApiFunctionName, `${string}_authorized`>;

/** The call an `_authorized` function makes. */
export type Wrapped<F extends AuthorizedFunctionName> = F extends `${infer Call}_authorized`
  ? Call & ApiFunctionName
  : never;

/**
 * `fn`, an `_authorized` function, with the arguments of the call it wraps. Behind a request's gate
 * whose membership check is still to be made, the gate makes `fn` with the caller's id and the
 * route's roles — the check and the call in one round trip — and answers the call's result. Any
 * other scope (the membership checked already, the reconcile job's) makes the wrapped call itself.
 */
export function callAuthorized<F extends AuthorizedFunctionName>(
  scope: DbScope,
  fn: F,
  args: ApiFunctions[Wrapped<F>]["args"],
): Promise<ApiFunctions[Wrapped<F>]["result"]> {
  return scope.callAuthorized ? scope.callAuthorized(fn, args) : scope.call(wrapped(fn), args);
}

/** `einv_x_authorized` → `einv_x`. */
export function wrapped<F extends AuthorizedFunctionName>(fn: F): Wrapped<F> {
  return fn.slice(0, -"_authorized".length) as Wrapped<F>;
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
