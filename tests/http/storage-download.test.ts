/**
 * The local server's Storage downloads, driven by supabase-js as a web app would: a member gets the
 * PDF with their own session, a member of another org and a bad token get nothing.
 */
import { createClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, TEST_API_KEY, TEST_URL, type TestApp } from "../../devkit/app.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTenant, type Tenant, type User } from "../../devkit/factories.ts";
import { createStorageDownloadHandler } from "../../scripts/local/storage-download.ts";
import { DOCUMENTS_BUCKET, documentPath } from "../../shared/ports/storage.ts";

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

describe("local Storage downloads, status by status", () => {
  const objectUrl = (objectPath: string) => `${TEST_URL}/storage/v1/object/${DOCUMENTS_BUCKET}/${objectPath}`;
  async function get(url: string, token?: string, method = "GET") {
    const handler = createStorageDownloadHandler({
      client: db.client,
      store: t.documents,
      verifyToken: t.deps.verifyToken,
    });
    return handler(new Request(url, { method, headers: token ? { authorization: `Bearer ${token}` } : {} }));
  }

  it("200 with the PDF for a member, also under /object/authenticated/", async () => {
    const token = await t.token(a.lector);
    const response = await get(objectUrl(path), token);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(PDF);
    const viaAuthenticated = `${TEST_URL}/storage/v1/object/authenticated/${DOCUMENTS_BUCKET}/${path}`;
    expect((await get(viaAuthenticated, token)).status).toBe(200);
    const head = await get(objectUrl(path), token, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(PDF.byteLength));
  });

  it("404 for a member of another organization and for an object that does not exist", async () => {
    expect((await get(objectUrl(path), await t.token(b.admin))).status).toBe(404);
    const missing = documentPath(a.org.id, "invoices", crypto.randomUUID(), "factura-SETP2.pdf");
    const response = await get(objectUrl(missing), await t.token(a.lector));
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ statusCode: "404", error: "not_found" });
  });

  it("400 without a token, with a token that is not one, and with the publishable key as token", async () => {
    for (const token of [undefined, "not-a-token", TEST_API_KEY]) {
      const response = await get(objectUrl(path), token);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ statusCode: "400", error: "InvalidJWT" });
    }
  });

  it("400, not a crash, for a path with a malformed percent escape", async () => {
    const token = await t.token(a.lector);
    for (const bad of [`${a.org.id}/invoices/%E0%A4%A.pdf`, `${a.org.id}/%`, `${a.org.id}/%zz.pdf`]) {
      const response = await get(objectUrl(bad), token);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ statusCode: "400", error: "InvalidKey" });
    }
  });

  it("400 in Storage's shape, not a database error, for a path holding a NUL or another control character", async () => {
    const token = await t.token(a.lector);
    for (const bad of [
      `${a.org.id}/invoices/%00`,
      `${a.org.id}/invoices/factura%00.pdf`,
      `${a.org.id}/invoices/%0D%0Afactura.pdf`,
      `${a.org.id}/invoices/%7F`,
    ]) {
      const response = await get(objectUrl(bad), token);
      expect({ bad, status: response.status }).toEqual({ bad, status: 400 });
      expect(await response.json()).toEqual({
        statusCode: "400",
        error: "InvalidKey",
        message: "invalid object key",
      });
    }
  });

  it("404 for another bucket, 405 naming GET and HEAD for other methods, and a preflight for browsers", async () => {
    const token = await t.token(a.lector);
    expect((await get(`${TEST_URL}/storage/v1/object/otro-bucket/${path}`, token)).status).toBe(404);
    const deleted = await get(objectUrl(path), token, "DELETE");
    expect({ status: deleted.status, allow: deleted.headers.get("allow") }).toEqual({
      status: 405,
      allow: "GET, HEAD",
    });
    const preflight = await get(objectUrl(path), undefined, "OPTIONS");
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
  });
});
