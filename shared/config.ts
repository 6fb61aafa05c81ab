/**
 * Configuration: the environment, parsed once with zod into a typed object. A bad or missing value
 * fails loudly at start, naming the variable, never its value.
 */
import { z } from "zod";
import { DEMO_SOFTWARE, type SoftwareMaker } from "./co/software.ts";
import { parseCorsOrigins } from "./cors.ts";

const url = z.url({ protocol: /^https?$/ });
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === "" ? undefined : v));

/** `{"default":"sb_publishable_..."}` (Supabase's SUPABASE_PUBLISHABLE_KEYS) or a plain key list. */
const keyDictionary = z
  .string()
  .optional()
  .transform((raw, ctx): string[] => {
    if (!raw) return [];
    try {
      const parsed: unknown = JSON.parse(raw);
      if (parsed && typeof parsed === "object") return Object.values(parsed).map(String);
    } catch {
      // not JSON: a comma-separated list
    }
    const keys = raw
      .split(",")
      .map((k) => k.trim())
      .filter(Boolean);
    if (keys.length === 0) ctx.addIssue({ code: "custom", message: "expected at least one key" });
    return keys;
  });

const EnvSchema = z.object({
  SUPABASE_URL: url.optional(),
  SUPABASE_PUBLISHABLE_KEYS: keyDictionary,
  SUPABASE_ANON_KEY: optionalText,
  SUPABASE_SECRET_KEYS: keyDictionary,
  SUPABASE_SERVICE_ROLE_KEY: optionalText,
  SUPABASE_JWKS: optionalText,
  SUPABASE_JWKS_URL: url.optional(),
  /**
   * Legacy HS256 projects: the JWT secret. EINV_JWT_SECRET on a deployment (the CLI refuses secret
   * names starting with SUPABASE_ and the platform does not inject this one); SUPABASE_JWT_SECRET
   * still works locally. EINV_JWT_SECRET wins when both are set.
   */
  EINV_JWT_SECRET: optionalText,
  SUPABASE_JWT_SECRET: optionalText,
  JWT_ISSUER: optionalText,
  JWT_AUDIENCE: z.string().default("authenticated"),
  EINV_DB_TRANSPORT: z.enum(["supabase", "postgres", "embedded"]).default("supabase"),
  DATABASE_URL: optionalText,
  SUPABASE_DB_URL: optionalText,
  EINV_DB_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(5),
  EINV_MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65_536),
  EINV_CORS_ORIGINS: z.string().default("*"),
  EINV_CREDENTIALS_KEY: z
    .string({ error: "is required: 32 random bytes, base64 (openssl rand -base64 32)" })
    .regex(/^[A-Za-z0-9+/_-]{43}=?$/, "must be 32 bytes, base64-encoded (openssl rand -base64 32)"),
  /** Keys EINV_CREDENTIALS_KEY replaced, comma-separated: they still open what they sealed. */
  EINV_CREDENTIALS_PREVIOUS_KEYS: z
    .string()
    .optional()
    .transform((raw) =>
      (raw ?? "")
        .split(",")
        .map((k) => k.trim())
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z
          .string()
          .regex(/^[A-Za-z0-9+/_-]{43}=?$/, "each key must be 32 bytes, base64-encoded (comma-separated)"),
      ),
    ),
  EINV_PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  EINV_TRANSMIT_CONCURRENCY: z.coerce.number().int().min(1).max(50).default(8),
  EINV_ALLOW_PRIVATE_PROVIDER_URLS: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true"),
  EINV_LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  /** The reconcile function's bearer secret (only that function reads it). At least 32 characters. */
  EINV_RECONCILE_SECRET: z.string().min(32, "must be at least 32 characters").max(512).optional(),
  /**
   * How long one reconcile run may work. The platform gives a request less than its wall-clock limit
   * (150 s Free, 400 s paid): a worker takes requests until half of that limit and is killed at the
   * limit with requests in flight (supabase/edge-runtime crates/base/src/worker/supervisor/
   * strategy_per_worker.rs at b1edf453), so on the Free plan a request may get about 75 s. A run
   * ends within its budget plus the recording of its last answers (run.ts starts a query or a
   * delivery retry only when all of its provider calls can end in time, each within the provider
   * timeout): 45 s by default leaves a Free-plan run room for that; at most 90 s, for
   * paid plans, still inside the schedule's pg_net timeout (120 s, supabase/schedule/reconcile.sql).
   * A run killed anyway loses nothing (leases; tests/http/reconcile-killed.test.ts), only time.
   * One /integrations/test-set call works within the same budget (shared/core/integrations/test-set.ts).
   */
  EINV_RECONCILE_BUDGET_MS: z.coerce.number().int().min(1_000).max(90_000).default(45_000),
  /** Documents picked (and leased) at a time. */
  EINV_RECONCILE_BATCH: z.coerce.number().int().min(1).max(500).default(25),
  /** A document left `en_proceso` is reconciled once nobody has looked at it for this long. */
  EINV_RECONCILE_GRACE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(120),
  /** /deliver: e-mails of one document (to any addresses) begun within the window. */
  EINV_DELIVER_LIMIT_PER_DOCUMENT: z.coerce.number().int().min(1).max(1_000).default(5),
  /** /deliver: e-mails of one organization begun within the window. */
  EINV_DELIVER_LIMIT_PER_ORG: z.coerce.number().int().min(1).max(100_000).default(300),
  /** /deliver: the sliding window both limits count over. */
  EINV_DELIVER_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3_600),
  /** A webhook endpoint's answer is awaited this long (Standard Webhooks suggests 15 to 30 s). */
  EINV_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(15_000),
  /** Webhook messages sent at once by one drain (after a request, or in a reconcile run). */
  EINV_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(50).default(8),
  /** The software printed on every PDF, as DIAN requires (shared/co/software.ts). */
  EINV_SOFTWARE_NAME: z.string().trim().min(1).max(100).default(DEMO_SOFTWARE.name),
  EINV_SOFTWARE_MAKER: z.string().trim().min(1).max(200).default(DEMO_SOFTWARE.maker),
  EINV_SOFTWARE_MAKER_NIT: z
    .string()
    .regex(/^[0-9]{1,15}$/, "must be the maker's NIT: 1 to 15 digits, without the check digit")
    .default(DEMO_SOFTWARE.makerNit),
});

export type Env = Record<string, string | undefined>;

export interface Config {
  /** Accepted values of the `apikey` header (the deployment's publishable keys). */
  apiKeys: string[];
  jwt: {
    issuer: string | undefined;
    audience: string;
    /** Inline JWKS (SUPABASE_JWKS), tried first; `jwksUrl` is fetched for a key it lacks (rate-limited). */
    jwks: { keys: unknown[] } | undefined;
    jwksUrl: string | undefined;
    /** Legacy shared secret (EINV_JWT_SECRET, else SUPABASE_JWT_SECRET), for projects still on HS256 tokens. */
    hs256Secret: string | undefined;
  };
  db:
    | { transport: "supabase"; url: string; publishableKey: string; serviceKey: string }
    | { transport: "postgres"; databaseUrl: string; poolSize: number }
    /** The host process (local server, tests) hands the composition root a ready database. */
    | { transport: "embedded" };
  http: { maxBodyBytes: number; corsOrigins: string[] | "*" };
  /** Supabase Storage for the PDFs (service role); absent when the host process supplies a store. */
  storage: { url: string; serviceKey: string } | undefined;
  /** Base64 AES-256 key that seals provider API keys at rest. A secret. */
  credentialsKey: string;
  /** Keys that sealed before `credentialsKey` (rotation): they still open. Secrets. */
  credentialsPreviousKeys: string[];
  providers: {
    timeoutMs: number;
    /** Invoices sent at once by one /transmit call. */
    transmitConcurrency: number;
    /** Local development only: lets credential URLs point at loopback or private addresses. */
    allowPrivateUrls: boolean;
  };
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /**
   * /deliver's limits, counted in the database (so across function instances) over a sliding
   * window; past one the answer is 429 rate_limited with Retry-After.
   */
  deliver: { perDocument: number; perOrganization: number; windowSeconds: number };
  /** The issuing software and its maker, printed on every PDF. */
  software: SoftwareMaker;
  /** Webhook messages (their urls follow `providers.allowPrivateUrls`). */
  webhooks: { timeoutMs: number; concurrency: number };
  reconcile: {
    /** Absent: the reconcile function refuses to start. A secret. */
    secret: string | undefined;
    budgetMs: number;
    batchSize: number;
    graceSeconds: number;
  };
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Parses the environment; throws a ConfigError that names every problem (never a value). */
export function loadConfig(env: Env): Config {
  // parsed once: zod's compiled fast path would cost more to build (~4 ms at a cold start) than it saves
  const parsed = EnvSchema.safeParse(env, { jitless: true });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join("; ")}`);
  }
  const e = parsed.data;
  const problems: string[] = [];

  const apiKeys = [...e.SUPABASE_PUBLISHABLE_KEYS, ...(e.SUPABASE_ANON_KEY ? [e.SUPABASE_ANON_KEY] : [])];
  if (apiKeys.length === 0) problems.push("SUPABASE_PUBLISHABLE_KEYS or SUPABASE_ANON_KEY is required");

  const jwks = e.SUPABASE_JWKS ? parseJwks(e.SUPABASE_JWKS, problems) : undefined;
  const jwksUrl =
    e.SUPABASE_JWKS_URL ??
    (e.SUPABASE_URL ? `${trimSlash(e.SUPABASE_URL)}/auth/v1/.well-known/jwks.json` : undefined);
  const hs256Secret = e.EINV_JWT_SECRET ?? e.SUPABASE_JWT_SECRET;
  if (!jwks && !jwksUrl && !hs256Secret) {
    problems.push("one of SUPABASE_JWKS, SUPABASE_JWKS_URL, SUPABASE_URL or EINV_JWT_SECRET is required");
  }
  const issuer = e.JWT_ISSUER ?? (e.SUPABASE_URL ? `${trimSlash(e.SUPABASE_URL)}/auth/v1` : undefined);
  // Public keys may be shared across projects or issuers: never verify by them without an issuer check.
  if ((e.SUPABASE_JWKS || e.SUPABASE_JWKS_URL) && !issuer) {
    problems.push("JWT_ISSUER (or SUPABASE_URL) is required when SUPABASE_JWKS or SUPABASE_JWKS_URL is set");
  }

  const serviceKey = e.SUPABASE_SECRET_KEYS[0] ?? e.SUPABASE_SERVICE_ROLE_KEY;
  let db: Config["db"] | undefined;
  if (e.EINV_DB_TRANSPORT === "embedded") {
    db = { transport: "embedded" };
  } else if (e.EINV_DB_TRANSPORT === "postgres") {
    const databaseUrl = e.DATABASE_URL ?? e.SUPABASE_DB_URL;
    if (!databaseUrl)
      problems.push("DATABASE_URL (or SUPABASE_DB_URL) is required for EINV_DB_TRANSPORT=postgres");
    else db = { transport: "postgres", databaseUrl, poolSize: e.EINV_DB_POOL_SIZE };
  } else {
    if (!e.SUPABASE_URL) problems.push("SUPABASE_URL is required for EINV_DB_TRANSPORT=supabase");
    if (!serviceKey) problems.push("SUPABASE_SECRET_KEYS or SUPABASE_SERVICE_ROLE_KEY is required");
    if (e.SUPABASE_URL && serviceKey && apiKeys[0]) {
      db = { transport: "supabase", url: e.SUPABASE_URL, publishableKey: apiKeys[0], serviceKey };
    }
  }

  if (problems.length > 0 || !db) throw new ConfigError(`invalid configuration: ${problems.join("; ")}`);
  return {
    apiKeys,
    jwt: { issuer, audience: e.JWT_AUDIENCE, jwks, jwksUrl, hs256Secret },
    db,
    http: {
      maxBodyBytes: e.EINV_MAX_BODY_BYTES,
      corsOrigins: parseCorsOrigins(e.EINV_CORS_ORIGINS),
    },
    storage: e.SUPABASE_URL && serviceKey ? { url: e.SUPABASE_URL, serviceKey } : undefined,
    credentialsKey: e.EINV_CREDENTIALS_KEY,
    credentialsPreviousKeys: e.EINV_CREDENTIALS_PREVIOUS_KEYS,
    providers: {
      timeoutMs: e.EINV_PROVIDER_TIMEOUT_MS,
      transmitConcurrency: e.EINV_TRANSMIT_CONCURRENCY,
      allowPrivateUrls: e.EINV_ALLOW_PRIVATE_PROVIDER_URLS,
    },
    logLevel: e.EINV_LOG_LEVEL,
    deliver: {
      perDocument: e.EINV_DELIVER_LIMIT_PER_DOCUMENT,
      perOrganization: e.EINV_DELIVER_LIMIT_PER_ORG,
      windowSeconds: e.EINV_DELIVER_LIMIT_WINDOW_SECONDS,
    },
    software: {
      name: e.EINV_SOFTWARE_NAME,
      maker: e.EINV_SOFTWARE_MAKER,
      makerNit: e.EINV_SOFTWARE_MAKER_NIT,
    },
    webhooks: { timeoutMs: e.EINV_WEBHOOK_TIMEOUT_MS, concurrency: e.EINV_WEBHOOK_CONCURRENCY },
    reconcile: {
      secret: e.EINV_RECONCILE_SECRET,
      budgetMs: e.EINV_RECONCILE_BUDGET_MS,
      batchSize: e.EINV_RECONCILE_BATCH,
      graceSeconds: e.EINV_RECONCILE_GRACE_SECONDS,
    },
  };
}

function parseJwks(raw: string, problems: string[]): { keys: unknown[] } | undefined {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (Array.isArray(parsed)) return { keys: parsed };
    if (parsed && typeof parsed === "object" && Array.isArray((parsed as { keys?: unknown }).keys)) {
      return parsed as { keys: unknown[] };
    }
  } catch {
    // reported below
  }
  problems.push('SUPABASE_JWKS must be a JWKS: {"keys": [...]} or [...]');
  return undefined;
}

const trimSlash = (s: string) => s.replace(/\/+$/, "");
