/**
 * The local server's stand-in for Supabase Storage downloads, at the path supabase-js uses
 * (`GET /storage/v1/object/<bucket>/<path>`, also `/object/authenticated/…`): the caller's own token,
 * and the bucket's RLS policy decides, by reading `storage.objects` as that user. Like Storage, it
 * answers browsers' CORS preflights and errors in Storage's own shape (`{ statusCode, error, message }`,
 * which supabase-js reads), with `x-request-id` as every answer of the local server.
 */
import type { VerifiedClaims } from "../../shared/auth/jwt.ts";
import type { SqlClient } from "../../shared/db/sql-client.ts";
import { DOCUMENTS_BUCKET, type DocumentStore } from "../../shared/ports/storage.ts";
import { CORS_HEADERS, preflight } from "./answers.ts";

const PATH = /^\/storage\/v1\/object\/(?:authenticated\/)?([^/]+)\/(.+)$/;

export function isStorageDownload(url: URL): boolean {
  return PATH.test(url.pathname);
}

export function createStorageDownloadHandler(options: {
  client: SqlClient;
  store: DocumentStore;
  verifyToken(token: string): Promise<VerifiedClaims>;
}): (request: Request) => Promise<Response> {
  const answer = (status: number, error: string, message: string, headers: Record<string, string> = {}) =>
    Response.json(
      { statusCode: String(status), error, message },
      { status, headers: { ...CORS_HEADERS, ...headers, "x-request-id": crypto.randomUUID() } },
    );

  return async (request) => {
    const match = PATH.exec(new URL(request.url).pathname);
    if (!match) return answer(404, "not_found", "Not found");
    if (request.method === "OPTIONS") return preflight("GET, HEAD, OPTIONS");
    if (request.method !== "GET" && request.method !== "HEAD") {
      return answer(405, "method_not_allowed", "Only downloads are served here.", { allow: "GET, HEAD" });
    }
    const [, bucket, rawPath = ""] = match;
    let path: string;
    try {
      path = decodeURIComponent(rawPath);
    } catch {
      // A `%` not followed by two hex digits, or escapes that are not UTF-8: no object has that name.
      return answer(400, "InvalidKey", "invalid object key");
    }
    // Storage refuses keys with control characters too; a NUL would not even reach the query
    // (PostgreSQL text cannot hold one), so it is the same 400, never a database error.
    if (hasControlCharacter(path)) return answer(400, "InvalidKey", "invalid object key");
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
      return s.query<{ mimetype: string | null }>(
        "select metadata->>'mimetype' as mimetype from storage.objects where bucket_id = $1 and name = $2",
        [bucket ?? "", path],
      );
    });
    const bytes = bucket === DOCUMENTS_BUCKET && visible.length > 0 ? await options.store.get(path) : null;
    if (!bytes) return answer(404, "not_found", "Object not found");
    return new Response(request.method === "HEAD" ? null : bytes, {
      headers: {
        ...CORS_HEADERS,
        // as uploaded: the PDFs, and the AttachedDocument XML beside them
        "content-type": visible[0]?.mimetype ?? "application/octet-stream",
        "content-length": String(bytes.byteLength),
        "x-request-id": crypto.randomUUID(),
      },
    });
  };
}

/** U+0000–U+001F or U+007F: no object name holds one. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
