/**
 * Both transports of the `Db` port over one test database: `postgres` (a direct connection) and
 * `supabase` (supabase-js against the PostgREST stand-in, ./postgrest.ts), with the signer that
 * makes the users' tokens both accept. Suites that check the database API run on each.
 */
import { createLocalSigner, type TokenOptions } from "../../devkit/auth.ts";
import type { User } from "../../devkit/factories.ts";
import { createPostgrestFetch, type PostgrestOptions } from "../../devkit/postgrest/index.ts";
import { createTokenVerifier } from "../../shared/auth/jwt.ts";
import { createPostgresDb } from "../../shared/db/postgres-transport.ts";
import type { SqlClient } from "../../shared/db/sql-client.ts";
import { createSupabaseDb } from "../../shared/db/supabase-transport.ts";
import type { Caller, Db } from "../../shared/ports/db/port.ts";

export const TRANSPORTS = ["postgres", "supabase"] as const;
export type TransportName = (typeof TRANSPORTS)[number];

export interface Transports {
  db: Record<TransportName, Db>;
  /** A signed-in user as the HTTP layer hands them to `asUser`: a token and its verified claims. */
  callerOf(user: User): Promise<Caller>;
  /** A token for `user` the verifier may refuse (expired, another audience…). */
  token(user: User, options: TokenOptions): Promise<string>;
  /** The stand-in's fetch, for tests that speak PostgREST's HTTP themselves. */
  postgrest: ReturnType<typeof createPostgrestFetch>;
  url: string;
  publishableKey: string;
  secretKey: string;
}

export async function createTransports(
  client: SqlClient,
  options: { name: string; statementTimeouts?: PostgrestOptions["statementTimeouts"]; direct?: SqlClient },
): Promise<Transports> {
  const url = `http://${options.name}.supabase.test`;
  const publishableKey = `sb_publishable_${options.name}`;
  const secretKey = `sb_secret_${options.name}`;
  const signer = await createLocalSigner(`${url}/auth/v1`);
  const verifier = createTokenVerifier({
    issuer: signer.issuer,
    audience: "authenticated",
    jwks: signer.jwks,
    jwksUrl: undefined,
    hs256Secret: undefined,
  });
  const postgrest = createPostgrestFetch({
    client,
    url,
    publishableKey,
    secretKey,
    verify: (token) => verifier.verify(token),
    ...(options.statementTimeouts ? { statementTimeouts: options.statementTimeouts } : {}),
  });
  return {
    db: {
      postgres: createPostgresDb(options.direct ?? client),
      supabase: createSupabaseDb({ url, publishableKey, serviceKey: secretKey, fetch: postgrest }),
    },
    token: (user, tokenOptions) => signer.sign(user, tokenOptions),
    callerOf: async (user) => {
      const accessToken = await signer.sign(user);
      return { accessToken, claims: await verifier.verify(accessToken) };
    },
    postgrest,
    url,
    publishableKey,
    secretKey,
  };
}
