/**
 * The database schema as files, in the order they apply: the Supabase compatibility bootstrap (only
 * off Supabase), the migrations, and optionally the demo seed. Used by the local server and the
 * tests; runs on Node and Deno.
 */
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const SUPABASE_DIR = fileURLToPath(new URL("../supabase/", import.meta.url));

export interface SchemaFile {
  name: string;
  sql: string;
}

export async function schemaFiles(options: { seed?: boolean } = {}): Promise<SchemaFile[]> {
  const migrations = (await readdir(`${SUPABASE_DIR}migrations`)).filter((f) => f.endsWith(".sql")).sort();
  const names = [
    "compat/bootstrap.sql",
    ...migrations.map((f) => `migrations/${f}`),
    ...(options.seed ? ["seed.sql"] : []),
  ];
  return Promise.all(
    names.map(async (name) => ({ name, sql: await readFile(`${SUPABASE_DIR}${name}`, "utf8") })),
  );
}

/** Applies the files one by one through `exec` (a multi-statement, parameterless SQL runner). */
export async function applySchema(
  exec: (sql: string) => Promise<unknown>,
  options: { seed?: boolean } = {},
): Promise<void> {
  for (const file of await schemaFiles(options)) {
    try {
      await exec(file.sql);
    } catch (error) {
      throw new Error(`applying ${file.name} failed: ${(error as Error).message}`, { cause: error });
    }
  }
}
