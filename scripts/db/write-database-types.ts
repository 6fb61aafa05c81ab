/**
 * `npm run db:types`: writes client/database.ts (./database-types.ts) from a throwaway database with
 * the migrations applied — PostgreSQL 15 as the tests start it when its binaries are installed,
 * else an in-memory PGlite — and removes the database again.
 */
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import {
  findPostgresBinaries,
  startPostgresServer,
  TEMPLATE_DATABASE,
} from "../../devkit/postgres-server.ts";
import { applySchema } from "../../devkit/schema.ts";
import { DATABASE_TYPES_FILE, databaseTypesText, type Query } from "./database-types.ts";

async function withMigratedDatabase<T>(work: (query: Query, engine: string) => Promise<T>): Promise<T> {
  const bindir = await findPostgresBinaries();
  if (bindir) {
    const server = await startPostgresServer(bindir);
    const url = new URL(server.adminUrl);
    url.pathname = `/${TEMPLATE_DATABASE}`;
    const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
    try {
      return await work((text) => sql.unsafe(text), `PostgreSQL ${server.version}`);
    } finally {
      await sql.end({ timeout: 5 });
      await server.stop();
    }
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const pg = await PGlite.create();
  try {
    await applySchema((text) => pg.exec(text));
    return await work(async (text) => (await pg.query(text)).rows, "PGlite (PostgreSQL 15 not installed)");
  } finally {
    await pg.close();
  }
}

const engine = await withMigratedDatabase(async (query, engine) => {
  await writeFile(DATABASE_TYPES_FILE, await databaseTypesText(query));
  return engine;
});
console.log(`wrote ${fileURLToPath(DATABASE_TYPES_FILE)} (from the migrations on ${engine})`);
