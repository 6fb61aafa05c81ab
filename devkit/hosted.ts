/**
 * A database as a hosted Supabase project has it, and the migrations applied as `supabase db push`
 * applies them there — on a throwaway PostgreSQL 15 cluster whose bootstrap superuser is
 * `supabase_admin`, as the platform's is:
 *
 * - the roles and the auth/storage/realtime pieces of supabase/compat/bootstrap.sql, created by
 *   `postgres` while it is still a superuser (as Supabase's image runs its init scripts:
 *   supabase/postgres migrations/db/migrate.sh at 7db7e1a9), then owned by the platform's roles; then
 *   supabase/compat/hosted-postgres.sql takes the superuser from `postgres` (BYPASSRLS stays) and
 *   grants what the platform grants;
 * - each migration file applied in one transaction, its history row in the same one, and stopped at
 *   the first that fails (supabase/cli pkg/migration/file.go at 078ef54c: "ExecBatch is implicitly
 *   transactional"), as `postgres` (`set role`, as the CLI's login role does);
 * - supautils' `policy_grants` stood in for: a CREATE/ALTER/DROP POLICY by `postgres` on a table the
 *   setting lists for it runs as the superuser, and any other runs as `postgres` (supabase/supautils
 *   src/supautils.c at 7e8cfb7e, `T_CreatePolicyStmt`: `switch_to_superuser` when
 *   `is_current_role_granted_table_policy`). The platform lists, among others, storage.objects and
 *   realtime.messages (supabase/postgres ansible/files/postgresql_config/supautils.conf.j2 at 7db7e1a9).
 *
 * Used by tests/db/hosted-migrations.test.ts.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import type { SchemaFile } from "./schema.ts";

const COMPAT = fileURLToPath(new URL("../supabase/compat/", import.meta.url));

/** The platform's `supautils.policy_grants` for `postgres` (supautils.conf.j2 at 7db7e1a9). */
export const PLATFORM_POLICY_GRANTS = [
  "auth.audit_log_entries",
  "auth.identities",
  "auth.refresh_tokens",
  "auth.sessions",
  "auth.users",
  "realtime.messages",
  "storage.buckets",
  "storage.migrations",
  "storage.objects",
  "storage.s3_multipart_uploads",
  "storage.s3_multipart_uploads_parts",
];

export interface HostedOptions {
  /** Tables `postgres` may manage policies on (supautils' policy_grants); the platform's by default. */
  policyGrants?: string[];
  /** false: a new project whose Realtime has not connected yet (no `realtime` schema). */
  realtime?: boolean;
}

/** How a push went: the files applied (in order), and the one that failed, with its error. */
export interface PushResult {
  applied: string[];
  failed?: { file: string; code: string; message: string; hint?: string };
}

/**
 * Creates database `name` on the cluster of `adminUrl` (the `supabase_admin` superuser's URL) as a
 * hosted project has it before its first `db push`. Answers its superuser URL.
 */
export async function createHostedDatabase(
  adminUrl: string,
  name: string,
  options: HostedOptions = {},
): Promise<string> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const [role] = await admin`select 1 from pg_roles where rolname = 'postgres'`;
    // the init scripts run as `postgres`, a superuser until hosted-postgres.sql demotes it
    await admin.unsafe(role ? "alter role postgres superuser" : "create role postgres superuser login");
    // migrate.sh: `alter database postgres owner to postgres`
    await admin.unsafe(`create database ${name} owner postgres`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
  const db = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const bootstrap = await readFile(`${COMPAT}bootstrap.sql`, "utf8");
    await db.begin(async (tx) => {
      await tx.unsafe("set local role postgres");
      await tx.unsafe(bootstrap);
    });
    if (options.realtime === false) await db.unsafe("drop schema realtime cascade");
    await db.unsafe(await readFile(`${COMPAT}hosted-postgres.sql`, "utf8"));
  } finally {
    await db.end({ timeout: 5 });
  }
  return url;
}

/**
 * What Realtime does when it first connects to a project: its schema, then the grants it gives
 * `postgres` (the realtime part of bootstrap.sql and hosted-postgres.sql, both idempotent).
 */
export async function realtimeConnects(url: string): Promise<void> {
  const db = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await db.unsafe(await readFile(`${COMPAT}bootstrap.sql`, "utf8"));
    await db.unsafe(await readFile(`${COMPAT}hosted-postgres.sql`, "utf8"));
  } finally {
    await db.end({ timeout: 5 });
  }
}

/**
 * `supabase db push` of `files` to the database at `url` (a superuser URL: the statements run as
 * `postgres`, and as the superuser only where supautils would switch to it). Files already in the
 * history are skipped, as a second push skips them.
 */
export async function pushAsHostedPostgres(
  url: string,
  files: SchemaFile[],
  options: HostedOptions = {},
): Promise<PushResult> {
  const grants = new Set(options.policyGrants ?? PLATFORM_POLICY_GRANTS);
  const db = postgres(url, { max: 1, onnotice: () => {} });
  const result: PushResult = { applied: [] };
  try {
    await db.begin(async (tx) => {
      await tx.unsafe("set local role postgres");
      await tx.unsafe(`create schema if not exists supabase_migrations;
        create table if not exists supabase_migrations.schema_migrations (
          version text primary key, statements text[], name text)`);
    });
    for (const file of files) {
      const [, version = file.name, name = ""] = /(\d+)_(.*)\.sql$/.exec(file.name) ?? [];
      const [done] = await db`select 1 from supabase_migrations.schema_migrations where version = ${version}`;
      if (done) continue;
      const statements = sqlStatements(file.sql);
      try {
        await db.begin(async (tx) => {
          await tx.unsafe("set local role postgres");
          for (const statement of statements) {
            const table = policyTable(statement);
            if (table && grants.has(table)) {
              // supautils: run as the superuser, then back to the role
              await tx.unsafe("reset role");
              await tx.unsafe(statement);
              await tx.unsafe("set local role postgres");
            } else {
              await tx.unsafe(statement);
            }
          }
          await tx`insert into supabase_migrations.schema_migrations (version, name, statements)
                   values (${version}, ${name}, ${statements})`;
        });
        result.applied.push(file.name);
      } catch (error) {
        const e = error as { code?: string; message?: string; hint?: string };
        result.failed = { file: file.name, code: String(e.code), message: String(e.message), hint: e.hint };
        break;
      }
    }
  } finally {
    await db.end({ timeout: 5 });
  }
  return result;
}

/** The table a CREATE/ALTER/DROP POLICY statement is on (`realtime.messages`), or null. */
export function policyTable(statement: string): string | null {
  const m =
    /^\s*(?:create|alter|drop)\s+policy\s+(?:if\s+exists\s+)?(?:"[^"]*"|\S+)\s+on\s+([A-Za-z_."]+)/i.exec(
      statement,
    );
  if (!m?.[1]) return null;
  const name = m[1].replaceAll('"', "").toLowerCase();
  return name.includes(".") ? name : `public.${name}`;
}

/**
 * The statements of a SQL file, split on the semicolons outside comments, quoted strings, quoted
 * identifiers and dollar-quoted bodies, with the comments removed; empty ones left out.
 */
export function sqlStatements(sql: string): string[] {
  const statements: string[] = [];
  let current = "";
  let i = 0;
  while (i < sql.length) {
    const rest = sql.slice(i);
    const dollar = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(rest);
    let end: number;
    if (rest.startsWith("--")) {
      const newline = sql.indexOf("\n", i);
      i = newline === -1 ? sql.length : newline;
      continue;
    }
    if (rest.startsWith("/*")) {
      i = sql.indexOf("*/", i + 2) + 2;
      continue;
    }
    if (sql[i] === "'" || sql[i] === '"') {
      const quote = sql[i];
      end = i + 1;
      while (end < sql.length && (sql[end] !== quote || sql[end + 1] === quote))
        end += sql[end] === quote ? 2 : 1;
      end += 1;
    } else if (dollar) {
      end = sql.indexOf(dollar[0], i + dollar[0].length) + dollar[0].length;
    } else if (sql[i] === ";") {
      if (current.trim()) statements.push(current.trim());
      current = "";
      i += 1;
      continue;
    } else {
      end = i + 1;
    }
    if (end <= i) throw new Error(`unterminated string or body at offset ${i}`);
    current += sql.slice(i, end);
    i = end;
  }
  if (current.trim()) statements.push(current.trim());
  return statements;
}
