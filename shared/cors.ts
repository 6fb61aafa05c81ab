/**
 * The CORS policy, in one place for the app's pipeline and for the entry's front (which answers a
 * cold instance's first preflight before the app is loaded: functions/einvoicing/front.ts). Loads
 * nothing: no zod, no config.
 */

/** EINV_CORS_ORIGINS: `*` (the default) or a comma-separated list of origins. */
export function parseCorsOrigins(raw: string | undefined): string[] | "*" {
  const value = raw ?? "*";
  return value.trim() === "*" ? "*" : value.split(",").map((origin) => origin.trim());
}

/** Hono's `cors()` options for the allowed origins. */
export function corsOptions(origins: string[] | "*") {
  return {
    origin: origins,
    allowMethods: ["POST", "OPTIONS"],
    allowHeaders: [
      "authorization",
      "apikey",
      "content-type",
      "x-client-info",
      "x-request-id",
      "idempotency-key",
    ],
    exposeHeaders: ["x-request-id", "retry-after", "idempotent-replayed", "allow"],
    maxAge: 600,
  };
}
