/**
 * A stand-in for PostgREST at the network edge, so the `supabase` transport (supabase-js) runs
 * the real SQL in tests. It does for `POST /rest/v1/rpc/<fn>` what PostgREST does: maps the keys
 * and the bearer token to a role, sets `role` and `request.jwt.claims` in a transaction, calls the
 * function with named arguments cast to their declared types, and answers errors the way PostgREST
 * does (`{ code, message, details, hint }`, 400/401/403/404).
 */
import type { SqlClient } from "../../shared/db/sql-client.ts";
import type { FetchLike } from "../../shared/providers/tax-client.ts";

export interface PostgrestOptions {
  client: SqlClient;
  /** The project URL the supabase-js clients are created with. */
  url: string;
  publishableKey: string;
  secretKey: string;
  /** Verifies a user's token and returns its claims (the app's verifier is fine: same keys). */
  verify(token: string): Promise<Record<string, unknown>>;
}

export function createPostgrestFetch(options: PostgrestOptions): FetchLike {
  const signatures = new Map<string, { names: string[]; types: string[] }>();

  async function signature(fn: string) {
    let found = signatures.get(fn);
    if (!found) {
      const rows = await options.client.transaction((s) =>
        s.query<{ names: string[] | null; types: string[] }>(
          `select p.proargnames as names, array(select format_type(t, null) from unnest(p.proargtypes) t) as types
             from pg_proc p join pg_namespace n on n.oid = p.pronamespace
            where n.nspname = 'public' and p.proname = $1`,
          [fn],
        ),
      );
      if (!rows[0]) return undefined;
      found = { names: rows[0].names ?? [], types: rows[0].types };
      signatures.set(fn, found);
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
    let role = "anon";
    let claims: Record<string, unknown> = { role: "anon" };
    if (bearer === options.secretKey) {
      role = "service_role";
      claims = { role: "service_role" };
    } else if (bearer && bearer !== options.publishableKey) {
      try {
        claims = await options.verify(bearer);
        role = String(claims.role ?? "authenticated");
      } catch {
        return json(401, {
          code: "PGRST301",
          message: "JWT could not be verified",
          details: null,
          hint: null,
        });
      }
    }

    const sig = await signature(fn);
    if (!sig) {
      return json(404, {
        code: "PGRST202",
        message: `Could not find the function public.${fn}`,
        details: null,
        hint: null,
      });
    }
    const args = (await request.json()) as Record<string, unknown>;
    const unknownArg = Object.keys(args).find((name) => !sig.names.includes(name));
    if (unknownArg) {
      return json(404, {
        code: "PGRST202",
        message: `No function public.${fn}(${unknownArg})`,
        details: null,
        hint: null,
      });
    }
    const named = Object.keys(args).map((name) => {
      const type = sig.types[sig.names.indexOf(name)] ?? "text";
      const value =
        type === "jsonb" || type === "json" ? `($1::jsonb -> '${name}')` : `($1::jsonb ->> '${name}')`;
      return `${name} => ${value}::${type}`;
    });
    try {
      const rows = await options.client.transaction(async (s) => {
        await s.query("select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)", [
          role,
          JSON.stringify(claims),
        ]);
        return s.query<{ result: unknown }>(`select public.${fn}(${named.join(", ")}) as result`, [args]);
      });
      return json(200, rows[0]?.result ?? null);
    } catch (error) {
      const e = error as { code?: string; message?: string; detail?: string; hint?: string };
      const status = e.code === "42501" ? (role === "anon" ? 401 : 403) : e.code === "P0001" ? 400 : 400;
      return json(status, {
        code: e.code,
        message: e.message,
        details: e.detail ?? null,
        hint: e.hint ?? null,
      });
    }
  };
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}
