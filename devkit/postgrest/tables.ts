/**
 * `/rest/v1/<table>` as PostgREST v14.17 (064e5fea) serves it: the request read in PostgREST's order
 * (src/PostgREST/ApiRequest.hs `userApiRequest`: method, schema profile, query string, ranges, body;
 * then Plan.hs: table, read plan, write plan, preferences, media type), one statement in the shape
 * of Query/Statements.hs `mainRead` / `mainWrite` inside a transaction set up as PostgREST does
 * (./session.ts), the checks MainTx.hs makes before committing (`failNotSingular`,
 * `failExceedsMaxAffectedPref`, `failPut`: each rolls back), and the answer as Response.hs
 * `actionResponse` builds it.
 */
import type { SqlClient, SqlSession } from "../../shared/db/sql-client.ts";
import { errors, PgrstError, pgError } from "./errors.ts";
import { type MutatePlan, type Mutation, mutatePlan } from "./mutate.ts";
import { type ReadNode, readPlan } from "./plan.ts";
import { parseQueryParams, type QueryParams } from "./query-params.ts";
import { contentRange, type Range, rangeStatus, topLevelRange } from "./range.ts";
import {
  type Handler,
  negotiate,
  type Payload,
  type Preferences,
  parsePayload,
  parsePreferences,
  preferenceApplied,
} from "./request.ts";
import type { SchemaCache, Table } from "./schema-cache.ts";
import { beginRequest, type Caller, type Role } from "./session.ts";
import { countQuery, Params, readQuery } from "./sql.ts";

export interface TableContext {
  client: SqlClient;
  cache(): Promise<SchemaCache & { timezones: Set<string> }>;
  maxRows: number;
  timeouts: Record<Role | "authenticator", string | undefined>;
}

const MUTATIONS: Record<string, Mutation> = {
  POST: "create",
  PUT: "upsert",
  PATCH: "update",
  DELETE: "delete",
};

export async function tableRequest(
  ctx: TableContext,
  request: Request,
  name: string,
  caller: Caller,
  body: string,
): Promise<Response> {
  const method = request.method;
  const read = method === "GET" || method === "HEAD";
  const mutation = MUTATIONS[method];
  if (!read && !mutation && method !== "OPTIONS") throw errors.unsupportedMethod(method);
  const profile = request.headers.get(read || method === "OPTIONS" ? "accept-profile" : "content-profile");
  if (profile !== null && profile !== "public") throw errors.unacceptableSchema(profile);
  const url = new URL(request.url);
  const params = parseQueryParams(url.searchParams);
  const top = topLevelRange(method, params.ranges, request.headers.get("range"));
  // ApiRequest.hs getRanges: the root's range is `limit`/`offset` and the Range header together
  params.ranges.set("limit", top);
  const payload =
    mutation && mutation !== "delete"
      ? parsePayload(
          body,
          request.headers.get("content-type"),
          mutation === "create" || mutation === "update" ? params.columns : undefined,
        )
      : undefined;
  const cache = await ctx.cache();
  const table = cache.tables.get(name);
  if (!table) throw errors.tableNotFound(name);
  if (method === "OPTIONS") return info(table);
  const prefs = parsePreferences(request.headers, cache.timezones);
  const authed = caller.role !== "anon";
  const plan = readPlan({ cache, table, params, mutation: !read, maxRows: ctx.maxRows });
  const write = mutation ? mutatePlan(mutation, table, plan, params, payload, prefs, authed) : undefined;
  if (prefs.invalid.length > 0 && prefs.handling === "strict") throw errors.invalidPreferences(prefs.invalid);
  const negotiated = negotiate(request.headers.get("accept"));
  const handler: Handler =
    method === "HEAD" || (write && prefs.representation !== "full") ? "none" : negotiated.handler;
  const singular = negotiated.handler === "single" || negotiated.handler === "single-stripped";

  const result = await ctx.client.transaction(async (s) => {
    await beginRequest(s, caller, ctx.timeouts, {
      readOnly: read,
      method,
      path: `/${name}`,
      headers: request.headers,
      ...(prefs.timezone ? { timezone: prefs.timezone } : {}),
    });
    try {
      const row = write
        ? await runWrite(s, plan, write, handler, prefs, authed)
        : await runRead(s, ctx, plan, handler, prefs, authed);
      // MainTx.hs: each of these rolls the transaction back before answering
      if (singular && row.pageTotal !== 1) throw errors.singularity(row.pageTotal);
      if (write?.mutation === "upsert" && row.pageTotal !== 1) throw errors.putMatchingPk();
      if (
        (write?.mutation === "update" || write?.mutation === "delete") &&
        prefs.handling === "strict" &&
        prefs.maxAffected !== undefined &&
        row.pageTotal > prefs.maxAffected
      ) {
        throw errors.maxAffected(row.pageTotal);
      }
      return row;
    } catch (error) {
      if (error instanceof PgrstError) throw error;
      const e = error as { code?: unknown };
      if (typeof e?.code === "string" && /^[0-9A-Z]{5}$/.test(e.code)) throw pgError(error as never, authed);
      throw error;
    }
  });
  return respond(request, table, top, params, prefs, write, handler, negotiated.contentType, result);
}

interface ResultRow {
  tableTotal: number | null;
  pageTotal: number;
  body: string;
  location: string[];
  gucHeaders: string | null;
  gucStatus: string | null;
  inserted: number | null;
}

/** Statements.hs `mainRead`, and MainTx.hs's count for `planned` and `estimated`. */
async function runRead(
  s: SqlSession,
  ctx: TableContext,
  plan: ReadNode,
  handler: Handler,
  prefs: Preferences,
  authed: boolean,
): Promise<ResultRow> {
  const params = new Params(authed);
  const source = readQuery(plan, params);
  const counted = prefs.count === "exact" || prefs.count === "estimated";
  const count = counted
    ? `, pgrst_source_count AS (${countQuery(plan, params)}${prefs.count === "estimated" ? ` LIMIT ${ctx.maxRows + 1}` : ""})`
    : "";
  const [row] = await s.query<RawRow>(
    `WITH pgrst_source AS ( ${source} ) ${count} SELECT ${counted ? "(SELECT pg_catalog.count(*) FROM pgrst_source_count)" : "null::bigint"} AS total_result_set, ` +
      `pg_catalog.count(_postgrest_t) AS page_total, ${bodyOf(handler)}::text AS body, ${GUCS} ` +
      "FROM ( SELECT * FROM pgrst_source ) _postgrest_t",
    params.values,
    { unknownTypes: true },
  );
  const result = toResult(row);
  if (prefs.count === "planned" || (prefs.count === "estimated" && (result.tableTotal ?? 0) > ctx.maxRows)) {
    const explainParams = new Params(authed);
    const [plan_] = await s.query<Record<string, unknown>>(
      `EXPLAIN (FORMAT JSON) ${countQuery(plan, explainParams)}`,
      explainParams.values,
      { unknownTypes: true },
    );
    const json = Object.values(plan_ ?? {})[0];
    const parsed = (typeof json === "string" ? JSON.parse(json) : json) as [
      { Plan: { "Plan Rows": number } },
    ];
    const planned = Number(parsed[0]?.Plan?.["Plan Rows"] ?? 0);
    result.tableTotal = prefs.count === "planned" ? planned : Math.max(result.tableTotal ?? 0, planned);
  }
  return result;
}

/** Statements.hs `mainWrite`. */
async function runWrite(
  s: SqlSession,
  plan: ReadNode,
  write: MutatePlan,
  handler: Handler,
  prefs: Preferences,
  authed: boolean,
): Promise<ResultRow> {
  const params = new Params(authed);
  const mutation = write.sql(params);
  const select = handler === "none" ? "SELECT * FROM pgrst_source" : readQuery(plan, params, true);
  const pkList = write.pk.map((c) => `'${c.replaceAll("'", "''")}'`).join(",");
  // SqlFragment.hs `locationF`: the inserted row's primary key, for `return=headers-only`
  const location =
    write.mutation === "create" && prefs.representation === "headers-only" && write.pk.length > 0
      ? `CASE WHEN pg_catalog.count(_postgrest_t) = 1 THEN coalesce((WITH data AS (SELECT row_to_json(_) AS row FROM pgrst_source AS _ LIMIT 1) ` +
        `SELECT array_agg(json_data.key || '=' || coalesce('eq.' || json_data.value, 'is.null')) FROM data CROSS JOIN json_each_text(data.row) AS json_data ` +
        `WHERE json_data.key IN (${pkList})), array[]::text[]) ELSE array[]::text[] END`
      : "array[]::text[]";
  const [row] = await s.query<RawRow>(
    `WITH pgrst_source AS (${mutation}) SELECT null::bigint AS total_result_set, pg_catalog.count(_postgrest_t) AS page_total, ` +
      `${location} AS header, ${bodyOf(handler)}::text AS body, ${GUCS}, ` +
      `${write.countsInserted ? "nullif(current_setting('pgrst.inserted', true),'')::int" : "null::int"} AS response_inserted ` +
      `FROM (${select}) _postgrest_t`,
    params.values,
    { unknownTypes: true },
  );
  return toResult(row);
}

const GUCS =
  "nullif(current_setting('response.headers', true), '') AS response_headers, " +
  "nullif(current_setting('response.status', true), '') AS response_status";

interface RawRow {
  total_result_set: string | number | null;
  page_total: string | number;
  body: string | null;
  header?: string[] | null;
  response_headers: string | null;
  response_status: string | null;
  response_inserted?: string | number | null;
}

function toResult(row: RawRow | undefined): ResultRow {
  const n = (v: string | number | null | undefined) => (v === null || v === undefined ? null : Number(v));
  return {
    tableTotal: n(row?.total_result_set),
    pageTotal: n(row?.page_total) ?? 0,
    body: row?.body ?? "",
    location: row?.header ?? [],
    gucHeaders: row?.response_headers ?? null,
    gucStatus: row?.response_status ?? null,
    inserted: n(row?.response_inserted),
  };
}

/** SqlFragment.hs `handlerF`: `asJsonF`, `asJsonSingleF`, `asCsvF`, `asGeoJsonF`, or nothing. */
function bodyOf(handler: Handler): string {
  switch (handler) {
    case "json":
      return "coalesce(json_agg(_postgrest_t), '[]')";
    case "json-stripped":
      return "coalesce(json_strip_nulls(json_agg(_postgrest_t)), '[]')";
    case "single":
      return "coalesce(json_agg(_postgrest_t)->0, 'null')";
    case "single-stripped":
      return "coalesce(json_strip_nulls(json_agg(_postgrest_t)->0), 'null')";
    case "csv":
      return (
        "(SELECT coalesce(string_agg(a.k, ','), '') FROM (SELECT json_object_keys(r)::text as k FROM ( SELECT row_to_json(hh) as r from pgrst_source as hh limit 1) s) a)" +
        " || '\n' || coalesce(string_agg(substring(_postgrest_t::text, 2, length(_postgrest_t::text) - 2), '\n'), '')"
      );
    case "geojson":
      return "json_build_object('type', 'FeatureCollection', 'features', coalesce(json_agg(ST_AsGeoJSON(_postgrest_t)::json), '[]'))";
    case "none":
      return "''";
  }
}

/** Response.hs `RelInfoPlan`: the methods the table takes. */
function info(table: Table): Response {
  const allow = [
    "OPTIONS,GET,HEAD",
    ...(table.insertable ? ["POST"] : []),
    ...(table.insertable && table.updatable && table.pk.length > 0 ? ["PUT"] : []),
    ...(table.updatable ? ["PATCH"] : []),
    ...(table.deletable ? ["DELETE"] : []),
  ].join(",");
  return new Response(null, {
    status: 200,
    headers: { "content-length": "0", "access-control-allow-origin": "*", allow },
  });
}

/** Response.hs `actionResponse`, by action. */
function respond(
  request: Request,
  table: Table,
  top: Range,
  params: QueryParams,
  prefs: Preferences,
  write: MutatePlan | undefined,
  handler: Handler,
  contentType: string,
  result: ResultRow,
): Response {
  const headers = new Headers();
  const applied = preferenceApplied({
    ...(write?.mutation === "create" && (write.pk.length > 0 || params.onConflict) && prefs.resolution
      ? { resolution: prefs.resolution }
      : {}),
    ...((write?.mutation === "create" || write?.mutation === "update") && prefs.missing
      ? { missing: prefs.missing }
      : {}),
    ...(write && prefs.representation ? { representation: prefs.representation } : {}),
    ...(prefs.count ? { count: prefs.count } : {}),
    ...(prefs.handling ? { handling: prefs.handling } : {}),
    ...(prefs.timezone ? { timezone: prefs.timezone } : {}),
    ...((write?.mutation === "update" || write?.mutation === "delete") && prefs.maxAffected !== undefined
      ? { maxAffected: prefs.maxAffected }
      : {}),
  });
  const counted = prefs.count !== undefined;
  let status: number;
  let body: string | null = handler === "none" ? null : result.body;
  if (!write) {
    const [rangeStatusCode, range] = rangeStatus(top, result.pageTotal, result.tableTotal);
    status = rangeStatusCode;
    headers.set("content-range", range);
    headers.set("content-location", `/${table.name}${params.canonical ? `?${params.canonical}` : ""}`);
    if (status === 416) {
      body = JSON.stringify(
        errors.invalidRange(
          `An offset of ${top.lo} was requested, but there are only ${result.tableTotal ?? 0} rows.`,
        ).body,
      );
    }
    if (request.method !== "HEAD") headers.set("content-type", contentType);
  } else {
    const full = prefs.representation === "full";
    if (write.mutation === "create") {
      if (result.location.length > 0) {
        const query = result.location
          .map((kv) => {
            const at = kv.indexOf("=");
            return `${encodeURIComponent(kv.slice(0, at))}=${encodeURIComponent(kv.slice(at + 1))}`;
          })
          .join("&");
        headers.set("location", `/${table.name}?${query}`);
      }
      headers.set("content-range", contentRange(1, 0, counted ? result.pageTotal : null));
      status =
        result.inserted !== null && result.inserted <= 0 && prefs.resolution === "merge-duplicates"
          ? 200
          : 201;
    } else if (write.mutation === "update") {
      headers.set("content-range", contentRange(0, result.pageTotal - 1, counted ? result.pageTotal : null));
      status = full ? 200 : 204;
    } else if (write.mutation === "delete") {
      headers.set("content-range", contentRange(1, 0, counted ? result.pageTotal : null));
      status = full ? 200 : 204;
    } else {
      status = full ? ((result.inserted ?? 0) > 0 ? 201 : 200) : 204;
    }
    if (full) headers.set("content-type", contentType);
    else body = null;
  }
  // Response.hs `contentTypeHeaders` / `profileHeader`: the schema, when the request named it
  const profile = request.headers.get(write ? "content-profile" : "accept-profile");
  if (headers.has("content-type") && profile !== null) headers.set("content-profile", profile);
  if (applied) headers.set("preference-applied", applied);
  // Response.hs `overrideStatusHeaders`: `response.status` and `response.headers` set by the SQL
  if (result.gucStatus !== null) {
    const override = Number(result.gucStatus);
    if (!/^\d+$/.test(result.gucStatus.trim())) {
      throw new PgrstError(500, {
        code: "PGRST112",
        message: "response.status guc must be a valid status code",
        details: null,
        hint: null,
      });
    }
    status = override;
  }
  if (result.gucHeaders !== null) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(result.gucHeaders);
    } catch {
      parsed = undefined;
    }
    const valid =
      Array.isArray(parsed) &&
      parsed.every(
        (h) =>
          typeof h === "object" &&
          h !== null &&
          Object.keys(h).length === 1 &&
          typeof Object.values(h)[0] === "string",
      );
    if (!valid) {
      throw new PgrstError(500, {
        code: "PGRST111",
        message:
          "response.headers guc must be a JSON array composed of objects with a single key and a string value",
        details: null,
        hint: null,
      });
    }
    // addHeadersIfNotIncluded: the SQL's headers win over PostgREST's own
    for (const h of parsed as Record<string, string>[]) {
      const [key, value] = Object.entries(h)[0] as [string, string];
      headers.set(key, value);
    }
  }
  if (body !== null && request.method !== "HEAD")
    headers.set("content-length", String(new TextEncoder().encode(body).length));
  return new Response(request.method === "HEAD" || status === 204 ? null : body, { status, headers });
}

export type { Payload };
