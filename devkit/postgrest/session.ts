/**
 * What PostgREST sets at the start of every request's transaction (src/PostgREST/Query/PreQuery.hs
 * `txVarQuery`, v14.17, 064e5fea), all transaction-local: `search_path`, the role's own settings
 * (before the role, so they apply as the login's), `role`, `request.jwt.claims`, `request.method`,
 * `request.path`, `request.headers`, `request.cookies`, the `timezone` preference and, for a
 * function, its own `SET`s last. A read runs in a READ ONLY transaction (Plan.hs: `SQL.Read`).
 *
 * And what Supabase adds: PostgREST logs in as `authenticator` (`statement_timeout` 8 s) and
 * applies each impersonated role's own (anon 3 s, authenticated 8 s; service_role has none, so 8 s
 * stays): https://supabase.com/docs/guides/database/postgres/timeouts ("Role level").
 */
import type { SqlSession } from "../../shared/db/sql-client.ts";

export type Role = "anon" | "authenticated" | "service_role";

/** The `statement_timeout` of each role on a Supabase project; `authenticator` is the session's. */
export const SUPABASE_STATEMENT_TIMEOUTS: Readonly<Record<Role | "authenticator", string | undefined>> = {
  authenticator: "8s",
  anon: "3s",
  authenticated: "8s",
  service_role: undefined,
};

export interface Caller {
  role: Role;
  claims: Record<string, unknown>;
}

export interface SessionOptions {
  readOnly: boolean;
  method: string;
  /** The path PostgREST sees (`/invoices`, `/rpc/einv_…`): Supabase's gateway strips `/rest/v1`. */
  path: string;
  headers: Headers;
  timezone?: string;
  /** A function's own `SET` clauses (`proconfig`). */
  functionSettings?: [string, string][];
}

export async function beginRequest(
  s: SqlSession,
  caller: Caller,
  timeouts: Record<Role | "authenticator", string | undefined>,
  options: SessionOptions,
): Promise<void> {
  if (options.readOnly) await s.query("set transaction read only");
  const headers: Record<string, string> = {};
  let cookies: Record<string, string> = {};
  options.headers.forEach((value, name) => {
    if (name === "cookie") cookies = parseCookies(value);
    else headers[name] = value;
  });
  const settings: [string, string][] = [["search_path", '"public", "extensions"']];
  if (timeouts.authenticator) settings.push(["statement_timeout", timeouts.authenticator]);
  const own = timeouts[caller.role];
  if (own) settings.push(["statement_timeout", own]);
  settings.push(
    ["role", caller.role],
    ["request.jwt.claims", JSON.stringify(caller.claims)],
    ["request.method", options.method],
    ["request.path", options.path],
    ["request.headers", JSON.stringify(headers)],
    ["request.cookies", JSON.stringify(cookies)],
  );
  if (options.timezone) settings.push(["timezone", options.timezone]);
  settings.push(...(options.functionSettings ?? []));
  await s.query(
    `select ${settings.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, true)`).join(", ")}`,
    settings.flat(),
  );
}

function parseCookies(header: string): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at > 0) cookies[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return cookies;
}
