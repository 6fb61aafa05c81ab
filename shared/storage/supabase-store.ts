/**
 * DocumentStore on Supabase Storage, with the service-role client: upsert as application/pdf into
 * the private bucket. Members download with their own session under the bucket's read policy.
 */
import type { SupabaseClient } from "@supabase/supabase-js";
import { lazySupabase } from "../db/supabase-transport.ts";
import { DatabaseError } from "../kernel/errors.ts";
import { DOCUMENTS_BUCKET, type DocumentStore } from "../ports/storage.ts";

export function createSupabaseStore(options: {
  url: string;
  serviceKey: string;
  fetch?: typeof fetch;
}): DocumentStore {
  const supabase = lazySupabase();
  let client: Promise<SupabaseClient> | undefined;
  const bucket = async () => {
    client ??= supabase().then((create) =>
      create(options.url, options.serviceKey, {
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
        ...(options.fetch ? { global: { fetch: options.fetch } } : {}),
      }),
    );
    return (await client).storage.from(DOCUMENTS_BUCKET);
  };
  return {
    async put(path, bytes, contentType) {
      const { error } = await (await bucket()).upload(path, bytes, {
        contentType,
        upsert: true,
        cacheControl: "60",
      });
      if (error) throw new DatabaseError(`storage upload failed: ${error.message}`, { cause: error });
    },
    async get(path) {
      const { data, error } = await (await bucket()).download(path);
      if (error) {
        const status = (error as { status?: number; statusCode?: string }).status;
        if (status === 404 || /not.?found/i.test(error.message)) return null;
        throw new DatabaseError(`storage download failed: ${error.message}`, { cause: error });
      }
      return new Uint8Array(await data.arrayBuffer());
    },
  };
}
