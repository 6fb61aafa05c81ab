/**
 * client/database.ts, the tables' types for supabase-js, is what Supabase's generator makes of the
 * migrations today (scripts/db/database-types.ts), on this run's migrated database.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { DATABASE_TYPES_FILE, databaseTypesText } from "../../scripts/db/database-types.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

describe("client/database.ts", () => {
  it("is what `npm run db:types` generates from the migrations", async () => {
    const generated = await databaseTypesText((sql) => db.client.transaction((s) => s.query(sql)));
    // When this fails: run `npm run db:types` and commit client/database.ts.
    expect(readFileSync(DATABASE_TYPES_FILE, "utf8")).toBe(generated);
  }, 60_000);

  it("types the tables a web app writes, with their draft columns", () => {
    const text = readFileSync(DATABASE_TYPES_FILE, "utf8");
    expect(text).toMatch(/^ {6}invoices: \{$/m);
    expect(text).toMatch(/^ {6}invoice_lines: \{$/m);
    expect(text).toContain('PostgrestVersion: "14"');
  });
});
