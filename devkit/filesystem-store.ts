/**
 * DocumentStore in a local folder, for `npm start` and the tests. Like Supabase Storage it keeps a
 * row per object in `storage.objects`, so the bucket's read policy decides who may download.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, normalize } from "node:path";
import type { SqlClient } from "../shared/db/sql-client.ts";
import { DatabaseError } from "../shared/kernel/errors.ts";
import { DOCUMENTS_BUCKET, type DocumentStore } from "../shared/ports/storage.ts";

export function createFilesystemStore(
  root: string,
  client: SqlClient,
): DocumentStore & { file(path: string): string } {
  const file = (path: string) => {
    const relative = normalize(path);
    if (relative.startsWith("..") || relative.startsWith("/"))
      throw new Error(`unsafe storage path: ${path}`);
    return join(root, DOCUMENTS_BUCKET, relative);
  };
  return {
    file,
    async put(path, bytes, contentType) {
      try {
        await mkdir(dirname(file(path)), { recursive: true });
        await writeFile(file(path), bytes);
      } catch (error) {
        // as the Supabase Storage adapter answers a failed upload: unavailable, try again (503)
        throw new DatabaseError(`storage write failed: ${(error as Error).message}`, { cause: error });
      }
      await client.transaction((s) =>
        s.query(
          `insert into storage.objects (bucket_id, name, metadata) values ($1, $2, $3)
           on conflict (bucket_id, name) do update set metadata = excluded.metadata, updated_at = now()`,
          [DOCUMENTS_BUCKET, path, { mimetype: contentType, size: bytes.byteLength }],
        ),
      );
    },
    async get(path) {
      try {
        return new Uint8Array(await readFile(file(path)));
      } catch (error) {
        if ((error as { code?: string }).code === "ENOENT") return null;
        throw new DatabaseError(`storage read failed: ${(error as Error).message}`, { cause: error });
      }
    },
  };
}
