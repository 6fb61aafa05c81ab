/**
 * Brings a database off Supabase up to date: the compatibility bootstrap (idempotent), then each
 * migration not yet recorded in `supabase_migrations.schema_migrations` — the table the Supabase
 * CLI keeps, so a database migrated here and one migrated by `supabase migration up` agree — and
 * the demo seed on a database that had no migrations before.
 */
import { type SqlClient, sqlLiteral } from "../../shared/db/sql-client.ts";
import { schemaFiles } from "./schema.ts";

export interface MigrationReport {
  applied: string[];
  seeded: boolean;
}

export async function migrate(client: SqlClient, options: { seed: boolean }): Promise<MigrationReport> {
  const files = await schemaFiles({ seed: true });
  const bootstrap = files.find((f) => f.name === "compat/bootstrap.sql");
  const seed = files.find((f) => f.name === "seed.sql");
  const migrations = files.filter((f) => f.name.startsWith("migrations/"));
  if (!bootstrap || !seed) throw new Error("supabase/compat/bootstrap.sql or supabase/seed.sql is missing");

  await client.exec(bootstrap.sql);
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

  const applied: string[] = [];
  for (const file of migrations) {
    const base = file.name.slice("migrations/".length, -".sql".length);
    const [version = base, ...rest] = base.split("_");
    if (done.has(version)) continue;
    // One script, so one implicit transaction (the simple query protocol): the migration and its
    // record land together or not at all. No explicit begin/commit: a pooled postgres.js client
    // refuses them (UNSAFE_TRANSACTION), and it could run them on two different connections.
    const record = `insert into supabase_migrations.schema_migrations (version, name)
      values (${sqlLiteral(version)}, ${sqlLiteral(rest.join("_"))})`;
    try {
      await client.exec(`${file.sql}\n;\n${record};`);
    } catch (error) {
      throw new Error(`migration ${file.name} failed: ${(error as Error).message}`, { cause: error });
    }
    applied.push(file.name);
  }

  const seeded = options.seed && done.size === 0 && applied.length > 0;
  if (seeded) await client.exec(seed.sql);
  return { applied, seeded };
}
