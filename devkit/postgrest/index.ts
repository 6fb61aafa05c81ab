/**
 * A stand-in for PostgREST at the network edge, so the `supabase` transport (supabase-js) runs the
 * real SQL in tests. For `POST /rest/v1/rpc/<fn>` it does what PostgREST v14 does, where it matters
 * to us; each behaviour below names the PostgREST source that defines it (tag v14.17, commit
 * 064e5fea7bde63b0424fab53a0109c6f6016e95c; docs/postgrest-stand-in.md says more and lists what
 * differs still):
 *
 * | behaviour                                                                      | PostgREST v14.17 source                                                          |
 * | ------------------------------------------------------------------------------ | -------------------------------------------------------------------------------- |
 * | the function is chosen by name and argument keys before any SQL runs: a key    | src/PostgREST/Plan.hs `findProc` (`matchesParams`: required ⊆ keys ⊆ all);       |
 * | missing or unknown is 404 PGRST202, several matches 300 PGRST203               | src/PostgREST/Error.hs `NoRpc` / `AmbiguousRpc` (status, code, message, details) |
 * | arguments come from the JSON body through `json_to_record(…) as _(name type…)`,| src/PostgREST/Query/QueryBuilder.hs `callPlanToQuery` (`JsonArgs`),             |
 * | so a JSON `null` is SQL NULL whatever the type (jsonb too)                     | src/PostgREST/Query/SqlFragment.hs `fromJsonBodyF`                               |
 * | STABLE and IMMUTABLE functions run in a READ ONLY transaction                  | src/PostgREST/Plan.hs `callReadPlan` (`txMode`), src/PostgREST/MainTx.hs `mainTx`|
 * | before the call: search_path, the role's settings, `role`, `request.jwt.claims`,| src/PostgREST/Query/PreQuery.hs `txVarQuery` (role settings before the role,    |
 * | `request.method`/`path`, then the function's own `SET`s, as transaction-local  | the function's settings last)                                                    |
 * | the body: the scalar as JSON (`json_agg(…)->0`, `null` when none), a set as an  | src/PostgREST/Query/SqlFragment.hs `asJsonSingleF` / `asJsonF`                 |
 * | array; a `void` function answers 204 with no body                              | src/PostgREST/Response.hs `actionResponse` (`funcReturnsVoid` → 204)             |
 * | SQLSTATE → status: 08* 503, 09 500, 0L/0P 403, 23503/23505 409, 25006 405,     | src/PostgREST/Error.hs `pgErrorStatus`                                           |
 * | 25* 500, 28* 403, 40* 500, 53400 500, 53* 503, 57P01 503, 57* 500 (57014),    |                                                                                  |
 * | P0001 400, P0* 500, 42883 404, 42P01 404, 42501 403 (401 as anon), PTnnn nnn,  |                                                                                  |
 * | anything else 400; body `{ code, message, details, hint }`                     | src/PostgREST/Error.hs `instance JSON.ToJSON PgError` (`toJsonPgrstError`)       |
 * | a 401 carries `WWW-Authenticate: Bearer`                                       | src/PostgREST/Error.hs `headers err` (PgError)                                   |
 *
 * And what Supabase adds around PostgREST: the API gateway refuses a request without a known
 * `apikey` (401); PostgREST logs in as `authenticator`, whose `statement_timeout` is 8 s, and applies
 * each impersonated role's own (anon 3 s, authenticated 8 s; service_role has none, so 8 s stays):
 * https://supabase.com/docs/guides/database/postgres/timeouts ("Role level"). Tests may shorten them.
 */
import type { SqlClient, SqlSession } from "../../shared/db/sql-client.ts";
import type { FetchLike } from "../../shared/providers/tax/client.ts";

type Role = "anon" | "authenticated" | "service_role";

/** The `statement_timeout` of each role on a Supabase project; `authenticator` is the session's. */
export const SUPABASE_STATEMENT_TIMEOUTS: Readonly<Record<Role | "authenticator", string | undefined>> = {
  authenticator: "8s",
  anon: "3s",
  authenticated: "8s",
  service_role: undefined,
};

export interface PostgrestOptions {
  client: SqlClient;
  /** The project URL the supabase-js clients are created with. */
  url: string;
  publishableKey: string;
  secretKey: string;
  /** Verifies a user's token and returns its claims (the app's verifier is fine: same keys). */
  verify(token: string): Promise<Record<string, unknown>>;
  /** Overrides of SUPABASE_STATEMENT_TIMEOUTS, so a test can reach a timeout quickly. */
  statementTimeouts?: Partial<Record<Role | "authenticator", string>>;
}

/** One function of `public` as PostgREST's schema cache keeps it (SchemaCache/Routine.hs). */
interface Routine {
  params: { name: string; type: string; required: boolean }[];
  volatility: "i" | "s" | "v";
  returnsVoid: boolean;
  returnsSet: boolean;
  /** Its `SET` clauses (`proconfig`), applied to the transaction as PostgREST does. */
  settings: [string, string][];
}

export function createPostgrestFetch(options: PostgrestOptions): FetchLike {
  const timeouts = { ...SUPABASE_STATEMENT_TIMEOUTS, ...options.statementTimeouts };
  const cache = new Map<string, Routine[]>();

  // The schema cache: every overload of the name. Types are formatted with an empty search_path,
  // so they read the same under the function's own `search_path = ''`.
  async function routines(fn: string): Promise<Routine[]> {
    let found = cache.get(fn);
    if (!found) {
      const rows = await options.client.transaction(async (s) => {
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

  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const match = /^\/rest\/v1\/rpc\/([a-z0-9_]+)$/.exec(url.pathname);
    if (!url.href.startsWith(options.url) || !match?.[1] || request.method !== "POST") {
      throw new Error(`postgrest stand-in: unexpected request ${request.method} ${request.url}`);
    }
    const fn = match[1];
    const apikey = request.headers.get("apikey");
    if (apikey !== options.publishableKey && apikey !== options.secretKey) {
      return json(401, { message: "Invalid API key" });
    }
    const bearer = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
    let role: Role = "anon";
    let claims: Record<string, unknown> = { role: "anon" };
    if (bearer === options.secretKey) {
      role = "service_role";
      claims = { role: "service_role" };
    } else if (bearer && bearer !== options.publishableKey) {
      try {
        claims = await options.verify(bearer);
        role = String(claims.role ?? "authenticated") as Role;
      } catch {
        return json(
          401,
          { code: "PGRST301", message: "JWT could not be verified", details: null, hint: null },
          { "WWW-Authenticate": "Bearer" },
        );
      }
    }

    // Plan.hs findProc: by name and argument keys, before any SQL of the request runs.
    const args = (await request.json()) as Record<string, unknown>;
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
      return json(404, {
        code: "PGRST202",
        message: `Could not find the function public.${fn}${listed} in the schema cache`,
        details: `Searched for the function public.${fn}${searched} or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.`,
        hint: null,
      });
    }
    if (candidates.length > 1) {
      return json(300, {
        code: "PGRST203",
        message: `Could not choose the best candidate function between: public.${fn}`,
        details: null,
        hint: "Try renaming the parameters or the function itself in the database so function overloading can be resolved",
      });
    }

    try {
      const body = await options.client.transaction(async (s) => {
        if (routine.volatility !== "v") await s.query("set transaction read only");
        await setTransactionVariables(s, fn, role, claims, routine);
        const [row] = await s.query<{ body: string }>(
          callStatement(fn, routine, keys),
          keys.length ? [args] : [],
        );
        return row?.body ?? "null";
      });
      if (routine.returnsVoid) return new Response(null, { status: 204 });
      return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
    } catch (error) {
      const e = error as { code?: string; message?: string; detail?: string; hint?: string };
      const status = pgErrorStatus(e.code ?? "", role !== "anon");
      return json(
        status,
        { code: e.code, message: e.message, details: e.detail ?? null, hint: e.hint ?? null },
        status === 401 ? { "WWW-Authenticate": "Bearer" } : {},
      );
    }
  };

  // PreQuery.hs txVarQuery: the role's settings before the role (the session's, authenticator's,
  // stand in for the login), then the claims and the request, then the function's own settings.
  async function setTransactionVariables(
    s: SqlSession,
    fn: string,
    role: Role,
    claims: Record<string, unknown>,
    routine: Routine,
  ): Promise<void> {
    const settings: [string, string][] = [["search_path", '"public", "extensions"']];
    if (timeouts.authenticator) settings.push(["statement_timeout", timeouts.authenticator]);
    if (timeouts[role]) settings.push(["statement_timeout", timeouts[role]]);
    settings.push(
      ["role", role],
      ["request.jwt.claims", JSON.stringify(claims)],
      ["request.method", "POST"],
      ["request.path", `/rpc/${fn}`],
      ...routine.settings,
    );
    await s.query(
      `select ${settings.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, true)`).join(", ")}`,
      settings.flat(),
    );
  }
}

/**
 * QueryBuilder.hs callPlanToQuery: the arguments as the columns of `json_to_record` over the body,
 * passed by name; the result through `json_agg` as SqlFragment.hs asJsonSingleF/asJsonF build it.
 * Names come from the catalogue query and match `[a-z0-9_]` (the route's pattern and `p_…`).
 */
function callStatement(fn: string, routine: Routine, keys: string[]): string {
  // only the keys the caller sent are read (Plan.hs `callPlan`, `specifiedParams`): the rest take their defaults
  const named = routine.params.filter((p) => keys.includes(p.name));
  const from =
    named.length === 0
      ? `(select public.${fn}() pgrst_scalar) pgrst_call`
      : `jsonb_to_record($1::jsonb) as _(${named.map((p) => `"${p.name}" ${p.type}`).join(", ")}), ` +
        `lateral (select public.${fn}(${named.map((p) => `"${p.name}" := _."${p.name}"`).join(", ")}) pgrst_scalar) pgrst_call`;
  const agg = routine.returnsSet
    ? "coalesce(json_agg(pgrst_call.pgrst_scalar), '[]')"
    : "coalesce(json_agg(pgrst_call.pgrst_scalar) -> 0, 'null')";
  return `select ${agg}::text as body from ${from}`;
}

/** Error.hs pgErrorStatus, for the SQLSTATEs of a query's error (`authed`: the role is not anon). */
export function pgErrorStatus(code: string, authed: boolean): number {
  const exact: Record<string, number> = {
    "23503": 409,
    "23505": 409,
    "25006": 405,
    // cardinality_violation; PostgREST answers 400 when pg-safeupdate wrote it, which we do not use
    "21000": 500,
    "53400": 500,
    "57P01": 503,
    P0001: 400,
    "42883": 404,
    "42P01": 404,
    "42P17": 500,
    "42501": authed ? 403 : 401,
  };
  if (exact[code] !== undefined) return exact[code];
  const pt = /^PT(\d{3})$/.exec(code)?.[1];
  if (pt) return Number(pt);
  const byClass: [string, number][] = [
    ["08", 503],
    ["09", 500],
    ["0L", 403],
    ["0P", 403],
    ["25", 500],
    ["28", 403],
    ["2D", 500],
    ["38", 500],
    ["39", 500],
    ["3B", 500],
    ["40", 500],
    ["53", 503],
    ["54", 500],
    ["55", 500],
    ["57", 500],
    ["58", 500],
    ["F0", 500],
    ["HV", 500],
    ["P0", 500],
    ["XX", 500],
  ];
  return byClass.find(([prefix]) => code.startsWith(prefix))?.[1] ?? 400;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
