/**
 * How the catalogue (./catalogue.ts) declares a database API function: its grantee, its arguments
 * in order with their types, and its result, as one value whose run-time part is the grantee and
 * the argument names and whose types the transports are called with.
 */
declare const argumentType: unique symbol;
export declare const signature: unique symbol;

/** One argument of a function: its name is its key in the function's list, its type `T`. */
interface Arg<T> {
  readonly [argumentType]: T;
}

/** An argument of type `T`; nothing at run time but its place in the list. */
export const arg = <T>(): Arg<T> => ({}) as Arg<T>;
export const str = arg<string>();
export const num = arg<number>();
export const bool = arg<boolean>();

type Grantee = "authenticated" | "service_role";

/** A database API function: at run time its grantee and argument names; for the compiler its types. */
export interface ApiFunction<Args, Result> {
  role: Grantee;
  /** The argument names, in the function's order. */
  args: readonly string[];
  readonly [signature]: { args: Args; result: Result };
}

type ArgTypes<A> = { [K in keyof A]: A[K] extends Arg<infer T> ? T : never };

/** `service({ p_x: str, … }).returns<R>()`: a function granted to `service_role`. */
const grantedTo =
  (role: Grantee) =>
  <A extends Record<string, Arg<unknown>>>(args: A) => ({
    returns: <R>() => ({ role, args: Object.keys(args) }) as unknown as ApiFunction<ArgTypes<A>, R>,
  });
export const service = grantedTo("service_role");
export const authenticated = grantedTo("authenticated");
