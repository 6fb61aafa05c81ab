/**
 * The `Database` type supabase-js takes (`createClient<Database>(…)`), generated as
 * `supabase gen types typescript` generates it: by Supabase's own generator, the package
 * @supabase/postgrest-typegen that postgres-meta runs for the CLI (the same introspection queries,
 * the same TypeScript template and formatter), over the migrated schema's `public`, the one schema
 * the API exposes. `npm run db:types` writes it to client/database.ts; a test fails when the
 * committed file is not what the migrations give today (tests/db/database-types.test.ts).
 */
import { generateTypescript, sortGeneratorMetadata } from "@supabase/postgrest-typegen/generation";
import { introspect } from "@supabase/postgrest-typegen/introspection";

export const DATABASE_TYPES_FILE = new URL("../../client/database.ts", import.meta.url);

/** The schemas PostgREST exposes on this project (supabase/config.toml `[api] schemas`). */
export const EXPOSED_SCHEMAS = ["public"];

/**
 * The PostgREST major the project runs: the generator writes it into the type
 * (`__InternalSupabase.PostgrestVersion`), which turns on the typings of what it supports.
 */
export const POSTGREST_VERSION = "14";

const HEADER =
  "// The tables, views and functions of the schema `public`, as supabase-js sees them. Generated\n" +
  "// from the migrations by `npm run db:types` (Supabase's generator, as `supabase gen types\n" +
  "// typescript`): do not edit. A test fails when it is stale.\n\n";

/** Runs one parameterless statement on a migrated database and returns its rows. */
export type Query = (sql: string) => Promise<unknown[]>;

export async function databaseTypesText(query: Query): Promise<string> {
  const metadata = await introspect(
    { query: async (sql) => ({ rows: await query(sql) }) },
    { includedSchemas: EXPOSED_SCHEMAS },
  );
  return (
    HEADER +
    (await generateTypescript(sortGeneratorMetadata(metadata), {
      postgrestVersion: POSTGREST_VERSION,
    }))
  );
}
