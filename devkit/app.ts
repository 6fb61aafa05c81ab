/**
 * The app as the tests run it: the real composition root and pipeline, the test file's database
 * through the `postgres` transport, tokens signed by a local key whose JWKS the verifier trusts
 * (inline, as SUPABASE_JWKS, and served on loopback as the project's JWKS URL, which the verifier
 * fetches for a `kid` the inline set lacks).
 * Its responses, log lines and the tokens it signs are recorded for the secret canary's final scan
 * (devkit/canary.ts).
 */

import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../functions/einvoicing/app.ts";
import { buildDeps } from "../shared/compose.ts";
import { createPostgresDb } from "../shared/db/postgres-transport.ts";
import type { AppDeps } from "../shared/http/context.ts";
import { createLogger, type LogLevel } from "../shared/kernel/log.ts";
import type { Clock } from "../shared/ports/clock.ts";
import type { Resolver } from "../shared/ports/egress/url-policy.ts";
import type { DianTaxAdapterHook } from "../shared/providers/dian/connection.ts";
import type { DianNumbering } from "../shared/providers/dian/numbering-query.ts";
import type { FetchLike } from "../shared/providers/tax/client.ts";
import { createLocalSigner, type LocalSigner, type TokenOptions } from "./auth.ts";
import { CANARY_CREDENTIALS_KEY, CANARY_RECONCILE_SECRET } from "./canary.ts";
import { capture, captureResponses } from "./capture.ts";
import { expectAnswerInContract } from "./contract.ts";
import type { TestDatabase } from "./database.ts";
import { createFilesystemStore } from "./filesystem-store.ts";

export const TEST_URL = "http://supabase.test";
export const TEST_API_KEY = "sb_publishable_test";
/** A public address (not in any special-use range) that test names resolve to. */
export const PUBLIC_TEST_ADDRESS = "93.184.215.14";
/** The tests' DNS: every name is a public host (no test reaches the network by name). */
export const publicDns: Resolver = async () => [PUBLIC_TEST_ADDRESS];

/** Tests only: a canary (devkit/canary.ts), so the final scan fails if it ever leaks. */
export const TEST_CREDENTIALS_KEY = CANARY_CREDENTIALS_KEY;
/** The reconcile secret the tests configure: a canary too. */
export const TEST_RECONCILE_SECRET = CANARY_RECONCILE_SECRET;

export interface TestApp {
  app: ReturnType<typeof createApp>;
  deps: AppDeps;
  signer: LocalSigner;
  /** The folder store the app writes PDFs to (`documents.file(path)` is where one lands). */
  documents: ReturnType<typeof createFilesystemStore>;
  /** Log lines the app wrote, for asserting what is (not) logged. */
  logs: string[];
  token(user: { id: string; email: string }, options?: TokenOptions): Promise<string>;
  /**
   * POSTs JSON to `/einvoicing<path>` with the apikey and, when given, a bearer token; the answer is
   * checked against docs/openapi.json (declared status, body schema, x-request-id) before it is returned.
   */
  post(path: string, body: unknown, token?: string, headers?: Record<string, string>): Promise<Response>;
}

/** One loopback server per test process standing in for Auth's `/.well-known/jwks.json`, one path per app. */
let jwksServer: Promise<{ base: string; sets: Map<string, string> }> | undefined;
async function servedJwks(jwks: LocalSigner["jwks"]): Promise<string> {
  jwksServer ??= new Promise((resolve) => {
    const sets = new Map<string, string>();
    const server = createServer((request, response) => {
      const body = sets.get(request.url ?? "");
      response.writeHead(body ? 200 : 404, { "content-type": "application/json" });
      response.end(body ?? "{}");
    });
    server.unref();
    server.listen(0, "127.0.0.1", () =>
      resolve({ base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sets }),
    );
  });
  const { base, sets } = await jwksServer;
  const path = `/${crypto.randomUUID()}/auth/v1/.well-known/jwks.json`;
  sets.set(path, JSON.stringify(jwks));
  return `${base}${path}`;
}

export async function createTestApp(
  db: TestDatabase,
  options: {
    env?: Record<string, string>;
    providerFetch?: FetchLike;
    resolver?: Resolver;
    /** DIAN's GetNumberingRange for DIAN mode's credential check (AppDeps.dianNumbering). */
    dianNumbering?: DianNumbering;
    /** The DIAN TaxAdapter hook (AppDeps.dianTaxAdapter). */
    dianTaxAdapter?: DianTaxAdapterHook;
    /** When documents are issued and signed (AppDeps.clock: ./clock.ts sets one); default the system's. */
    clock?: Clock;
    /**
     * For the bench: the app as a deployment runs it, so a request's time is the service's own —
     * logging at `env.EINV_LOG_LEVEL` (default info) instead of every debug line kept for the test,
     * and answers not checked against the OpenAPI document (the tests do that).
     */
    measuring?: boolean;
  } = {},
): Promise<TestApp> {
  const signer = await createLocalSigner(`${TEST_URL}/auth/v1`);
  const logs: string[] = [];
  const documents = createFilesystemStore(mkdtempSync(join(tmpdir(), "einv-storage-")), db.client);
  const deps = await buildDeps(
    {
      SUPABASE_URL: TEST_URL,
      SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: TEST_API_KEY }),
      SUPABASE_JWKS: JSON.stringify(signer.jwks),
      SUPABASE_JWKS_URL: await servedJwks(signer.jwks),
      EINV_DB_TRANSPORT: "embedded",
      EINV_CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
      EINV_LOG_LEVEL: "debug",
      ...options.env,
    },
    {
      db: createPostgresDb(db.client),
      logger: options.measuring
        ? createLogger((options.env?.EINV_LOG_LEVEL ?? "info") as LogLevel, () => {})
        : createLogger("debug", (line) => {
            logs.push(line);
            capture("log", line);
          }),
      ...(options.providerFetch ? { providerFetch: options.providerFetch } : {}),
      resolver: options.resolver ?? publicDns,
      documents,
      ...(options.dianNumbering ? { dianNumbering: options.dianNumbering } : {}),
      ...(options.dianTaxAdapter ? { dianTaxAdapter: options.dianTaxAdapter } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    },
  );
  // every response and log line goes to the secret canary's capture as well
  const app = captureResponses(createApp(deps));
  return {
    app,
    deps,
    signer,
    documents,
    logs,
    token: async (user, tokenOptions) => {
      const token = await signer.sign(user, tokenOptions);
      capture("token", token);
      return token;
    },
    post: async (path, body, token, headers = {}) => {
      const response = await app.request(`/einvoicing${path}`, {
        method: "POST",
        headers: {
          apikey: TEST_API_KEY,
          "content-type": "application/json",
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...headers,
        },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
      if (!options.measuring) await expectAnswerInContract(path, response);
      return response;
    },
  };
}
