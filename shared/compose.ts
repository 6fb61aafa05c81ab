/**
 * The composition root: validated config in, adapters out. The only place that decides which
 * transport and which keys are used; operations receive what it builds.
 */
import { createTokenVerifier } from "./auth/jwt.ts";
import { type Config, ConfigError, type Env, loadConfig } from "./config.ts";
import { RememberedFingerprints } from "./core/documents/remembered-fingerprints.ts";
import { rememberOpened } from "./crypto/remembered-box.ts";
import { createSecretBox, type SecretBox } from "./crypto/secret-box.ts";
import { createPostgresDb } from "./db/postgres-transport.ts";
import { connectPostgres } from "./db/sql-client.ts";
import { createSupabaseDb } from "./db/supabase-transport.ts";
import type { AppDeps } from "./http/context.ts";
import { createLogger, type Logger } from "./kernel/log.ts";
import { type Clock, systemClock } from "./ports/clock.ts";
import type { Db } from "./ports/db/port.ts";
import { type Egress, noResolver } from "./ports/egress/egress.ts";
import type { Resolver } from "./ports/egress/url-policy.ts";
import type { DocumentStore } from "./ports/storage.ts";
import type { DianTaxAdapterHook } from "./providers/dian/connection.ts";
import type { DianNumbering } from "./providers/dian/numbering-query.ts";
import { dianNumbering, dianTaxAdapter } from "./providers/dian/wiring.ts";
import { lazyProviderDirectory } from "./providers/lazy-directory.ts";
import type { FetchLike } from "./providers/tax/client.ts";
import { createBackground } from "./runtime/background.ts";
import { denoNetwork } from "./runtime/deno-network.ts";
import { createPinnedFetch } from "./runtime/pinned-fetch.ts";
import { createSupabaseStore } from "./storage/supabase-store.ts";

export interface Overrides {
  /** A database built by the caller (the local server's embedded PGlite, the tests' cluster). */
  db?: Db;
  logger?: Logger;
  providerFetch?: FetchLike;
  /** How provider host names resolve (tests' fake DNS); default Deno's resolver. */
  resolver?: Resolver;
  /** Where PDFs go when not Supabase Storage (the local server's folder, the tests'). */
  documents?: DocumentStore;
  /** DIAN's GetNumberingRange for DIAN mode's credential check. */
  dianNumbering?: DianNumbering;
  /** The DIAN TaxAdapter of a DIAN-mode credential (the provider directory's). */
  dianTaxAdapter?: DianTaxAdapterHook;
  /** When documents are issued and signed (AppDeps.clock); default the system's. */
  clock?: Clock;
}

export async function buildDeps(env: Env, overrides: Overrides = {}): Promise<AppDeps> {
  const config = loadConfig(env);
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const db = overrides.db ?? (await createDb(config));
  const verifier = createTokenVerifier(config.jwt);
  const secretBox = rememberOpened(
    await createSecretBox(config.credentialsKey, config.credentialsPreviousKeys),
  );
  const egress = createEgress(overrides, logger);
  const dianAdapter = overrides.dianTaxAdapter ?? dianTaxAdapter;
  const numbering = overrides.dianNumbering ?? dianNumbering;
  const clock = overrides.clock ?? systemClock;
  return {
    config,
    db,
    logger,
    verifyToken: (token) => verifier.verify(token),
    secretBox,
    documents: overrides.documents ?? createDocumentStore(config),
    egress,
    // the adapters load when a request first asks for a client, off the cold start's path and off
    // the path of every operation that never calls a provider (ADR 0007)
    providers: async (serviceDb) =>
      lazyProviderDirectory(async () =>
        (await import("./providers/directory.ts")).createProviderDirectory({
          serviceDb,
          secretBox,
          timeoutMs: config.providers.timeoutMs,
          allowPrivateUrls: config.providers.allowPrivateUrls,
          egress,
          dianTaxAdapter: dianAdapter,
          clock,
        }),
      ),
    credentialChecks: {
      protocolKey: async (target, call) =>
        (await import("./providers/credential-check.ts")).protocolKeyCheck(target, call),
      dian: async (...args) =>
        (await import("./providers/dian/credential-check.ts")).dianCredentialCheck(numbering)(...args),
    },
    pdfFingerprints: new RememberedFingerprints(),
    background: createBackground(logger),
    clock,
  };
}

/**
 * Provider egress: Deno's DNS and pinned TLS connections in production. A fetch handed in (tests,
 * in-process sandboxes) stands in for the network and cannot be pinned; a runtime without a
 * resolver (Node, unless a test gives one) resolves nothing, so names are refused, not fetched
 * unchecked; a runtime without `Deno.connect`/`Deno.startTls` checks, then fetches by name (logged).
 */
function createEgress(overrides: Overrides, logger: Logger): Egress {
  const runtime = denoNetwork();
  const resolve = overrides.resolver ?? runtime?.resolve ?? noResolver;
  const handed = overrides.providerFetch;
  if (handed) return { resolve, fetch: handed, pinned: () => handed, pins: false };
  const fetch: FetchLike = (input, init) => globalThis.fetch(input, init);
  const connect = runtime?.connect;
  if (connect)
    return { resolve, fetch, pinned: (addresses) => createPinnedFetch(connect, addresses), pins: true };
  if (runtime) logger.warn("provider connections are not pinned: this runtime lacks Deno.connect/startTls");
  return { resolve, fetch, pinned: () => fetch, pins: false };
}

/**
 * What `npm run credentials:reseal` needs, from the same configuration as the function: the database
 * (the `supabase` or `postgres` transport) and the SecretBox with the current and previous keys.
 */
export async function buildCredentialStore(env: Env): Promise<{ db: Db; secretBox: SecretBox }> {
  const config = loadConfig(env);
  if (config.db.transport === "embedded") {
    throw new ConfigError("invalid configuration: EINV_DB_TRANSPORT must be supabase or postgres here");
  }
  return {
    db: await createDb(config),
    secretBox: await createSecretBox(config.credentialsKey, config.credentialsPreviousKeys),
  };
}

async function createDb(config: Config): Promise<Db> {
  const db = config.db;
  if (db.transport === "embedded") {
    throw new Error("EINV_DB_TRANSPORT=embedded needs the host process to pass the database");
  }
  if (db.transport === "postgres") {
    // the transport sends no parameters and reads one jsonb a call: no array types to fetch
    return createPostgresDb(await connectPostgres(db.databaseUrl, { max: db.poolSize, arrayTypes: false }));
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
