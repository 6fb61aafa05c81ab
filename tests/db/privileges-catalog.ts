/**
 * What the catalog says each API role may do, for every object in the schemas the migrations create:
 * read with `has_*_privilege` (so grants to PUBLIC and to a role count alike), one line per role and
 * object in the form `SELECT, INSERT(id, org_id), UPDATE(nit)`. A column privilege is listed only
 * where the role lacks it on the whole table. Used by tests/db/privileges.test.ts.
 */
import type { TestDatabase } from "../../devkit/database.ts";

export const API_ROLES = ["anon", "authenticated", "service_role"] as const;
export type ApiRoleName = (typeof API_ROLES)[number];

/** What each API role holds on one object (absent: nothing), and for a table whether RLS is on. */
export type Grants = Partial<Record<ApiRoleName, string>> & { rls?: boolean };

/** The schemas the migrations create objects in; any other schema must be listed in KNOWN_SCHEMAS. */
export const OUR_SCHEMAS = ["public", "einv_private"];
/** Schemas that are not ours: PostgreSQL's, and the ones the Supabase bootstrap recreates. */
export const KNOWN_SCHEMAS = ["auth", "storage", "realtime", "information_schema", "pg_catalog", "pg_toast"];

const RELATION_PRIVILEGES = ["SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"];
const COLUMN_PRIVILEGES = ["SELECT", "INSERT", "UPDATE", "REFERENCES"];
const SEQUENCE_PRIVILEGES = ["USAGE", "SELECT", "UPDATE"];

interface Row {
  object: string;
  role: ApiRoleName;
  privilege: string;
  /** null when held on the whole object; else the columns it is held on, in table order. */
  columns: string[] | null;
}

/** Every object of OUR_SCHEMAS (schemas, tables, views, sequences, functions, types) with its grants. */
export async function actualGrants(db: TestDatabase): Promise<Record<string, Grants>> {
  const [objects, held] = await Promise.all([
    db.superuser<{ object: string; rls: boolean | null }>(OBJECTS_SQL),
    db.superuser<Row>(PRIVILEGES_SQL),
  ]);
  const result: Record<string, Grants> = {};
  for (const { object, rls } of objects) result[object] = rls === null ? {} : { rls };
  for (const row of held) {
    const grants = result[row.object] ?? {};
    result[row.object] = grants;
    const item = row.columns ? `${row.privilege}(${row.columns.join(", ")})` : row.privilege;
    grants[row.role] = grants[row.role] ? `${grants[row.role]}, ${item}` : item;
  }
  return result;
}

/** Schemas other than OUR_SCHEMAS and KNOWN_SCHEMAS: a migration made a schema nobody decided on. */
export async function unknownSchemas(db: TestDatabase): Promise<string[]> {
  const rows = await db.superuser<{ nspname: string }>(
    "select nspname from pg_namespace where not (nspname = any($1::text[])) order by 1",
    [`{${[...OUR_SCHEMAS, ...KNOWN_SCHEMAS].join(",")}}`],
  );
  return rows.map((r) => r.nspname);
}

const ours = `(${OUR_SCHEMAS.map((s) => `'${s}'`).join(", ")})`;
const list = (items: string[]) => `(values ${items.map((p, i) => `('${p}', ${i})`).join(", ")})`;

/** The object's name as the declared list spells it: `<kind> <schema>.<name>[(argument types)]`. */
const RELATION_NAME = `(case c.relkind when 'S' then 'sequence' when 'v' then 'view'
  when 'm' then 'materialized view' when 'f' then 'foreign table' else 'table' end) || ' ' || n.nspname || '.' || c.relname`;
const FUNCTION_NAME = `(case p.prokind when 'p' then 'procedure' when 'a' then 'aggregate' else 'function' end)
  || ' ' || n.nspname || '.' || p.proname || '(' || oidvectortypes(p.proargtypes) || ')'`;

const OBJECTS_SQL = `
  select 'schema ' || n.nspname as object, null::boolean as rls from pg_namespace n where n.nspname in ${ours}
  union all
  select ${RELATION_NAME}, case when c.relkind in ('r', 'p') then c.relrowsecurity end
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname in ${ours} and c.relkind in ('r', 'p', 'v', 'm', 'f', 'S')
  union all
  select ${FUNCTION_NAME}, null from pg_proc p join pg_namespace n on n.oid = p.pronamespace
   where n.nspname in ${ours}
  union all
  select 'type ' || n.nspname || '.' || t.typname, null from pg_type t join pg_namespace n on n.oid = t.typnamespace
   where n.nspname in ${ours} and t.typtype in ('c', 'e', 'd', 'r', 'm')
     and (t.typrelid = 0 or (select relkind from pg_class where oid = t.typrelid) = 'c')
  order by 1`;

const PRIVILEGES_SQL = `
  with roles (role, r) as (values ('anon', 0), ('authenticated', 1), ('service_role', 2)),
  relations as (
    select c.oid, c.relkind, ${RELATION_NAME} as object
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname in ${ours} and c.relkind in ('r', 'p', 'v', 'm', 'f', 'S')
  ),
  held (object, role, privilege, columns, r, o) as (
    select 'schema ' || n.nspname, roles.role, pr.p, null::text[], roles.r, pr.o
      from pg_namespace n cross join roles cross join ${list(["USAGE", "CREATE"])} pr (p, o)
     where n.nspname in ${ours} and has_schema_privilege(roles.role, n.oid, pr.p)
    union all
    select rel.object, roles.role, pr.p, null, roles.r, pr.o
      from relations rel cross join roles cross join ${list(RELATION_PRIVILEGES)} pr (p, o)
     where rel.relkind <> 'S' and has_table_privilege(roles.role, rel.oid, pr.p)
    union all
    select rel.object, roles.role, pr.p,
           array(select a.attname::text from pg_attribute a
                  where a.attrelid = rel.oid and a.attnum > 0 and not a.attisdropped
                    and has_column_privilege(roles.role, rel.oid, a.attnum, pr.p) order by a.attnum),
           roles.r, pr.o
      from relations rel cross join roles cross join ${list(COLUMN_PRIVILEGES)} pr (p, o)
     where rel.relkind <> 'S' and not has_table_privilege(roles.role, rel.oid, pr.p)
       and has_any_column_privilege(roles.role, rel.oid, pr.p)
    union all
    select rel.object, roles.role, pr.p, null, roles.r, pr.o
      from relations rel cross join roles cross join ${list(SEQUENCE_PRIVILEGES)} pr (p, o)
     where rel.relkind = 'S' and has_sequence_privilege(roles.role, rel.oid, pr.p)
    union all
    select ${FUNCTION_NAME}, roles.role, 'EXECUTE', null, roles.r, 0
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace cross join roles
     where n.nspname in ${ours} and p.prokind <> 'a' and has_function_privilege(roles.role, p.oid, 'EXECUTE')
    union all
    select 'type ' || n.nspname || '.' || t.typname, roles.role, 'USAGE', null, roles.r, 0
      from pg_type t join pg_namespace n on n.oid = t.typnamespace cross join roles
     where n.nspname in ${ours} and t.typtype in ('c', 'e', 'd', 'r', 'm')
       and (t.typrelid = 0 or (select relkind from pg_class where oid = t.typrelid) = 'c')
       and has_type_privilege(roles.role, t.oid, 'USAGE')
  )
  select object, role, privilege, columns from held order by object, r, o`;

/** Every row-level security policy, anywhere (ours include the one on storage.objects). */
export async function actualPolicies(db: TestDatabase): Promise<Record<string, string>> {
  const rows = await db.superuser<{ name: string; rule: string }>(
    `select format('%s.%s: %s', schemaname, tablename, policyname) as name,
            format('%s %s to %s', permissive, cmd, array_to_string(roles, ', ')) as rule
       from pg_policies order by 1`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.rule]));
}

/** `security definer` functions of our schemas whose `search_path` is not pinned. */
export async function unpinnedDefiners(db: TestDatabase): Promise<string[]> {
  const rows = await db.superuser<{ name: string }>(
    `select ${FUNCTION_NAME} as name from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname in ${ours} and p.prosecdef
        and not exists (select 1 from unnest(p.proconfig) c where c like 'search\\_path=%')
      order by 1`,
  );
  return rows.map((r) => r.name);
}

/**
 * The differences between the declared grants and the catalog's, one readable sentence each, naming
 * the object and the role: an object nobody decided on, a declared object that is gone, and every
 * role whose privileges differ.
 */
export function compareGrants(declared: Record<string, Grants>, actual: Record<string, Grants>): string[] {
  const problems: string[] = [];
  for (const [object, grants] of Object.entries(actual)) {
    const expected = declared[object];
    if (!expected) {
      problems.push(
        `${object} has no decision in the declared list; it holds ${JSON.stringify(grants)}: add it there with the privileges it should have`,
      );
      continue;
    }
    for (const role of API_ROLES) {
      if ((expected[role] ?? "") !== (grants[role] ?? "")) {
        problems.push(
          `${object}: ${role} holds [${grants[role] ?? ""}] but the declared list says [${expected[role] ?? ""}]`,
        );
      }
    }
    if (expected.rls !== grants.rls) {
      problems.push(
        `${object}: row level security is ${grants.rls} but the declared list says ${expected.rls}`,
      );
    }
  }
  for (const object of Object.keys(declared)) {
    if (!actual[object]) problems.push(`${object} is in the declared list but not in the database`);
  }
  return problems;
}
