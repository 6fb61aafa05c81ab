/**
 * The local server's Storage downloads, driven by supabase-js as a web app would: a member gets the
 * PDF with their own session, a member of another org and a bad token get nothing.
 */
import { createClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStorageDownloadHandler } from "../../scripts/local/storage-download.ts";
import { DOCUMENTS_BUCKET, documentPath } from "../../shared/storage/port.ts";
import { createTestApp, TEST_API_KEY, TEST_URL, type TestApp } from "../support/app.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { createTenant, type Tenant, type User } from "../support/factories.ts";

let db: TestDatabase;
let t: TestApp;
let a: Tenant;
let b: Tenant;
let path: string;
const PDF = new TextEncoder().encode("%PDF-1.7 test document");

beforeAll(async () => {
  db = await createTestDatabase();
  t = await createTestApp(db);
  [a, b] = await Promise.all([createTenant(db), createTenant(db)]);
  path = documentPath(a.org.id, "invoices", crypto.randomUUID(), "factura-SETP1.pdf");
  await t.documents.put(path, PDF, "application/pdf");
});
afterAll(() => db?.close());

async function downloadAs(user: User | null, token?: string) {
  const handler = createStorageDownloadHandler({
    client: db.client,
    store: t.documents,
    verifyToken: t.deps.verifyToken,
  });
  const accessToken = token ?? (user ? await t.token(user) : TEST_API_KEY);
  const supabase = createClient(TEST_URL, TEST_API_KEY, {
    global: {
      fetch: (input, init) => handler(new Request(input, init)),
      headers: { Authorization: `Bearer ${accessToken}` },
    },
    auth: { persistSession: false, autoRefreshToken: false },
  });
  return supabase.storage.from(DOCUMENTS_BUCKET).download(path);
}

describe("local Storage downloads", () => {
  it("serve the PDF to a member of the organization, with their own token", async () => {
    const { data, error } = await downloadAs(a.lector);
    expect(error).toBeNull();
    expect(new Uint8Array(await (data as Blob).arrayBuffer())).toEqual(PDF);
  });

  it("refuse a member of another organization and a caller without a session", async () => {
    expect((await downloadAs(b.admin)).data).toBeNull();
    expect((await downloadAs(null)).data).toBeNull();
    expect((await downloadAs(null, "not-a-token")).data).toBeNull();
  });
});
