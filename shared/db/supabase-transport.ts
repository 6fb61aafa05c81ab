import type { SupabaseClient } from "@supabase/supabase-js";
import { assertApiName, type Caller, type Db, type DbScope } from "../ports/db/port.ts";
import { toDomainError } from "./errors.ts";

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
 * supabase-js is imported on first use, so it costs nothing at a function's cold start.
 */
export function createSupabaseDb(options: SupabaseDbOptions): Db {
  const clientOptions = (headers: Record<string, string>) => ({
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: { headers, ...(options.fetch ? { fetch: options.fetch } : {}) },
  });
  const supabase = lazySupabase();
  let service: Promise<SupabaseClient> | undefined;

  const scope = (client: () => Promise<SupabaseClient>): DbScope => ({
    call: async (fn, args) => {
      assertApiName(fn, args);
      const { data, error } = await (await client()).rpc(fn, args);
      if (error) throw toDomainError(error);
      return (data ?? null) as never;
    },
  });

  return {
    asUser: (caller: Caller) => {
      let user: Promise<SupabaseClient> | undefined;
      return scope(
        () =>
          (user ??= supabase().then((create) =>
            create(
              options.url,
              options.publishableKey,
              clientOptions({ Authorization: `Bearer ${caller.accessToken}` }),
            ),
          )),
      );
    },
    asService: () =>
      scope(
        () =>
          (service ??= supabase().then((create) =>
            create(options.url, options.serviceKey, clientOptions({})),
          )),
      ),
    close: async () => {},
  };
}

/** `createClient`, imported once, on first use. */
export function lazySupabase(): () => Promise<typeof import("@supabase/supabase-js")["createClient"]> {
  let pending: Promise<typeof import("@supabase/supabase-js")["createClient"]> | undefined;
  return () => (pending ??= import("@supabase/supabase-js").then((module) => module.createClient));
}
