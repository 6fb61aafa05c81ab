import type { Context } from "hono";
import type { VerifiedClaims } from "../auth/jwt.ts";
import type { Background } from "../background.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { RememberedFingerprints } from "../core/documents/remembered-fingerprints.ts";
import type { DianNumbering } from "../core/integrations/dian-numbering.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import type { Db } from "../db/port.ts";
import type { Logger } from "../log.ts";
import type { DianTaxAdapterHook } from "../providers/dian-connection.ts";
import type { Egress } from "../providers/egress.ts";
import type { FetchLike } from "../providers/tax-client.ts";
import type { DocumentStore } from "../storage/port.ts";

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
  /** How provider calls reach the network; the global fetch unless a test or the local run says otherwise. */
  providerFetch?: FetchLike;
  /** Resolution and address-pinned connections for provider calls (../providers/egress.ts). */
  egress: Egress;
  /** DIAN's GetNumberingRange, which DIAN mode's credential check asks (../providers/dian-wiring.ts). */
  dianNumbering: DianNumbering;
  /** Builds the DIAN TaxAdapter of a company's DIAN-mode credential (../providers/dian-wiring.ts). */
  dianTaxAdapter: DianTaxAdapterHook;
  /** The PDFs this process fingerprinted, so a current one is answered without reading it whole. */
  pdfFingerprints: RememberedFingerprints;
  /** Work started by a request that its answer does not wait for (webhook messages). */
  background: Background;
  /** When a document is issued and signed (../clock.ts); the system's, unless a test sets one. */
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
