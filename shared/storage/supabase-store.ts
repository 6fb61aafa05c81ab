/**
 * DocumentStore on Supabase Storage, with the service-role client: upsert as application/pdf into
 * the private bucket. Members download with their own session under the bucket's read policy.
 */
import { createClient } from "@supabase/supabase-js";
import { DatabaseError } from "../errors.ts";
import { DOCUMENTS_BUCKET, type DocumentStore } from "./port.ts";

export function createSupabaseStore(options: {
  url: string;
  serviceKey: string;
  fetch?: typeof fetch;
}): DocumentStore {
  const client = createClient(options.url, options.serviceKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    ...(options.fetch ? { global: { fetch: options.fetch } } : {}),
  });
  const bucket = () => client.storage.from(DOCUMENTS_BUCKET);
  return {
    async put(path, bytes, contentType) {
      const { error } = await bucket().upload(path, bytes, { contentType, upsert: true, cacheControl: "60" });
      if (error) throw new DatabaseError(`storage upload failed: ${error.message}`, { cause: error });
    },
    async get(path) {
      const { data, error } = await bucket().download(path);
      if (error) {
        const status = (error as { status?: number; statusCode?: string }).status;
        if (status === 404 || /not.?found/i.test(error.message)) return null;
        throw new DatabaseError(`storage download failed: ${error.message}`, { cause: error });
      }
      return new Uint8Array(await data.arrayBuffer());
    },
  };
}
