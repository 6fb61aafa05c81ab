/**
 * The local server's stand-in for Supabase Storage downloads, at the path supabase-js uses
 * (`GET /storage/v1/object/<bucket>/<path>`, also `/object/authenticated/…`): the caller's own token,
 * and the bucket's RLS policy decides, by reading `storage.objects` as that user.
 */
import type { VerifiedClaims } from "../../shared/auth/jwt.ts";
import type { SqlClient } from "../../shared/db/sql-client.ts";
import { DOCUMENTS_BUCKET, type DocumentStore } from "../../shared/storage/port.ts";

const PATH = /^\/storage\/v1\/object\/(?:authenticated\/)?([^/]+)\/(.+)$/;

export function isStorageDownload(url: URL): boolean {
  return PATH.test(url.pathname);
}

export function createStorageDownloadHandler(options: {
  client: SqlClient;
  store: DocumentStore;
  verifyToken(token: string): Promise<VerifiedClaims>;
}): (request: Request) => Promise<Response> {
  const answer = (status: number, error: string, message: string) =>
    Response.json({ statusCode: String(status), error, message }, { status });

  return async (request) => {
    const match = PATH.exec(new URL(request.url).pathname);
    if (!match || (request.method !== "GET" && request.method !== "HEAD")) {
      return answer(404, "not_found", "Not found");
    }
    const [, bucket, rawPath = ""] = match;
    let path: string;
    try {
      path = decodeURIComponent(rawPath);
    } catch {
      // A `%` not followed by two hex digits, or escapes that are not UTF-8: no object has that name.
      return answer(400, "InvalidKey", "invalid object key");
    }
    const token = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
    let claims: VerifiedClaims;
    try {
      if (!token) throw new Error("no token");
      claims = await options.verifyToken(token);
    } catch {
      return answer(400, "InvalidJWT", "invalid or missing token");
    }
    // As Storage does: the object is visible to this user only if RLS lets them select its row.
    const visible = await options.client.transaction(async (s) => {
      await s.query(
        "select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)",
        [JSON.stringify({ ...claims, role: "authenticated" })],
      );
      return s.query("select 1 from storage.objects where bucket_id = $1 and name = $2", [
        bucket ?? "",
        path,
      ]);
    });
    const bytes = bucket === DOCUMENTS_BUCKET && visible.length > 0 ? await options.store.get(path) : null;
    if (!bytes) return answer(404, "not_found", "Object not found");
    return new Response(request.method === "HEAD" ? null : bytes, {
      headers: { "content-type": "application/pdf", "content-length": String(bytes.byteLength) },
    });
  };
}
