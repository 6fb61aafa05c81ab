/**
 * Verifies the caller's Supabase session token with jose: asymmetric keys (ES256, RS256) from the
 * project's JWKS, or — for projects that still sign with the legacy shared secret — HS256. Issuer
 * and audience are checked, and only these algorithms are accepted.
 *
 * A token that is bad (signature, issuer, audience, expiry, no key with its `kid`) is an
 * InvalidTokenError (401). Failing to obtain the keys (the JWKS endpoint answers non-200 or garbage,
 * or times out) says nothing about the token: that is a KeysUnavailableError, which the pipeline
 * answers 503, so an Auth outage does not sign everyone out.
 */
// jose's entry points for what is used, not its index: the index loads every JWE, JWK and key
// module too (~7 ms of a cold instance's start, `npm run bench`'s imports).
import type { JSONWebKeySet, JWTPayload, JWTVerifyGetKey } from "jose";
import * as joseErrors from "jose/errors";
import { createLocalJWKSet } from "jose/jwks/local";
import { createRemoteJWKSet } from "jose/jwks/remote";
import { jwtVerify } from "jose/jwt/verify";
import type { Config } from "../config.ts";
import { hexDigest } from "../crypto/digest.ts";

export type VerifiedClaims = JWTPayload & { sub: string; role?: string; email?: string };

export interface TokenVerifier {
  /** Resolves with the verified claims, or rejects with an InvalidTokenError. */
  verify(token: string): Promise<VerifiedClaims>;
}

export class InvalidTokenError extends Error {
  override name = "InvalidTokenError";
}

/** The signing keys could not be fetched: the token may well be valid (not an InvalidTokenError). */
export class KeysUnavailableError extends Error {
  override name = "KeysUnavailableError";
}

export interface TokenVerifierOptions {
  /** Budget for one fetch of `jwksUrl`; jose's default is 5 s. */
  jwksTimeoutMs?: number;
  /** With an inline JWKS: least time between two fetches of `jwksUrl` for a `kid` it lacks. */
  jwksRefetchIntervalMs?: number;
  /** With an inline JWKS: how long keys fetched from `jwksUrl` are trusted before they are fetched again. */
  jwksFetchedMaxAgeMs?: number;
}

const ASYMMETRIC = ["ES256", "RS256"];
const USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/**
 * Verified tokens kept so a client's next calls skip the signature check: at most this many, each
 * until it expires or for REMEMBER_MS, whichever comes first (so a rotated key stops counting soon).
 */
const CACHE_SIZE = 1000;
const REMEMBER_MS = 5 * 60_000;
/** An inline JWKS that lacks a token's `kid` is completed from `jwksUrl` at most this often. */
const REFETCH_INTERVAL_MS = 30_000;
/** Keys fetched to complete an inline JWKS are trusted this long: a key the project removed (rotated
 * out, or revoked after a leak) stops opening tokens, as with jose's cache of a remote set. */
const FETCHED_MAX_AGE_MS = 10 * 60_000;

export function createTokenVerifier(jwt: Config["jwt"], options: TokenVerifierOptions = {}): TokenVerifier {
  const jwks: JWTVerifyGetKey | undefined = jwt.jwks
    ? jwt.jwksUrl
      ? inlineThenFetched(jwt.jwks as JSONWebKeySet, new URL(jwt.jwksUrl), options)
      : createLocalJWKSet(jwt.jwks as JSONWebKeySet)
    : jwt.jwksUrl
      ? remoteKeys(new URL(jwt.jwksUrl), options)
      : undefined;
  const secret = jwt.hs256Secret ? new TextEncoder().encode(jwt.hs256Secret) : undefined;
  const checks = {
    audience: jwt.audience,
    requiredClaims: ["exp", "sub"],
    ...(jwt.issuer ? { issuer: jwt.issuer } : {}),
  };
  // An ES256 signature check costs about a millisecond; a web app repeats its token on every call.
  // Keyed by the token's SHA-256, so the map holds no bearer tokens.
  const verified = new Map<string, { claims: VerifiedClaims; until: number }>();

  return {
    async verify(token) {
      const id = await hexDigest("SHA-256", token);
      const known = verified.get(id);
      if (known && known.until > Date.now()) return known.claims;
      verified.delete(id);
      const claims = await verifyOnce(token);
      if (verified.size >= CACHE_SIZE) verified.delete(verified.keys().next().value as string);
      verified.set(id, { claims, until: Math.min((claims.exp ?? 0) * 1000, Date.now() + REMEMBER_MS) });
      return claims;
    },
  };

  async function verifyOnce(token: string): Promise<VerifiedClaims> {
    try {
      const alg = headerAlg(token);
      const { payload } =
        alg === "HS256" && secret
          ? await jwtVerify(token, secret, { ...checks, algorithms: ["HS256"] })
          : jwks && ASYMMETRIC.includes(alg)
            ? await jwtVerify(token, jwks, { ...checks, algorithms: ASYMMETRIC })
            : fail(`tokens signed with ${alg} are not accepted`);
      // A Supabase user id; anything else would fail the database's uuid cast (a 503), not the token.
      if (typeof payload.sub !== "string" || !USER_ID.test(payload.sub))
        fail("token subject is not a user id");
      if (payload.role !== undefined && payload.role !== "authenticated") fail("token is not a user session");
      return payload as VerifiedClaims;
    } catch (error) {
      if (error instanceof InvalidTokenError || error instanceof KeysUnavailableError) throw error;
      if (error instanceof joseErrors.JWTExpired) throw new InvalidTokenError("token expired");
      if (error instanceof joseErrors.JWTClaimValidationFailed)
        throw new InvalidTokenError(claimProblem(error));
      if (error instanceof joseErrors.JOSEError) throw new InvalidTokenError(joseProblem(error.code));
      throw error;
    }
  }

  /** Which claim failed and why, in words a caller can act on (jose's code alone says neither). */
  function claimProblem(error: joseErrors.JWTClaimValidationFailed): string {
    if (error.claim === "iss") {
      return (
        `invalid token: it was not issued by this project (${checks.issuer ?? "?"}) but by another ` +
        "project, or by this one at another address (locally: after PORT or HOST changed); sign in again"
      );
    }
    if (error.claim === "aud") return `invalid token: its audience is not "${jwt.audience}"`;
    if (error.reason === "missing") return `invalid token: it has no "${error.claim}" claim`;
    return `invalid token: its "${error.claim}" claim is not valid (${error.reason})`;
  }
}

/**
 * The project's JWKS fetched (and cached) by jose, with fetch failures told apart from bad tokens:
 * jose raises JWKSTimeout, JWKSInvalid (a body that is not a key set) or a plain JOSEError ("Expected
 * 200 OK…", "Failed to parse…") for those; a network failure is a TypeError and stays what it is.
 * JWKSNoMatchingKey (after a refetch) and the rest still mean the token is bad.
 */
function remoteKeys(url: URL, options: TokenVerifierOptions): JWTVerifyGetKey {
  const remote = createRemoteJWKSet(url, {
    cooldownDuration: 30_000,
    cacheMaxAge: 600_000,
    ...(options.jwksTimeoutMs !== undefined ? { timeoutDuration: options.jwksTimeoutMs } : {}),
  });
  return async (header, token) => {
    try {
      return await remote(header, token);
    } catch (error) {
      if (
        error instanceof joseErrors.JWKSTimeout ||
        error instanceof joseErrors.JWKSInvalid ||
        (error instanceof joseErrors.JOSEError && error.code === "ERR_JOSE_GENERIC")
      ) {
        throw new KeysUnavailableError(`could not obtain the signing keys: ${error.message}`, {
          cause: error,
        });
      }
      throw error;
    }
  };
}

/**
 * An inline JWKS (SUPABASE_JWKS) goes stale when the project rotates its signing key: every new
 * token then names a `kid` it lacks. Such a token makes the project's JWKS be fetched — at most once
 * per `jwksRefetchIntervalMs`, however many tokens with unknown kids arrive (tokens waiting meanwhile
 * share the one fetch) — and the fetched keys are tried after the inline ones. Within the interval,
 * a kid that neither set holds is an invalid token (401); if the last fetch failed, the keys are
 * unavailable (503), so a rotation during an Auth outage does not read as bad tokens.
 */
function inlineThenFetched(inline: JSONWebKeySet, url: URL, options: TokenVerifierOptions): JWTVerifyGetKey {
  const inlineKeys = createLocalJWKSet(inline);
  const interval = options.jwksRefetchIntervalMs ?? REFETCH_INTERVAL_MS;
  const maxAge = options.jwksFetchedMaxAgeMs ?? FETCHED_MAX_AGE_MS;
  // jose fetches and validates the set; every call of `reload` below is one request.
  const remote = createRemoteJWKSet(url, {
    ...(options.jwksTimeoutMs !== undefined ? { timeoutDuration: options.jwksTimeoutMs } : {}),
  });
  let fetchedKeys: JWTVerifyGetKey | undefined;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  const freshFetched = () => (Date.now() - fetchedAt < maxAge ? fetchedKeys : undefined);
  let lastAttempt = Number.NEGATIVE_INFINITY;
  let attempt: Promise<void> | undefined;
  let failure: KeysUnavailableError | undefined;

  const refetch = async () => {
    try {
      await remote.reload();
      const fetched = remote.jwks();
      fetchedKeys = fetched ? createLocalJWKSet(fetched) : undefined;
      fetchedAt = Date.now();
      failure = undefined;
    } catch (error) {
      failure = new KeysUnavailableError(
        `could not obtain the signing keys: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  };
  const tryKeys = async (
    keys: JWTVerifyGetKey | undefined,
    header: Parameters<JWTVerifyGetKey>[0],
    token: Parameters<JWTVerifyGetKey>[1],
  ) => {
    if (!keys) return undefined;
    try {
      return await keys(header, token);
    } catch (error) {
      if (error instanceof joseErrors.JWKSNoMatchingKey) return undefined;
      throw error;
    }
  };

  return async (header, token) => {
    const known =
      (await tryKeys(inlineKeys, header, token)) ?? (await tryKeys(freshFetched(), header, token));
    if (known) return known;
    if (!attempt && Date.now() - lastAttempt >= interval) {
      lastAttempt = Date.now();
      attempt = refetch().finally(() => {
        attempt = undefined;
      });
    }
    if (attempt) await attempt;
    const fetched = await tryKeys(freshFetched(), header, token);
    if (fetched) return fetched;
    if (failure) throw failure;
    throw new joseErrors.JWKSNoMatchingKey();
  };
}

/**
 * jose's error codes in words a caller can act on: a developer reading `message` should not have to
 * look up `ERR_JWS_SIGNATURE_VERIFICATION_FAILED`.
 */
const JOSE_PROBLEMS: Record<string, string> = {
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED:
    "invalid token: its signature does not match (it was altered, or signed with another key); sign in again",
  ERR_JWKS_NO_MATCHING_KEY:
    "invalid token: it was signed with a key this project does not have (another project's, or one rotated out); sign in again",
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: "invalid token: more than one of this project's keys matches its key id",
  ERR_JWS_INVALID: "invalid token: it is not a well-formed signed token",
  ERR_JWT_INVALID: "invalid token: its payload is not a well-formed set of claims",
  ERR_JOSE_ALG_NOT_ALLOWED: "invalid token: it is signed with an algorithm this project does not accept",
  ERR_JOSE_NOT_SUPPORTED: "invalid token: it uses a key or an algorithm that is not supported",
};

function joseProblem(code: string): string {
  return JOSE_PROBLEMS[code] ?? "invalid token: it could not be verified; sign in again";
}

function headerAlg(token: string): string {
  const [header] = token.split(".");
  try {
    const alg = (JSON.parse(atob((header ?? "").replace(/-/g, "+").replace(/_/g, "/"))) as { alg?: unknown })
      .alg;
    if (typeof alg === "string") return alg;
  } catch {
    // falls through
  }
  throw new InvalidTokenError("malformed token");
}

function fail(message: string): never {
  throw new InvalidTokenError(message);
}
