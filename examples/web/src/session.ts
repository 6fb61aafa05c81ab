/**
 * The signed-in demo user: a supabase-js client that sends its token (to /rest/v1, the functions and
 * Storage alike) and the typed client over it. Locally the tokens come from the Vite server's
 * /demo.json (vite.config.ts); a real app gets its session from Supabase Auth instead.
 */
import { createEinvoicingClient, type Database, type EinvoicingClient } from "@einvoicing/client";
import { createClient, type SupabaseClient } from "@supabase/supabase-js";

export interface DemoUser {
  email: string;
  role: string;
  org_id: string;
  org_name: string;
  access_token: string;
}

export interface DemoConfig {
  supabase_url: string;
  apikey: string;
  /** Whether a Realtime server answers at supabase_url (not the local server's case). */
  realtime: boolean;
  users: DemoUser[];
  error?: string;
}

export interface Session {
  user: DemoUser;
  orgId: string;
  realtime: boolean;
  supabase: SupabaseClient<Database>;
  einvoicing: EinvoicingClient;
}

export async function loadDemoConfig(): Promise<DemoConfig> {
  const response = await fetch("/demo.json", { cache: "no-store" });
  const config = (await response.json()) as DemoConfig;
  if (config.error) throw new Error(config.error);
  return config;
}

export function signIn(config: DemoConfig, user: DemoUser): Session {
  const supabase = createClient<Database>(config.supabase_url, config.apikey, {
    accessToken: async () => user.access_token,
  });
  return {
    user,
    orgId: user.org_id,
    realtime: config.realtime,
    supabase,
    einvoicing: createEinvoicingClient(supabase),
  };
}
