/**
 * Brings a database off Supabase up to date: on a database with no migrations recorded, the
 * compatibility bootstrap first; then each migration not yet recorded in
 * `supabase_migrations.schema_migrations` — the table the Supabase CLI keeps, so a database migrated
 * here and one migrated by `supabase migration up` agree — each in one transaction with its record;
 * then the demo seed, when asked for and the database holds no organization yet.
 */

import { type SchemaFile, schemaFiles } from "../../devkit/schema.ts";
import { type SqlClient, sqlLiteral } from "../../shared/db/sql-client.ts";

export interface MigrationReport {
  applied: string[];
  seeded: boolean;
}

export async function migrate(
  client: SqlClient,
  options: { seed: boolean; files?: SchemaFile[] },
): Promise<MigrationReport> {
  const files = options.files ?? (await schemaFiles({ seed: true }));
  const bootstrap = files.find((f) => f.name === "compat/bootstrap.sql");
  const seed = files.find((f) => f.name === "seed.sql");
  const migrations = files.filter((f) => f.name.startsWith("migrations/"));
  if (!bootstrap || !seed) throw new Error("supabase/compat/bootstrap.sql or supabase/seed.sql is missing");

  await client.exec(`
    create schema if not exists supabase_migrations;
    create table if not exists supabase_migrations.schema_migrations (
      version text primary key, statements text[], name text);`);
  const done = new Set(
    (
      await client.transaction((s) =>
        s.query<{ version: string }>("select version from supabase_migrations.schema_migrations"),
      )
    ).map((r) => r.version),
  );
  // Only once: the bootstrap grants what Supabase grants by default (sequences included), and the
  // migrations take some of it back; running it again would hand it out again.
  if (done.size === 0) await client.exec(bootstrap.sql);

  const applied: string[] = [];
  for (const file of migrations) {
    const base = file.name.slice("migrations/".length, -".sql".length);
    const [version = base, ...rest] = base.split("_");
    if (done.has(version)) continue;
    // One script, so one implicit transaction (the simple query protocol): the migration and its
    // record land together or not at all. No explicit begin/commit: one that failed midway would
    // leave its pooled connection inside an aborted transaction, failing the calls that follow on it
    // (each connection is a postgres.js client of its own, whose UNSAFE_TRANSACTION guard is off).
    const record = `insert into supabase_migrations.schema_migrations (version, name)
      values (${sqlLiteral(version)}, ${sqlLiteral(rest.join("_"))})`;
    try {
      await client.exec(`${file.sql}\n;\n${record};`);
    } catch (error) {
      throw new Error(`migration ${file.name} failed: ${(error as Error).message}`, { cause: error });
    }
    applied.push(file.name);
  }

  // Decided by the data, not by "nothing was migrated before": a first start that failed midway
  // and was fixed still gets its demo data.
  const [empty] = await client.transaction((s) =>
    s.query<{ empty: boolean }>("select not exists (select 1 from public.organizations) as empty"),
  );
  const seeded = options.seed && empty?.empty === true;
  if (seeded) await client.exec(seed.sql);
  return { applied, seeded };
}
