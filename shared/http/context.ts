import type { Context } from "hono";
import type { VerifiedClaims } from "../auth/jwt.ts";
import type { Config } from "../config.ts";
import type { RememberedFingerprints } from "../core/documents/remembered-fingerprints.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import type { Logger } from "../kernel/log.ts";
import type { Clock } from "../ports/clock.ts";
import type { Db, DbScope } from "../ports/db/port.ts";
import type { Egress } from "../ports/egress/egress.ts";
import type { CredentialChecks } from "../ports/providers/credentials.ts";
import type { ProviderDirectory } from "../ports/providers/directory.ts";
import type { DocumentStore } from "../ports/storage.ts";
import type { Background } from "../runtime/background.ts";

/** What the composition root hands the HTTP layer: validated config and the adapters. */
export interface AppDeps {
  config: Config;
  db: Db;
  verifyToken(token: string): Promise<VerifiedClaims>;
  logger: Logger;
  /** Where rendered PDFs are kept. */
  documents: DocumentStore;
  /** Seals and opens provider API keys. */
  secretBox: SecretBox;
  /** Resolution and address-pinned connections for provider calls (../ports/egress/egress.ts). */
  egress: Egress;
  /** The provider clients of one request (or one reconcile run): the core's port to the adapters. */
  providers(serviceDb: DbScope): Promise<ProviderDirectory>;
  /** How /integrations checks each mode's credential (the adapters' checks). */
  credentialChecks: CredentialChecks;
  /** The PDFs this process fingerprinted, so a current one is answered without reading it whole. */
  pdfFingerprints: RememberedFingerprints;
  /** Work started by a request that its answer does not wait for (webhook messages). */
  background: Background;
  /** When a document is issued and signed (../ports/clock.ts); the system's, unless a test sets one. */
  clock: Clock;
}

/** Hono's environment for our app: the dependencies and what the pipeline learns per request. */
export interface AppEnv {
  Variables: {
    deps: AppDeps;
    requestId: string;
    log: Logger;
    /** Where the server mounts the function (`Mounting`); left out of what is stored per route. */
    mountedAt: string;
    /** Set by `authenticate`. */
    caller: { accessToken: string; claims: VerifiedClaims };
    /** Set by `jsonBody`: the parsed JSON object. */
    body: Record<string, unknown>;
  };
}

export type AppContext = Context<AppEnv>;

/** Where the server hands a function its requests: the path before the function's name (Supabase: none). */
export interface Mounting {
  mountedAt?: string;
}
