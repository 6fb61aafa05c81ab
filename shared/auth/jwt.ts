/**
 * Verifies the caller's Supabase session token with jose: asymmetric keys (ES256, RS256) from the
 * project's JWKS, or — for projects that still sign with the legacy shared secret — HS256. Issuer
 * and audience are checked, and only these algorithms are accepted.
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
  errors as joseErrors,
  jwtVerify,
} from "jose";
import type { Config } from "../config.ts";

export type VerifiedClaims = JWTPayload & { sub: string; role?: string; email?: string };

export interface TokenVerifier {
  /** Resolves with the verified claims, or rejects with an InvalidTokenError. */
  verify(token: string): Promise<VerifiedClaims>;
}

export class InvalidTokenError extends Error {
  override name = "InvalidTokenError";
}

const ASYMMETRIC = ["ES256", "RS256"];
/** Verified tokens kept, until they expire, so a client's next calls skip the signature check. */
const CACHE_SIZE = 1000;

export function createTokenVerifier(jwt: Config["jwt"]): TokenVerifier {
  const jwks: JWTVerifyGetKey | undefined = jwt.jwks
    ? createLocalJWKSet(jwt.jwks as JSONWebKeySet)
    : jwt.jwksUrl
      ? createRemoteJWKSet(new URL(jwt.jwksUrl), { cooldownDuration: 30_000, cacheMaxAge: 600_000 })
      : undefined;
  const secret = jwt.hs256Secret ? new TextEncoder().encode(jwt.hs256Secret) : undefined;
  const checks = {
    audience: jwt.audience,
    requiredClaims: ["exp", "sub"],
    ...(jwt.issuer ? { issuer: jwt.issuer } : {}),
  };
  // An ES256 signature check costs about a millisecond; a web app repeats its token on every call.
  const verified = new Map<string, VerifiedClaims>();

  return {
    async verify(token) {
      const known = verified.get(token);
      if (known && (known.exp ?? 0) * 1000 > Date.now()) return known;
      verified.delete(token);
      const claims = await verifyOnce(token);
      if (verified.size >= CACHE_SIZE) verified.delete(verified.keys().next().value as string);
      verified.set(token, claims);
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
      if (typeof payload.sub !== "string" || payload.sub === "") fail("token has no subject");
      if (payload.role !== undefined && payload.role !== "authenticated") fail("token is not a user session");
      return payload as VerifiedClaims;
    } catch (error) {
      if (error instanceof InvalidTokenError) throw error;
      if (error instanceof joseErrors.JWTExpired) throw new InvalidTokenError("token expired");
      if (error instanceof joseErrors.JOSEError) throw new InvalidTokenError(`invalid token: ${error.code}`);
      throw error;
    }
  }
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
