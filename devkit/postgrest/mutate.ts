/**
 * Writes as PostgREST plans and writes them (src/PostgREST/Plan.hs `mutatePlan`,
 * Query/QueryBuilder.hs `mutatePlanToQuery`, Query/SqlFragment.hs `fromJsonBodyF`, `returningF`,
 * v14.17, 064e5fea): the body's rows read with `json_to_record(set)` typed by each column's declared
 * type, `ON CONFLICT … DO UPDATE` for `resolution=merge-duplicates` counting what it inserted in
 * `pgrst.inserted`, and `RETURNING` what the `select` needs (or `1` when nothing is returned).
 */
import { errors, postgresError } from "./errors.ts";
import type { ReadNode, ResolvedTree } from "./plan.ts";
import type { QueryParams } from "./query-params.ts";
import type { Payload, Preferences } from "./request.ts";
import type { Table } from "./schema-cache.ts";
import { ident, literal, type Params, type Qualifier, tree } from "./sql.ts";

export type Mutation = "create" | "update" | "delete" | "upsert";

export interface MutatePlan {
  mutation: Mutation;
  sql: (params: Params) => string;
  /** Whether the statement counts inserted rows in `pgrst.inserted` (merge-duplicates, PUT). */
  countsInserted: boolean;
  pk: string[];
}

export function mutatePlan(
  mutation: Mutation,
  table: Table,
  read: ReadNode,
  params: QueryParams,
  payload: Payload | undefined,
  prefs: Preferences,
  authed: boolean,
): MutatePlan {
  const q: Qualifier = { sql: `"public".${ident(table.name)}`, name: table.name };
  // Plan.hs `resolveOrError`: every column of the body must be the table's
  const columns = (payload?.columns ?? []).map((name) => {
    const column = table.columns.get(name);
    if (!column) throw errors.columnNotFound(table.name, name);
    return column;
  });
  const rootFilters: ResolvedTree[] = [
    ...params.logic.filter((l) => l.path.length === 0).map((l) => resolveRootTree(l.tree)),
    ...params.filters
      .filter((f) => f.path.length === 0)
      .map((f) => ({ kind: "filter" as const, filter: f.filter })),
  ];
  for (const f of rootFilters) assertNoJsonPath(f);
  const where = (p: Params) =>
    rootFilters.length ? ` WHERE ${rootFilters.map((t) => tree(read, q, t, p)).join(" AND ")}` : "";
  const returning = (p: Params) => returningF(table, read, prefs, p);
  const applyDefaults = prefs.missing === "default";
  const body = (p: Params, includeSelect: boolean) =>
    fromJsonBody(payload?.raw ?? "[]", columns, includeSelect, applyDefaults, p);

  if (mutation === "delete") {
    return {
      mutation,
      pk: table.pk,
      countsInserted: false,
      sql: (p) => `DELETE FROM ${q.sql} ${where(p)} ${returning(p)}`,
    };
  }
  if (mutation === "update") {
    return {
      mutation,
      pk: table.pk,
      countsInserted: false,
      sql: (p) =>
        columns.length === 0
          ? // no column to set: the columns the select needs, of no row
            `SELECT ${returningColumns(table, read, prefs, p, ident(table.name)) ?? "NULL"} FROM ${q.sql} WHERE false`
          : `UPDATE ${q.sql} SET ${columns.map((c) => `${ident(c.name)} = "pgrst_body".${ident(c.name)}`).join(", ")} ` +
            `${body(p, false)}${where(p)} ${returning(p)}`,
    };
  }
  if (mutation === "upsert") {
    // MutationSingleUpsert (PUT): filters on exactly the primary key, all `eq`
    const filterFields = new Set(params.filters.map((f) => [...f.path, f.filter.field].join(".")));
    const pkMatch =
      params.logic.length === 0 &&
      table.pk.length > 0 &&
      filterFields.size === table.pk.length &&
      table.pk.every((c) => filterFields.has(c)) &&
      params.filters.every(
        (f) =>
          f.path.length > 0 ||
          (!f.filter.negated &&
            f.filter.operation.kind === "quant" &&
            f.filter.operation.op === "eq" &&
            !f.filter.operation.quantifier),
      );
    if (!pkMatch) throw errors.invalidFilters();
    const bodyQ: Qualifier = { sql: '"pgrst_body"', name: "pgrst_body" };
    return {
      mutation,
      pk: table.pk,
      countsInserted: true,
      sql: (p) =>
        `INSERT INTO ${q.sql}${columns.length ? `(${columns.map((c) => ident(c.name)).join(", ")}) ` : " "}` +
        `${body(p, true)}WHERE ${INSERTED_PLUS} AND ${rootFilters.map((t) => tree(read, bodyQ, t, p)).join(" AND ")}` +
        onConflict(
          table.pk,
          columns.map((c) => c.name),
          "merge-duplicates",
          true,
        ) +
        ` ${returning(p)}`,
    };
  }
  // create: a plain insert, or an upsert by resolution=…-duplicates on `on_conflict` (else the primary key)
  const conflictColumns = params.onConflict ?? table.pk;
  // PostgREST quotes `on_conflict`'s names into ON CONFLICT(…): PostgreSQL's answer for one that is no column
  const unknown = prefs.resolution ? conflictColumns.find((name) => !table.columns.has(name)) : undefined;
  if (unknown !== undefined) throw postgresError("42703", `column "${unknown}" does not exist`, authed);
  const merge = prefs.resolution === "merge-duplicates";
  return {
    mutation,
    pk: table.pk,
    countsInserted: merge,
    sql: (p) =>
      `INSERT INTO ${q.sql}${columns.length ? `(${columns.map((c) => ident(c.name)).join(", ")}) ` : " "}` +
      `${body(p, true)}${merge ? `WHERE ${INSERTED_PLUS}` : ""}` +
      (prefs.resolution
        ? onConflict(
            conflictColumns,
            columns.map((c) => c.name),
            prefs.resolution,
            false,
          )
        : "") +
      ` ${returning(p)}`,
  };
}

/** SqlFragment.hs `addConfigPgrstInserted`: +1 for every row proposed, -1 for every row updated. */
const INSERTED_PLUS =
  "set_config('pgrst.inserted', (coalesce(nullif(current_setting('pgrst.inserted', true), '')::int, 0) + 1)::text, true) <> '0'";
const INSERTED_MINUS =
  "set_config('pgrst.inserted', (coalesce(nullif(current_setting('pgrst.inserted', true), '')::int, 0) - 1)::text, true) <> '-1'";

function onConflict(
  conflict: string[],
  columns: string[],
  resolution: "merge-duplicates" | "ignore-duplicates",
  put: boolean,
): string {
  if (conflict.length === 0) return "";
  const target = ` ON CONFLICT(${conflict.map(ident).join(", ")}) `;
  if (resolution === "ignore-duplicates" || columns.length === 0) return `${target}DO NOTHING`;
  const set = columns.map((c) => `${ident(c)} = EXCLUDED.${ident(c)}`).join(", ");
  return `${target}DO UPDATE SET ${set}${put || resolution === "merge-duplicates" ? ` WHERE ${INSERTED_MINUS}` : ""}`;
}

/** SqlFragment.hs `fromJsonBodyF`: the body as typed rows, `pgrst_body`. */
function fromJsonBody(
  raw: string,
  columns: { name: string; type: string; default: string | null }[],
  includeSelect: boolean,
  applyDefaults: boolean,
  p: Params,
): string {
  const isObject = raw.trimStart().startsWith("{");
  const placeholder = `${p.add(raw)}::${applyDefaults ? "jsonb" : "json"}`;
  const select = includeSelect
    ? `SELECT ${columns.map((c) => `"pgrst_body".${ident(c.name)}`).join(", ")} `
    : "";
  const defaults = `jsonb_build_object(${columns
    .filter((c) => c.default !== null)
    .map((c) => `${literal(c.name)}, ${c.default}`)
    .join(",")})`;
  const defaultsClause = !applyDefaults
    ? ""
    : isObject
      ? `LATERAL (SELECT ${defaults} || pgrst_payload.json_data AS val) pgrst_json_defs, `
      : `LATERAL (SELECT jsonb_agg(${defaults} || elem) AS val from jsonb_array_elements(pgrst_payload.json_data) elem) pgrst_json_defs, `;
  const source = applyDefaults ? "pgrst_json_defs.val" : "pgrst_payload.json_data";
  const toRecord = `${applyDefaults ? "jsonb" : "json"}_to_record${isObject ? "" : "set"}`;
  const fields =
    columns.length === 0
      ? isObject
        ? "(values(1)) _ "
        : `${applyDefaults ? "jsonb" : "json"}_array_elements(${source}) _ `
      : `${toRecord}(${source}) AS _(${columns.map((c) => `${ident(c.name)} ${c.type}`).join(", ")}) `;
  return (
    `${select}FROM (SELECT ${placeholder} AS json_data) pgrst_payload, ${defaultsClause}` +
    `LATERAL (SELECT ${columns.map((c) => ident(c.name)).join(", ")} FROM ${fields}) pgrst_body `
  );
}

/** Plan.hs `inferColsEmbedNeeds`: what RETURNING must hold for the select (and its embeds) to work. */
function returningColumns(
  table: Table,
  read: ReadNode,
  prefs: Preferences,
  p: Params,
  qualifier = `"public".${ident(table.name)}`,
): string | undefined {
  if (prefs.representation === undefined || prefs.representation === "none") return undefined;
  const names = new Set(read.fields.map((f) => f.name));
  if (read.fields.length === 0 && read.children.length === 0) names.add("*");
  if (names.has("*")) return `${qualifier}.*`;
  for (const child of read.children) {
    const rel = child.rel;
    if (!rel) continue;
    if (rel.junction) for (const [col] of rel.junction.source) names.add(col);
    else for (const [col] of rel.columns) names.add(col);
  }
  for (const col of table.pk) names.add(col);
  return [...names]
    .sort()
    .map((name) => {
      if (!table.columns.has(name)) p.missingColumn(table.name, name);
      return `${qualifier}.${ident(name)}`;
    })
    .join(", ");
}

/** SqlFragment.hs `returningF`. */
function returningF(table: Table, read: ReadNode, prefs: Preferences, p: Params): string {
  const columns = returningColumns(table, read, prefs, p);
  return columns === undefined ? "RETURNING 1" : `RETURNING ${columns}`;
}

function resolveRootTree(t: QueryParams["logic"][number]["tree"]): ResolvedTree {
  return t.kind === "filter"
    ? t
    : { kind: "expr", negated: t.negated, op: t.op, children: t.children.map(resolveRootTree) };
}

function assertNoJsonPath(t: ResolvedTree): void {
  if (t.kind === "filter" && t.filter.jsonPath) {
    throw errors.notImplemented("the stand-in does not filter on JSON paths (col->key)");
  }
  if (t.kind === "expr") for (const c of t.children) assertNoJsonPath(c);
}
