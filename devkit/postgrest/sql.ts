/**
 * SQL in the shape PostgREST writes it (src/PostgREST/Query/QueryBuilder.hs `readPlanToQuery`,
 * `readPlanToCountQuery`, Query/SqlFragment.hs `pgFmtFilter`, `orderF`, v14.17, 064e5fea): embeds
 * as `LEFT JOIN LATERAL` subqueries aggregated with `json_agg`, filters with every value a
 * parameter of unknown type (so PostgreSQL types it from the column, `unknownLiteral`), `in` as
 * `= ANY($n)` of an array literal (`pgBuildArrayLiteral`). Identifiers come only from the schema
 * cache (catalogue names); a name the cache lacks is answered as PostgreSQL answers it (42703)
 * without sending it.
 */
import { pgError, postgresError } from "./errors.ts";
import type { ReadNode, ResolvedTree } from "./plan.ts";
import type { Filter, OrderTerm } from "./query-params.ts";
import { limitOffset } from "./range.ts";
import type { Relationship } from "./schema-cache.ts";

/** A quoted identifier (SchemaCache/Identifiers.hs `escapeIdent`), for catalogue names only. */
export const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
/** A string literal, for catalogue names only (SqlFragment.hs `pgFmtLit`). */
export const literal = (name: string) => `'${name.replaceAll("'", "''")}'`;

/** The statement's parameters, all text, typed by PostgreSQL from where they stand. */
export class Params {
  readonly values: string[] = [];
  constructor(private readonly authed: boolean) {}

  add(value: string): string {
    // PostgreSQL text cannot hold NUL: the server refuses such a parameter with 22021
    if (value.includes("\0")) {
      throw postgresError("22021", 'invalid byte sequence for encoding "UTF8": 0x00', this.authed);
    }
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** The 42703 PostgreSQL raises for a column its relation lacks. */
  missingColumn(relation: string, column: string): never {
    throw pgError({ code: "42703", message: `column ${relation}.${column} does not exist` }, this.authed);
  }
}

/** How a level names its rows in SQL: the table, the mutation's `pgrst_source` alias, or its own alias. */
export interface Qualifier {
  sql: string;
  /** The relation name PostgreSQL's errors give it. */
  name: string;
}

export function qualifierOf(node: ReadNode, mutationRoot: boolean): Qualifier {
  if (node.depth === 0) {
    return mutationRoot
      ? { sql: ident(node.table.name), name: node.table.name }
      : { sql: `"public".${ident(node.table.name)}`, name: node.table.name };
  }
  if (node.fromAlias) return { sql: ident(node.fromAlias), name: node.fromAlias };
  return { sql: `"public".${ident(node.table.name)}`, name: node.table.name };
}

function column(node: ReadNode, q: Qualifier, name: string, params: Params): string {
  if (node.table.columns.has(name)) return `${q.sql}.${ident(name)}`;
  // PostgREST writes `"rel"."count"`; with no such column PostgreSQL reads it as `count("rel")`, the
  // attribute notation of a function of the row (PostgreSQL docs §8.16.5, "Using Composite Types in
  // Queries"): the legacy `select=count` and `rel(count)` that PostgREST's docs ("The Case of
  // count()") say still work with aggregates off, as on Supabase (`rel.*`: the whole row, also
  // when `rel` is schema-qualified). Beside another column it is PostgreSQL's own 42803, as there.
  if (name === "count") return `count(${q.sql}.*)`;
  return params.missingColumn(q.name, name);
}

/** QueryBuilder.hs `readPlanToQuery`. */
export function readQuery(node: ReadNode, params: Params, mutationRoot = false, parent?: string): string {
  const q = qualifierOf(node, mutationRoot);
  // the FROM clause (and its lateral joins) is analysed before the select list, as PostgreSQL does
  const joins = node.children.map((child) => join(child, params, q.sql));
  const selects =
    node.fields.length === 0 && node.children.length === 0
      ? [`${q.sql}.*`]
      : node.fields.map((f) =>
          f.name === "*"
            ? `${q.sql}.*`
            : `${column(node, q, f.name, params)}${f.alias ? ` AS ${ident(f.alias)}` : ""}`,
        );
  const joinSelects = node.children.filter((c) => !emptyEmbed(c)).map(joinSelect);
  const from =
    node.depth === 0
      ? mutationRoot
        ? ` FROM "pgrst_source" AS ${ident(node.table.name)}`
        : ` FROM "public".${ident(node.table.name)}`
      : ` FROM "public".${ident(node.table.name)}${node.fromAlias ? ` AS ${ident(node.fromAlias)}` : ""}${
          node.rel?.junction ? `, "public".${ident(node.rel.junction.table)}` : ""
        }`;
  const conditions = [...node.where.map((t) => tree(node, q, t, params)), ...joinConditions(node, parent)];
  return (
    `SELECT ${[...selects, ...joinSelects].join(", ")}${from}${joins.join("")}` +
    `${conditions.length ? ` WHERE ${conditions.join(" AND ")}` : ""} ${order(node, q, params)} ${limitOffset(node.range)}`
  );
}

/** Plan.hs `hasOnlyNullEmbed`: an embed selecting nothing (`rel()`) is joined but not output. */
function emptyEmbed(node: ReadNode): boolean {
  return node.fields.length === 0 && node.children.every(emptyEmbed);
}

function joinSelect(child: ReadNode): string {
  const agg = ident(child.aggAlias);
  const name = ident(child.relAlias ?? child.relName);
  return child.rel && isToOneRel(child.rel)
    ? `row_to_json(${agg}.*)::jsonb AS ${name}`
    : `COALESCE( ${agg}.${agg}, '[]') AS ${name}`;
}

const isToOneRel = (r: Relationship) => r.cardinality === "m2o" || r.cardinality === "o2o";

/** QueryBuilder.hs `getJoin`: a lateral subquery per embed, `json_agg` for a to-many one. */
function join(child: ReadNode, params: Params, parent: string): string {
  const agg = ident(child.aggAlias);
  const sub = readQuery(child, params, false, parent);
  const inner = child.joinType === "inner";
  const kind = inner ? "INNER" : "LEFT";
  if (child.rel && isToOneRel(child.rel)) return ` ${kind} JOIN LATERAL ( ${sub} ) AS ${agg} ON TRUE`;
  return (
    ` ${kind} JOIN LATERAL ( SELECT json_agg(${agg})::jsonb AS ${agg} FROM (${sub} ) AS ${agg} ) AS ${agg}` +
    ` ON ${inner ? `${agg} IS NOT NULL` : "TRUE"}`
  );
}

/** Plan.hs `getJoinConditions`: the embed's columns equal to its parent's. */
function joinConditions(node: ReadNode, parent: string | undefined): string[] {
  const rel = node.rel;
  if (!rel || parent === undefined) return [];
  if (rel.junction) {
    const junction = `"public".${ident(rel.junction.table)}`;
    const foreign = `"public".${ident(rel.foreignTable)}`;
    return [
      ...rel.junction.target.map(([col, jcol]) => `${junction}.${ident(jcol)} = ${foreign}.${ident(col)}`),
      ...rel.junction.source.map(([col, jcol]) => `${junction}.${ident(jcol)} = ${parent}.${ident(col)}`),
    ];
  }
  const self = node.fromAlias ? ident(node.fromAlias) : `"public".${ident(rel.foreignTable)}`;
  return rel.columns.map(([col, fcol]) => `${self}.${ident(fcol)} = ${parent}.${ident(col)}`);
}

function order(node: ReadNode, q: Qualifier, params: Params): string {
  if (node.order.length === 0) return "";
  const term = (t: OrderTerm & { aggAlias?: string }) => {
    let field: string;
    if (t.aggAlias) {
      const child = node.children.find((c) => c.aggAlias === t.aggAlias) as ReadNode;
      if (!exposedColumns(child).has(t.field)) params.missingColumn(t.aggAlias, t.field);
      field = `${ident(t.aggAlias)}.${ident(t.field)}`;
    } else field = column(node, q, t.field, params);
    const direction = t.direction === "asc" ? "ASC" : t.direction === "desc" ? "DESC" : "";
    const nulls = t.nulls === "nullsfirst" ? "NULLS FIRST" : t.nulls === "nullslast" ? "NULLS LAST" : "";
    return `${field} ${[direction, nulls].join(" ")}`;
  };
  return `ORDER BY ${node.order.map(term).join(", ")}`;
}

/** The columns a to-one embed's subquery outputs, which an order on it may name. */
function exposedColumns(node: ReadNode): Set<string> {
  const names = new Set<string>();
  const star =
    (node.fields.length === 0 && node.children.length === 0) || node.fields.some((f) => f.name === "*");
  if (star) for (const name of node.table.columns.keys()) names.add(name);
  for (const f of node.fields) if (f.name !== "*") names.add(f.alias ?? f.name);
  for (const c of node.children) if (!emptyEmbed(c)) names.add(c.relAlias ?? c.relName);
  return names;
}

/** SqlFragment.hs `pgFmtLogicTree`. */
export function tree(node: ReadNode, q: Qualifier, t: ResolvedTree, params: Params): string {
  if (t.kind === "filter") return filter(node, q, t.filter, params);
  if (t.kind === "nullEmbed") {
    return `${ident(t.aggAlias)} IS ${t.negated ? "" : "NOT "}DISTINCT FROM NULL`;
  }
  const inner = t.children.map((c) => tree(node, q, c, params)).join(t.op === "and" ? " AND " : " OR ");
  return `${t.negated ? "NOT" : ""} (${inner})`;
}

const SIMPLE = {
  neq: "<>",
  cs: "@>",
  cd: "<@",
  ov: "&&",
  sl: "<<",
  sr: ">>",
  nxr: "&<",
  nxl: "&>",
  adj: "-|-",
};
const QUANT = {
  eq: "=",
  gte: ">=",
  gt: ">",
  lte: "<=",
  lt: "<",
  like: "like",
  ilike: "ilike",
  match: "~",
  imatch: "~*",
};
const FTS = {
  fts: "to_tsquery",
  plfts: "plainto_tsquery",
  phfts: "phraseto_tsquery",
  wfts: "websearch_to_tsquery",
};
const IS = { null: "NULL", not_null: "NOT NULL", true: "TRUE", false: "FALSE", unknown: "UNKNOWN" };

/** SqlFragment.hs `pgFmtFilter`. */
export function filter(node: ReadNode, q: Qualifier, f: Filter, params: Params): string {
  const field = column(node, q, f.field, params);
  const not = f.negated ? "NOT" : "";
  const op = f.operation;
  switch (op.kind) {
    case "simple":
      return `${not} ${field} ${SIMPLE[op.op]} ${params.add(op.value)}`;
    case "quant": {
      // like/ilike: `*` stands for `%` (so a URL needs no escaping)
      const value = op.op === "like" || op.op === "ilike" ? op.value.replaceAll("*", "%") : op.value;
      const placeholder = params.add(value);
      const quantified =
        op.quantifier === "any"
          ? `ANY(${placeholder})`
          : op.quantifier === "all"
            ? `ALL(${placeholder})`
            : placeholder;
      return `${not} ${field} ${QUANT[op.op]} ${quantified}`;
    }
    case "in":
      return op.values.length === 1 && op.values[0] === ""
        ? `${not} ${field} = ANY('{}') `
        : `${not} ${field} = ANY (${params.add(arrayLiteral(op.values))}) `;
    case "is":
      return `${not} ${field} IS ${IS[op.value]}`;
    case "isdistinct":
      return `${not} ${field} IS DISTINCT FROM ${params.add(op.value)}`;
    case "fts": {
      const language = op.language === undefined ? "" : `${params.add(op.language)}, `;
      const type = node.table.columns.get(f.field)?.type;
      const target = type === "tsvector" ? field : `to_tsvector(${language}${field})`;
      return `${not} ${target} @@ ${FTS[op.op]}(${language}${params.add(op.value)}) `;
    }
  }
}

/** SqlFragment.hs `pgBuildArrayLiteral`: `{"a","b"}`, NUL and what follows it dropped. */
export function arrayLiteral(values: string[]): string {
  const escaped = values.map((v) => `"${v.split("\0")[0]?.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`);
  return `{${escaped.join(",")}}`;
}

/** QueryBuilder.hs `readPlanToCountQuery`: the root's rows, before any limit. */
export function countQuery(node: ReadNode, params: Params, parent?: string): string {
  const q = qualifierOf(node, false);
  const from =
    node.depth === 0
      ? ` FROM "public".${ident(node.table.name)}`
      : ` FROM "public".${ident(node.table.name)}${node.fromAlias ? ` AS ${ident(node.fromAlias)}` : ""}${
          node.rel?.junction ? `, "public".${ident(node.rel.junction.table)}` : ""
        }`;
  const countTree = (t: ResolvedTree): string => {
    if (t.kind === "filter") return filter(node, q, t.filter, params);
    if (t.kind === "nullEmbed")
      return `${t.negated ? "" : "NOT "}EXISTS (${countQuery(t.node, params, q.sql)})`;
    return `${t.negated ? "NOT" : ""} (${t.children.map(countTree).join(t.op === "and" ? " AND " : " OR ")})`;
  };
  const conditions = [
    ...node.where.map(countTree),
    ...joinConditions(node, parent),
    ...node.children
      .filter((c) => c.joinType === "inner")
      .map((c) => `EXISTS (${countQuery(c, params, q.sql)} )`),
  ];
  return `SELECT 1 ${from}${conditions.length ? ` WHERE ${conditions.join(" AND ")}` : ""}`;
}
