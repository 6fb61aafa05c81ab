/**
 * The read plan: the `select` tree resolved against the schema cache, with each level's filters,
 * `and`/`or` trees, order, range and relationship to its parent, as src/PostgREST/Plan.hs `readPlan`
 * (v14.17, 064e5fea) builds it: `initReadRequest`, then `addFilters`, `addOrders`, `addRanges`,
 * `addLogicTrees` (an unknown embed path is PGRST108, `updateNode`), `addRels` (`findRel`: PGRST200,
 * PGRST201), `addRelatedOrders` (PGRST118), `addNullEmbedFilters`, `validateAggFunctions`
 * (PGRST123: Supabase leaves `db-aggregates-enabled` off) and `treeRestrictRange` (`max-rows`).
 */
import { errors } from "./errors.ts";
import type { Filter, LogicTree, OrderTerm, QueryParams, SelectItem } from "./query-params.ts";
import { ALL, type Range, restrictToMaxRows } from "./range.ts";
import { isToOne, type Relationship, type SchemaCache, type Table } from "./schema-cache.ts";

/** Bounds the stand-in sets on what a caller controls (PostgREST's are the URL's and the database's). */
export const LIMITS = { embedDepth: 4, embeds: 16, filters: 64 };

export type ResolvedTree =
  | { kind: "filter"; filter: Filter }
  | { kind: "nullEmbed"; negated: boolean; aggAlias: string; node: ReadNode }
  | { kind: "expr"; negated: boolean; op: "and" | "or"; children: ResolvedTree[] };

export interface ReadNode {
  table: Table;
  relName: string;
  relAlias?: string;
  hint?: string;
  joinType?: "inner" | "left";
  /** The relationship to the parent level (none at the root). */
  rel?: Relationship;
  /** `fromAlias`: `<table>_<depth>` for an embed (not for M2M, which joins its junction instead). */
  fromAlias?: string;
  /** `relAggAlias`: `<parent table>_<name or alias>_<depth>`. */
  aggAlias: string;
  depth: number;
  fields: { name: string; alias?: string }[];
  where: ResolvedTree[];
  order: (OrderTerm & { aggAlias?: string })[];
  range: Range;
  children: ReadNode[];
}

export interface PlanInput {
  cache: SchemaCache;
  table: Table;
  params: QueryParams;
  /** Reads take every filter and range; a mutation's root filters go to its statement instead. */
  mutation: boolean;
  maxRows: number;
}

export function readPlan({ cache, table, params, mutation, maxRows }: PlanInput): ReadNode {
  const root = initReadRequest(cache, table, params.select);
  const count = { filters: 0 };
  const addFilter = (path: string[], filter: Filter) => {
    if (filter.jsonPath) throw errors.notImplemented("the stand-in does not filter on JSON paths (col->key)");
    count.filters++;
    nodeAt(root, path).where.push({ kind: "filter", filter });
  };
  // Plan.hs addFilters: a mutation keeps only the embeds' filters (qsFiltersNotRoot)
  for (const { path, filter } of params.filters) if (!mutation || path.length > 0) addFilter(path, filter);
  for (const { path, terms } of params.order) {
    if (terms.some((t) => t.jsonPath))
      throw errors.notImplemented("the stand-in does not order by JSON paths");
    nodeAt(root, path).order = terms;
  }
  if (!mutation) {
    for (const [key, range] of params.ranges) nodeAt(root, key.split(".").slice(0, -1)).range = range;
  }
  // addLogicTrees puts each level's and/or trees before its filters, in their order
  for (const { path, tree } of [...params.logic].reverse()) {
    if (mutation && path.length === 0) continue;
    count.filters += leaves(tree);
    nodeAt(root, path).where.unshift(resolveTree(tree));
  }
  if (count.filters > LIMITS.filters) {
    throw errors.notImplemented(`the stand-in takes at most ${LIMITS.filters} filters in one request`);
  }
  addRels(cache, root, undefined);
  addRelatedOrders(root);
  addNullEmbedFilters(root);
  if (!mutation) restrictRanges(root, maxRows);
  return root;
}

/** Plan.hs `initReadRequest`: one level per embed of `select`. */
function initReadRequest(cache: SchemaCache, table: Table, select: SelectItem[]): ReadNode {
  const embeds = { count: 0 };
  const build = (t: Table, name: string, items: SelectItem[], depth: number, item?: SelectItem): ReadNode => {
    const node: ReadNode = {
      table: t,
      relName: name,
      aggAlias: "",
      depth,
      fields: [],
      where: [],
      order: [],
      range: ALL,
      children: [],
    };
    if (item?.kind === "relation") {
      if (item.alias !== undefined) node.relAlias = item.alias;
      if (item.hint !== undefined) node.hint = item.hint;
      if (item.joinType !== undefined) node.joinType = item.joinType;
    }
    for (const selected of items) {
      if (selected.kind === "field") {
        // validateAggFunctions: Supabase's PostgREST runs with db-aggregates-enabled = false
        if (selected.aggregate) throw errors.aggregatesNotAllowed();
        if (selected.jsonPath)
          throw errors.notImplemented("the stand-in does not select JSON paths (col->key)");
        if (selected.cast)
          throw errors.notImplemented("the stand-in does not cast selected columns (col::type)");
        node.fields.push({ name: selected.name, ...(selected.alias ? { alias: selected.alias } : {}) });
        continue;
      }
      if (selected.spread)
        throw errors.notImplemented("the stand-in does not spread embeds (...relation(…))");
      if (depth + 1 > LIMITS.embedDepth || ++embeds.count > LIMITS.embeds) {
        throw errors.notImplemented(
          `the stand-in embeds at most ${LIMITS.embeds} resources, at most ${LIMITS.embedDepth} levels deep`,
        );
      }
      // the foreign table is found with the relationship (addRels); its name stands in until then
      const foreign = cache.tables.get(selected.name) ?? { ...t, name: selected.name, columns: new Map() };
      node.children.push(build(foreign, selected.name, selected.children, depth + 1, selected));
    }
    return node;
  };
  return build(table, table.name, select, 0);
}

/** Plan.hs `updateNode`: the level an embed path names (by name or alias), else PGRST108. */
function nodeAt(root: ReadNode, path: string[]): ReadNode {
  let node = root;
  for (const name of path) {
    const next = node.children.find((child) => child.relName === name || child.relAlias === name);
    if (!next) throw errors.notEmbedded(name);
    node = next;
  }
  return node;
}

function leaves(tree: LogicTree): number {
  return tree.kind === "filter" ? 1 : tree.children.reduce((n, child) => n + leaves(child), 0);
}

function resolveTree(tree: LogicTree): ResolvedTree {
  if (tree.kind === "filter") {
    if (tree.filter.jsonPath)
      throw errors.notImplemented("the stand-in does not filter on JSON paths (col->key)");
    return tree;
  }
  return { kind: "expr", negated: tree.negated, op: tree.op, children: tree.children.map(resolveTree) };
}

/** Plan.hs `addRels`: each embed's relationship, aliases and (for M2M) no alias of its own. */
function addRels(cache: SchemaCache, node: ReadNode, parent: ReadNode | undefined): void {
  if (parent) {
    const rel = findRel(cache, parent.table.name, node.relName, node.hint);
    const foreign = cache.tables.get(rel.foreignTable);
    if (!foreign) throw errors.noRelBetween(parent.table.name, node.relName, node.hint);
    node.table = foreign;
    node.rel = rel;
    node.aggAlias = `${rel.table}_${node.relAlias ?? node.relName}_${node.depth}`;
    if (rel.cardinality !== "m2m") node.fromAlias = `${rel.foreignTable}_${node.depth}`;
  }
  for (const child of node.children) addRels(cache, child, node);
}

/** Plan.hs `findRel`: by the target's table name, constraint or column, and the hint. */
export function findRel(
  cache: SchemaCache,
  origin: string,
  target: string,
  hint: string | undefined,
): Relationship {
  const single = (r: Relationship, side: 0 | 1, name: string) =>
    r.cardinality !== "m2m" && r.columns.length === 1 && r.columns[0]?.[side] === name;
  const constraint = (r: Relationship, name: string) => r.cardinality !== "m2m" && r.constraint === name;
  const junction = (r: Relationship, name: string) => r.cardinality === "m2m" && r.junction?.table === name;
  const foreignIsView = (r: Relationship) => cache.tables.get(r.foreignTable)?.isView ?? false;
  const rels = (cache.relationships.get(origin) ?? []).filter((r) => {
    if (r.isSelf) {
      if (hint === undefined) {
        return (
          (target === r.foreignTable && r.cardinality === "o2m") ||
          (single(r, 0, target) && r.cardinality === "m2o")
        );
      }
      return target === r.foreignTable && r.cardinality === "o2m" && single(r, 1, hint);
    }
    if (hint === undefined) {
      return (
        target === r.foreignTable ||
        (constraint(r, target) && !foreignIsView(r)) ||
        (single(r, 0, target) && !foreignIsView(r))
      );
    }
    return (
      target === r.foreignTable &&
      (constraint(r, hint) || single(r, 0, hint) || single(r, 1, hint) || junction(r, hint))
    );
  });
  if (rels.length === 0) throw errors.noRelBetween(origin, target, hint);
  if (rels.length > 1) {
    throw errors.ambiguousRel(
      origin,
      target,
      rels.map(compressedRel),
      rels.map((r) => `'${r.foreignTable}!${r.cardinality === "m2m" ? r.junction?.table : r.constraint}'`),
    );
  }
  return rels[0] as Relationship;
}

/** Error.hs `compressedRel`: a candidate relationship in PGRST201's details. */
function compressedRel(r: Relationship): Record<string, string> {
  const list = (names: string[]) => `(${names.join(", ")})`;
  const embedding = `${r.table} with ${r.foreignTable}`;
  if (r.cardinality === "m2m" && r.junction) {
    return {
      embedding,
      cardinality: "many-to-many",
      relationship: `${r.junction.table} using ${r.constraint}${list(r.junction.source.map(([, j]) => j))} and ${r.junction.constraint2}${list(r.junction.target.map(([, j]) => j))}`,
    };
  }
  const names = { m2o: "many-to-one", o2o: "one-to-one", o2m: "one-to-many", m2m: "many-to-many" };
  return {
    embedding,
    cardinality: names[r.cardinality],
    relationship: `${r.constraint} using ${r.table}${list(r.columns.map(([a]) => a))} and ${r.foreignTable}${list(r.columns.map(([, b]) => b))}`,
  };
}

/** Plan.hs `addRelatedOrders`: `order=rel(col)` only through a to-one embed of this level. */
function addRelatedOrders(node: ReadNode): void {
  node.order = node.order.map((term) => {
    if (term.relation === undefined) return term;
    const child = node.children.find((c) => (c.relAlias ?? c.relName) === term.relation);
    if (!child) throw errors.notEmbedded(term.relation);
    if (!child.rel || !isToOne(child.rel)) {
      throw errors.relatedOrderNotToOne(node.table.name, child.relAlias ?? child.relName);
    }
    return { ...term, aggAlias: child.aggAlias };
  });
  for (const child of node.children) addRelatedOrders(child);
}

/** Plan.hs `addNullEmbedFilters`: `rel=is.null` / `rel=not.is.null` on an embed tests the embed. */
function addNullEmbedFilters(node: ReadNode): void {
  const rewrite = (tree: ResolvedTree): ResolvedTree => {
    if (tree.kind === "expr") return { ...tree, children: tree.children.map(rewrite) };
    if (tree.kind !== "filter") return tree;
    const { field, operation, negated } = tree.filter;
    const child = node.children.find((c) => (c.relAlias ?? c.relName) === field);
    if (child && operation.kind === "is" && operation.value === "null") {
      return { kind: "nullEmbed", negated, aggAlias: child.aggAlias, node: child };
    }
    return tree;
  };
  node.where = node.where.map(rewrite);
  for (const child of node.children) addNullEmbedFilters(child);
}

/** Plan.hs `treeRestrictRange`: Supabase's `max-rows` (1000) on every level of a read. */
function restrictRanges(node: ReadNode, maxRows: number): void {
  node.range = restrictToMaxRows(node.range, maxRows);
  for (const child of node.children) restrictRanges(child, maxRows);
}
