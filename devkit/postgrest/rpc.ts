/**
 * `POST /rest/v1/rpc/<fn>` as PostgREST v14.17 (064e5fea) serves it, where it matters to us:
 *
 * | behaviour                                                                       | PostgREST v14.17 source                                                          |
 * | ------------------------------------------------------------------------------- | -------------------------------------------------------------------------------- |
 * | the function is chosen by name and argument keys before any SQL runs: a key     | src/PostgREST/Plan.hs `findProc` (`matchesParams`: required ⊆ keys ⊆ all);       |
 * | missing or unknown is 404 PGRST202, several matches 300 PGRST203                | src/PostgREST/Error.hs `NoRpc` / `AmbiguousRpc` (status, code, message, details) |
 * | arguments come from the JSON body through `json_to_record(…) as _(name type…)`, | src/PostgREST/Query/QueryBuilder.hs `callPlanToQuery` (`JsonArgs`),              |
 * | so a JSON `null` is SQL NULL whatever the type (jsonb too)                      | src/PostgREST/Query/SqlFragment.hs `fromJsonBodyF`                               |
 * | STABLE and IMMUTABLE functions run in a READ ONLY transaction                   | src/PostgREST/Plan.hs `callReadPlan` (`txMode`), src/PostgREST/MainTx.hs `mainTx`|
 * | the function's own `SET`s are applied last (./session.ts)                       | src/PostgREST/Query/PreQuery.hs `txVarQuery`                                     |
 * | the body: the scalar as JSON (`json_agg(…)->0`, `null` when none), a set as an  | src/PostgREST/Query/SqlFragment.hs `asJsonSingleF` / `asJsonF`                   |
 * | array; a `void` function answers 204 with no body                               | src/PostgREST/Response.hs `actionResponse` (`funcReturnsVoid` → 204)             |
 *
 * Not imitated (docs/postgrest-stand-in.md): GET and HEAD calls, filters or `select` on a function's
 * result, single unnamed parameters, `Prefer` on calls: each is answered PGRST127.
 */
import type { SqlClient } from "../../shared/db/sql-client.ts";
import { errors, PgrstError, pgError } from "./errors.ts";
import { beginRequest, type Caller, type Role } from "./session.ts";
import { ident } from "./sql.ts";

/** One function of `public` as PostgREST's schema cache keeps it (SchemaCache/Routine.hs). */
interface Routine {
  params: { name: string; type: string; required: boolean }[];
  volatility: "i" | "s" | "v";
  returnsVoid: boolean;
  returnsSet: boolean;
  /** Its `SET` clauses (`proconfig`), applied to the transaction as PostgREST does. */
  settings: [string, string][];
}

export interface RpcContext {
  client: SqlClient;
  timeouts: Record<Role | "authenticator", string | undefined>;
}

export function createRpc(ctx: RpcContext) {
  const cache = new Map<string, Routine[]>();

  // The schema cache: every overload of the name. Types are formatted with an empty search_path,
  // so they read the same under the function's own `search_path = ''`.
  async function routines(fn: string): Promise<Routine[]> {
    let found = cache.get(fn);
    if (!found) {
      const rows = await ctx.client.transaction(async (s) => {
        await s.query("select set_config('search_path', '', true)");
        return s.query<{
          names: string[] | null;
          types: string[];
          defaults: number;
          volatility: Routine["volatility"];
          returns_void: boolean;
          returns_set: boolean;
          config: string[] | null;
        }>(
          `select p.proargnames as names, array(select format_type(t, null) from unnest(p.proargtypes) t) as types,
                  p.pronargdefaults as defaults, p.provolatile as volatility,
                  p.prorettype = 'pg_catalog.void'::pg_catalog.regtype as returns_void, p.proretset as returns_set,
                  p.proconfig as config
             from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
            where n.nspname = 'public' and p.proname = $1 and p.prokind = 'f'`,
          [fn],
        );
      });
      found = rows.map((row) => ({
        params: row.types.map((type, i) => ({
          name: row.names?.[i] ?? "",
          type,
          required: i < row.types.length - row.defaults,
        })),
        volatility: row.volatility,
        returnsVoid: row.returns_void,
        returnsSet: row.returns_set,
        settings: (row.config ?? []).map((entry) => {
          const at = entry.indexOf("=");
          return [entry.slice(0, at), entry.slice(at + 1)] as [string, string];
        }),
      }));
      cache.set(fn, found);
    }
    return found;
  }

  return async function call(request: Request, fn: string, caller: Caller, body: string): Promise<Response> {
    if (request.method !== "POST") {
      if (["GET", "HEAD"].includes(request.method)) {
        throw errors.notImplemented("the stand-in calls functions with POST only");
      }
      throw errors.invalidRpcMethod(request.method);
    }
    if (new URL(request.url).search !== "") {
      throw errors.notImplemented("the stand-in takes no query parameters on a function call");
    }
    let args: Record<string, unknown>;
    try {
      const parsed = body === "" ? {} : JSON.parse(body);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
        throw new Error("not an object");
      args = parsed;
    } catch {
      throw errors.invalidBody("Empty or invalid json");
    }
    // Plan.hs findProc: by name and argument keys, before any SQL of the request runs.
    const keys = Object.keys(args).sort();
    const candidates = (await routines(fn)).filter((routine) => {
      const names = routine.params.map((p) => p.name);
      return (
        keys.every((key) => names.includes(key)) &&
        routine.params.every((p) => !p.required || keys.includes(p.name))
      );
    });
    const routine = candidates[0];
    if (!routine) {
      const listed = keys.length === 0 ? " without parameters" : `(${keys.join(", ")})`;
      const searched =
        keys.length === 0
          ? " without parameters"
          : ` with parameter${keys.length > 1 ? "s" : ""} ${keys.join(", ")}`;
      throw new PgrstError(404, {
        code: "PGRST202",
        message: `Could not find the function public.${fn}${listed} in the schema cache`,
        details: `Searched for the function public.${fn}${searched} or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.`,
        hint: null,
      });
    }
    if (candidates.length > 1) {
      throw new PgrstError(300, {
        code: "PGRST203",
        message: `Could not choose the best candidate function between: public.${fn}`,
        details: null,
        hint: "Try renaming the parameters or the function itself in the database so function overloading can be resolved",
      });
    }

    try {
      const result = await ctx.client.transaction(async (s) => {
        await beginRequest(s, caller, ctx.timeouts, {
          readOnly: routine.volatility !== "v",
          method: "POST",
          path: `/rpc/${fn}`,
          headers: request.headers,
          functionSettings: routine.settings,
        });
        const [row] = await s.query<{ body: string }>(
          callStatement(fn, routine, keys),
          keys.length ? [args] : [],
        );
        return row?.body ?? "null";
      });
      if (routine.returnsVoid) return new Response(null, { status: 204 });
      return new Response(result, {
        status: 200,
        headers: { "content-type": "application/json; charset=utf-8" },
      });
    } catch (error) {
      const e = error as { code?: unknown };
      if (typeof e?.code === "string") throw pgError(error as never, caller.role !== "anon");
      throw error;
    }
  };
}

/**
 * QueryBuilder.hs callPlanToQuery: the arguments as the columns of `json_to_record` over the body,
 * passed by name; the result through `json_agg` as SqlFragment.hs asJsonSingleF/asJsonF build it.
 * Names come from the catalogue query (the function was found by its name), quoted.
 */
function callStatement(fn: string, routine: Routine, keys: string[]): string {
  // only the keys the caller sent are read (Plan.hs `callPlan`, `specifiedParams`): the rest take their defaults
  const named = routine.params.filter((p) => keys.includes(p.name));
  const from =
    named.length === 0
      ? `(select "public".${ident(fn)}() pgrst_scalar) pgrst_call`
      : `jsonb_to_record($1::jsonb) as _(${named.map((p) => `${ident(p.name)} ${p.type}`).join(", ")}), ` +
        `lateral (select "public".${ident(fn)}(${named.map((p) => `${ident(p.name)} := _.${ident(p.name)}`).join(", ")}) pgrst_scalar) pgrst_call`;
  const agg = routine.returnsSet
    ? "coalesce(json_agg(pgrst_call.pgrst_scalar), '[]')"
    : "coalesce(json_agg(pgrst_call.pgrst_scalar) -> 0, 'null')";
  return `select ${agg}::text as body from ${from}`;
}
