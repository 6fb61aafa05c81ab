/**
 * PostgREST's errors, as src/PostgREST/Error.hs (v14.17, 064e5fea) writes them: a status, and a body
 * `{ code, message, details, hint }` (`toJsonPgrstError`); every error answer also carries
 * `Proxy-Status: PostgREST; error=<code>` (`proxyStatusHeader`, `instance PgrstError Error`). The
 * messages are PostgREST's own words; where PostgREST computes a guess ("Perhaps you meant …"), the
 * stand-in answers `hint: null` (docs/postgrest-stand-in.md lists it).
 */

export interface PgrstErrorBody {
  code: string;
  message: string;
  /** A sentence; for PGRST201, the candidate relationships (`compressedRel`). */
  details: string | Record<string, string>[] | null;
  hint: string | null;
}

/** An answer PostgREST gives instead of running (or after rolling back) a request. */
export class PgrstError extends Error {
  override name = "PgrstError";
  constructor(
    readonly status: number,
    readonly body: PgrstErrorBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.message);
  }
}

const error = (
  status: number,
  code: string,
  message: string,
  details: string | null = null,
  hint: string | null = null,
) => new PgrstError(status, { code, message, details, hint });

/** `instance ErrorBody ApiRequestError` and `instance ErrorBody SchemaCacheError`, code by code. */
export const errors = {
  /** PGRST100: a query parameter PostgREST's parser refused (`QueryParamError`). */
  queryParam: (message: string, details: string) => error(400, "PGRST100", message, details),
  invalidRpcMethod: (method: string) => error(405, "PGRST101", `Cannot use the ${method} method on RPC`),
  invalidBody: (message: string) => error(400, "PGRST102", message),
  invalidRange: (details: string) => error(416, "PGRST103", "Requested range not satisfiable", details),
  invalidFilters: () =>
    error(405, "PGRST105", "Filters must include all and only primary key columns with 'eq' operators"),
  unacceptableSchema: (schema: string) =>
    error(
      406,
      "PGRST106",
      `Invalid schema: ${schema}`,
      null,
      "Only the following schemas are exposed: public",
    ),
  mediaType: (mimes: string[]) =>
    error(406, "PGRST107", `None of these media types are available: ${mimes.join(", ")}`),
  notEmbedded: (resource: string) =>
    error(
      400,
      "PGRST108",
      `'${resource}' is not an embedded resource in this request`,
      null,
      `Verify that '${resource}' is included in the 'select' query parameter.`,
    ),
  putLimit: () => error(400, "PGRST114", "limit/offset querystring parameters are not allowed for PUT"),
  putMatchingPk: () => error(400, "PGRST115", "Payload values do not match URL in primary key column(s)"),
  singularity: (rows: number) =>
    error(
      406,
      "PGRST116",
      "Cannot coerce the result to a single JSON object",
      `The result contains ${rows} rows`,
    ),
  unsupportedMethod: (method: string) => error(405, "PGRST117", `Unsupported HTTP method: ${method}`),
  relatedOrderNotToOne: (origin: string, target: string) =>
    error(
      400,
      "PGRST118",
      `A related order on '${target}' is not possible`,
      `'${origin}' and '${target}' do not form a many-to-one or one-to-one relationship`,
    ),
  invalidPreferences: (prefs: string[]) =>
    error(
      400,
      "PGRST122",
      "Invalid preferences given with handling=strict",
      `Invalid preferences: ${prefs.join(", ")}`,
    ),
  aggregatesNotAllowed: () => error(400, "PGRST123", "Use of aggregate functions is not allowed"),
  maxAffected: (rows: number) =>
    error(
      400,
      "PGRST124",
      "Query result exceeds max-affected preference constraint",
      `The query affects ${rows} rows`,
    ),
  invalidResourcePath: () => error(404, "PGRST125", "Invalid path specified in request URL"),
  /** PGRST127 (`NotImplemented`): also how the stand-in answers what it does not imitate. */
  notImplemented: (details: string) => error(400, "PGRST127", "Feature not implemented", details),
  noRelBetween: (parent: string, child: string, hint: string | undefined) =>
    error(
      400,
      "PGRST200",
      `Could not find a relationship between '${parent}' and '${child}' in the schema cache`,
      `Searched for a foreign key relationship between '${parent}' and '${child}'${hint === undefined ? "" : `' using the hint '${hint}`}' in the schema 'public', but no matches were found.`,
    ),
  ambiguousRel: (parent: string, child: string, details: Record<string, string>[], hints: string[]) =>
    new PgrstError(300, {
      code: "PGRST201",
      message: `Could not embed because more than one relationship was found for '${parent}' and '${child}'`,
      details,
      hint: `Try changing '${child}' to one of the following: ${hints.join(", ")}. Find the desired relationship in the 'details' key.`,
    }),
  columnNotFound: (relation: string, column: string) =>
    error(400, "PGRST204", `Could not find the '${column}' column of '${relation}' in the schema cache`),
  tableNotFound: (relation: string) =>
    error(404, "PGRST205", `Could not find the table 'public.${relation}' in the schema cache`),
};

/**
 * An error as PostgreSQL would raise it for SQL PostgREST would have sent: the stand-in builds SQL
 * from catalogue names only, so where PostgREST would have quoted an unknown name into the query
 * (a column, a cast's type), the stand-in answers PostgreSQL's error without running it.
 */
export function postgresError(code: string, message: string, authed: boolean): PgrstError {
  return pgError({ code, message }, authed);
}

/** A PostgreSQL error as PostgREST answers it (`PgError`: `pgErrorStatus`, `toJsonPgrstError`). */
export function pgError(
  e: { code?: string; message?: string; detail?: string; hint?: string },
  authed: boolean,
): PgrstError {
  const code = e.code ?? "";
  const status = pgErrorStatus(code, authed, e.message ?? "");
  return new PgrstError(
    status,
    { code, message: e.message ?? "", details: e.detail ?? null, hint: e.hint ?? null },
    status === 401 ? { "WWW-Authenticate": "Bearer" } : {},
  );
}

/** Error.hs pgErrorStatus, for the SQLSTATEs of a query's error (`authed`: the role is not anon). */
export function pgErrorStatus(code: string, authed: boolean, message = ""): number {
  const exact: Record<string, number> = {
    "23503": 409,
    "23505": 409,
    "25006": 405,
    // cardinality_violation; PostgREST answers 400 when pg-safeupdate wrote it, which we do not use
    "21000": 500,
    // invalid_parameter_value: 401 when the token's role does not exist (PostgREST #3601)
    "22023": message.startsWith("role") && message.endsWith("does not exist") ? 401 : 400,
    "53400": 500,
    "57P01": 503,
    P0001: 400,
    "42883": message.startsWith("function xmlagg(") ? 406 : 404,
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

/** The answer for an error: its status, body and headers, `Proxy-Status` included. */
export function errorResponse(e: PgrstError): Response {
  return new Response(JSON.stringify(e.body), {
    status: e.status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "proxy-status": `PostgREST; error=${e.body.code}`,
      ...e.headers,
    },
  });
}
