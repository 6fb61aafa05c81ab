/**
 * The composition root: validated config in, adapters out. The only place that decides which
 * transport and which keys are used; operations receive what it builds.
 */
import { createTokenVerifier } from "./auth/jwt.ts";
import { type Config, ConfigError, type Env, loadConfig } from "./config.ts";
import { createSecretBox } from "./crypto/secret-box.ts";
import type { Db } from "./db/port.ts";
import { createPostgresDb } from "./db/postgres-transport.ts";
import { connectPostgres } from "./db/sql-client.ts";
import { createSupabaseDb } from "./db/supabase-transport.ts";
import type { AppDeps } from "./http/context.ts";
import { createLogger, type Logger } from "./log.ts";
import type { FetchLike } from "./providers/tax-client.ts";
import type { DocumentStore } from "./storage/port.ts";
import { createSupabaseStore } from "./storage/supabase-store.ts";

export interface Overrides {
  /** A database built by the caller (the local server's embedded PGlite, the tests' cluster). */
  db?: Db;
  logger?: Logger;
  providerFetch?: FetchLike;
  /** Where PDFs go when not Supabase Storage (the local server's folder, the tests'). */
  documents?: DocumentStore;
}

export async function buildDeps(env: Env, overrides: Overrides = {}): Promise<AppDeps> {
  const config = loadConfig(env);
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const db = overrides.db ?? (await createDb(config));
  const verifier = createTokenVerifier(config.jwt);
  return {
    config,
    db,
    logger,
    verifyToken: (token) => verifier.verify(token),
    secretBox: await createSecretBox(config.credentialsKey),
    documents: overrides.documents ?? createDocumentStore(config),
    ...(overrides.providerFetch ? { providerFetch: overrides.providerFetch } : {}),
  };
}

async function createDb(config: Config): Promise<Db> {
  const db = config.db;
  if (db.transport === "embedded") {
    throw new Error("EINV_DB_TRANSPORT=embedded needs the host process to pass the database");
  }
  if (db.transport === "postgres") {
    return createPostgresDb(await connectPostgres(db.databaseUrl, { max: db.poolSize }));
  }
  return createSupabaseDb({ url: db.url, publishableKey: db.publishableKey, serviceKey: db.serviceKey });
}

function createDocumentStore(config: Config): DocumentStore {
  if (!config.storage) {
    throw new ConfigError(
      "invalid configuration: SUPABASE_URL and SUPABASE_SECRET_KEYS (or SUPABASE_SERVICE_ROLE_KEY) are required for Storage",
    );
  }
  return createSupabaseStore(config.storage);
}
