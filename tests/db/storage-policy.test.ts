/**
 * The private bucket `service-documentos`: members read their organization's folder, nobody else
 * reads it, and nobody but the service writes it. Removing the read policy fails the member test;
 * adding a write policy fails the write tests.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asRole, createTestDatabase, sqlState, type TestDatabase } from "../../devkit/database.ts";
import { createTenant, type Tenant } from "../../devkit/factories.ts";

let db: TestDatabase;
let a: Tenant;
let b: Tenant;
let pathA: string;

const BUCKET = "service-documentos";
const visible = (claims: Record<string, unknown>, role: "authenticated" | "anon" = "authenticated") =>
  asRole<{ name: string }>(
    db,
    role,
    claims,
    "select name from storage.objects where bucket_id = $1 order by name",
    [BUCKET],
  ).then((rows) => rows.map((r) => r.name));

beforeAll(async () => {
  db = await createTestDatabase();
  [a, b] = await Promise.all([createTenant(db), createTenant(db)]);
  pathA = `${a.org.id}/invoices/${crypto.randomUUID()}/factura.pdf`;
  for (const name of [
    pathA,
    `${b.org.id}/invoices/${crypto.randomUUID()}/factura.pdf`,
    "not-an-org/readme.pdf",
  ]) {
    await db.superuser("insert into storage.objects (bucket_id, name) values ($1, $2)", [BUCKET, name]);
  }
});
afterAll(() => db?.close());

describe("bucket service-documentos", () => {
  it("exists and is private", async () => {
    const [bucket] = await db.superuser<{ public: boolean }>(
      "select public from storage.buckets where id = $1",
      [BUCKET],
    );
    expect(bucket?.public).toBe(false);
  });

  it("lets every member of the organization read its folder, and only its folder", async () => {
    for (const member of [a.admin, a.operador, a.lector]) {
      expect(await visible(member.claims)).toEqual([pathA]);
    }
  });

  it("shows nothing to a member of another organization's folder, nor to anon", async () => {
    expect(await visible(b.admin.claims)).not.toContain(pathA);
    expect(await visible({ role: "anon" }, "anon")).toEqual([]);
  });

  it("refuses uploads, overwrites and deletes by members", async () => {
    const claims = a.admin.claims;
    const upload = asRole(
      db,
      "authenticated",
      claims,
      "insert into storage.objects (bucket_id, name) values ($1, $2)",
      [BUCKET, `${a.org.id}/invoices/x/forged.pdf`],
    );
    expect(await sqlState(upload)).toBe("42501");
    const updated = await asRole(
      db,
      "authenticated",
      claims,
      "update storage.objects set metadata = '{}' where name = $1 returning name",
      [pathA],
    );
    const deleted = await asRole(
      db,
      "authenticated",
      claims,
      "delete from storage.objects where name = $1 returning name",
      [pathA],
    );
    expect([...updated, ...deleted]).toEqual([]);
    expect(await db.superuser("select 1 from storage.objects where name = $1", [pathA])).toHaveLength(1);
  });
});
