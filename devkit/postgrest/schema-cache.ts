/**
 * The schema cache as PostgREST builds it (src/PostgREST/SchemaCache.hs, v14.17, 064e5fea), for the
 * exposed schema `public`: its tables and views with their columns and primary keys
 * (`tablesSqlQuery`), the relationships their foreign keys make (`allM2OandO2ORels`,
 * `addInverseRels`, `addM2MRels`) and its functions. Read from pg_catalog with an empty
 * `search_path` (`set local schema ''`), so every type and default names its schema. These names are
 * the only identifiers the stand-in ever writes into SQL.
 *
 * Differences (docs/postgrest-stand-in.md): read once, at the first request that needs it, never
 * reloaded (PostgREST reloads on `NOTIFY pgrst`); views get no primary key nor relationships
 * (PostgREST infers them from the view's definition, `allViewsKeyDependencies`); no computed
 * relationships (functions taking a table's row).
 */
import type { SqlClient } from "../../shared/db/sql-client.ts";

export interface Column {
  name: string;
  /** `format_type(atttypid, atttypmod)`: the type PostgREST reads a body's value as (`colNominalType`). */
  type: string;
  /** The default expression, as `pg_get_expr` writes it (used by `Prefer: missing=default`). */
  default: string | null;
}

export interface Table {
  name: string;
  isView: boolean;
  insertable: boolean;
  updatable: boolean;
  deletable: boolean;
  /** Primary key columns, sorted by name (`tbl_pk_cols`). */
  pk: string[];
  columns: Map<string, Column>;
}

export type Cardinality = "m2o" | "o2m" | "o2o" | "m2m";

/** One relationship from `table` to `foreignTable` (SchemaCache/Relationship.hs). */
export interface Relationship {
  table: string;
  foreignTable: string;
  isSelf: boolean;
  cardinality: Cardinality;
  /** The foreign key's name (for M2M: the junction's two). */
  constraint: string;
  /** Column pairs (this table's, the foreign table's); for M2M: through the junction. */
  columns: [string, string][];
  /** O2O only: whether `table` is the referenced side. */
  isParent?: boolean;
  junction?: {
    table: string;
    constraint2: string;
    /** (this table's column, junction column) and (foreign table's column, junction column). */
    source: [string, string][];
    target: [string, string][];
  };
}

export const isToOne = (r: Relationship) => r.cardinality === "m2o" || r.cardinality === "o2o";

export interface SchemaCache {
  tables: Map<string, Table>;
  /** Relationships whose `table` is the key. */
  relationships: Map<string, Relationship[]>;
}

export async function loadSchemaCache(client: SqlClient): Promise<SchemaCache> {
  const { tables, fks } = await client.transaction(async (s) => {
    await s.query("select set_config('search_path', '', true)");
    const tables = await s.query<{
      name: string;
      is_view: boolean;
      insertable: boolean;
      updatable: boolean;
      deletable: boolean;
      pk: string[];
      columns: { name: string; type: string; default: string | null }[];
    }>(
      `select c.relname as name, c.relkind in ('v', 'm') as is_view,
              c.relkind in ('r', 'p') or (c.relkind in ('v', 'f') and (pg_catalog.pg_relation_is_updatable(c.oid::pg_catalog.regclass, true) & 8) = 8) as insertable,
              c.relkind in ('r', 'p') or (c.relkind in ('v', 'f') and (pg_catalog.pg_relation_is_updatable(c.oid::pg_catalog.regclass, true) & 4) = 4) as updatable,
              c.relkind in ('r', 'p') or (c.relkind in ('v', 'f') and (pg_catalog.pg_relation_is_updatable(c.oid::pg_catalog.regclass, true) & 16) = 16) as deletable,
              coalesce((select array_agg(a.attname::text order by a.attname)
                          from pg_catalog.pg_constraint k
                          join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum = any (k.conkey)
                         where k.conrelid = c.oid and k.contype = 'p' and c.relkind in ('r', 'p')), '{}') as pk,
              coalesce((select json_agg(json_build_object(
                          'name', a.attname,
                          'type', pg_catalog.format_type(a.atttypid, a.atttypmod),
                          'default', case when a.attidentity = 'd' then pg_catalog.format('nextval(%L)', seq.objid::pg_catalog.regclass)
                                          when a.attgenerated = 's' then null
                                          else pg_catalog.pg_get_expr(d.adbin, d.adrelid) end)
                          order by a.attnum)
                          from pg_catalog.pg_attribute a
                          left join pg_catalog.pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
                          left join pg_catalog.pg_depend seq on seq.refobjid = a.attrelid and seq.refobjsubid = a.attnum and seq.deptype = 'i'
                         where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped), '[]') as columns
         from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('v', 'r', 'm', 'f', 'p') and not c.relispartition`,
    );
    const fks = await s.query<{
      table_name: string;
      foreign_table_name: string;
      constraint_name: string;
      columns: [string, string][];
      one_to_one: boolean;
    }>(
      `select tab.relname as table_name, other.relname as foreign_table_name, k.conname as constraint_name,
              (select json_agg(json_build_array(cols.attname, refs.attname) order by ord)
                 from unnest(k.conkey, k.confkey) with ordinality as _(col, ref, ord)
                 join pg_catalog.pg_attribute cols on cols.attrelid = k.conrelid and cols.attnum = col
                 join pg_catalog.pg_attribute refs on refs.attrelid = k.confrelid and refs.attnum = ref) as columns,
              (select array_agg(x order by x) from unnest(k.conkey) x) in (
                select array_agg(key order by key) from pg_catalog.pg_constraint u, unnest(u.conkey) as _(key)
                 where u.conrelid = k.conrelid and u.contype in ('p', 'u') group by u.oid) as one_to_one
         from pg_catalog.pg_constraint k
         join pg_catalog.pg_class tab on tab.oid = k.conrelid
         join pg_catalog.pg_namespace ns1 on ns1.oid = tab.relnamespace
         join pg_catalog.pg_class other on other.oid = k.confrelid
         join pg_catalog.pg_namespace ns2 on ns2.oid = other.relnamespace
        where k.contype = 'f' and k.conparentid = 0 and ns1.nspname = 'public' and ns2.nspname = 'public'
        order by k.conrelid, k.conname`,
    );
    return { tables, fks };
  });

  const tableMap = new Map<string, Table>(
    tables.map((t) => [
      t.name,
      {
        name: t.name,
        isView: t.is_view,
        insertable: t.insertable,
        updatable: t.updatable,
        deletable: t.deletable,
        pk: t.pk,
        columns: new Map(t.columns.map((c) => [c.name, c])),
      },
    ]),
  );

  // allM2OandO2ORels, then addM2MRels and addInverseRels
  const forward: Relationship[] = fks.map((fk) => ({
    table: fk.table_name,
    foreignTable: fk.foreign_table_name,
    isSelf: fk.table_name === fk.foreign_table_name,
    cardinality: fk.one_to_one ? "o2o" : "m2o",
    constraint: fk.constraint_name,
    columns: fk.columns,
    ...(fk.one_to_one ? { isParent: false } : {}),
  }));
  const m2m: Relationship[] = [];
  for (const r1 of forward.filter((r) => r.cardinality === "m2o")) {
    for (const r2 of forward.filter((r) => r.cardinality === "m2o" && r.table === r1.table)) {
      if (r1.constraint === r2.constraint) continue;
      const junctionPk = new Set(tableMap.get(r1.table)?.pk ?? []);
      const used = [...r1.columns.map(([c]) => c), ...r2.columns.map(([c]) => c)];
      if (!used.every((c) => junctionPk.has(c))) continue;
      m2m.push({
        table: r1.foreignTable,
        foreignTable: r2.foreignTable,
        isSelf: r1.foreignTable === r2.foreignTable,
        cardinality: "m2m",
        constraint: r1.constraint,
        columns: [],
        junction: {
          table: r1.table,
          constraint2: r2.constraint,
          source: r1.columns.map(([j, t]) => [t, j]),
          target: r2.columns.map(([j, t]) => [t, j]),
        },
      });
    }
  }
  const inverse: Relationship[] = forward.map((r) => ({
    table: r.foreignTable,
    foreignTable: r.table,
    isSelf: r.isSelf,
    cardinality: r.cardinality === "m2o" ? "o2m" : "o2o",
    constraint: r.constraint,
    columns: r.columns.map(([a, b]) => [b, a] as [string, string]),
    ...(r.cardinality === "o2o" ? { isParent: true } : {}),
  }));
  const relationships = new Map<string, Relationship[]>();
  for (const r of [...forward, ...m2m, ...inverse]) {
    const list = relationships.get(r.table) ?? [];
    list.push(r);
    relationships.set(r.table, list);
  }
  return { tables: tableMap, relationships };
}
