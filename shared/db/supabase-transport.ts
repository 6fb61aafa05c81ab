import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { toDomainError } from "./errors.ts";
import { assertApiName, type Caller, type Db, type DbScope } from "./port.ts";

export interface SupabaseDbOptions {
  url: string;
  /** The publishable (anon) key: identifies the project to the API gateway on user-scoped calls. */
  publishableKey: string;
  /** The secret (service role) key: used only by `asService()`. */
  serviceKey: string;
  fetch?: typeof fetch;
}

/**
 * The `supabase` transport: database API functions through PostgREST `rpc` with supabase-js.
 * User-scoped calls forward the caller's own token, so PostgREST verifies it again and RLS applies.
 */
export function createSupabaseDb(options: SupabaseDbOptions): Db {
  const clientOptions = (headers: Record<string, string>) => ({
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: { headers, ...(options.fetch ? { fetch: options.fetch } : {}) },
  });
  const service = createClient(options.url, options.serviceKey, clientOptions({}));

  const scope = (client: SupabaseClient): DbScope => ({
    call: async (fn, args) => {
      assertApiName(fn, args);
      const { data, error } = await client.rpc(fn, args);
      if (error) throw toDomainError(error);
      return (data ?? null) as never;
    },
  });

  return {
    asUser: (caller: Caller) =>
      scope(
        createClient(
          options.url,
          options.publishableKey,
          clientOptions({ Authorization: `Bearer ${caller.accessToken}` }),
        ),
      ),
    asService: () => scope(service),
    close: async () => {},
  };
}
