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

export function createTokenVerifier(jwt: Config["jwt"]): TokenVerifier {
  const jwks: JWTVerifyGetKey | undefined = jwt.jwks
    ? createLocalJWKSet(jwt.jwks as JSONWebKeySet)
    : jwt.jwksUrl
      ? createRemoteJWKSet(new URL(jwt.jwksUrl), { cooldownDuration: 30_000, cacheMaxAge: 600_000 })
      : undefined;
  const secret = jwt.hs256Secret ? new TextEncoder().encode(jwt.hs256Secret) : undefined;
  const checks = { audience: jwt.audience, ...(jwt.issuer ? { issuer: jwt.issuer } : {}) };

  return {
    async verify(token) {
      try {
        const alg = headerAlg(token);
        const { payload } =
          alg === "HS256" && secret
            ? await jwtVerify(token, secret, { ...checks, algorithms: ["HS256"] })
            : jwks && ASYMMETRIC.includes(alg)
              ? await jwtVerify(token, jwks, { ...checks, algorithms: ASYMMETRIC })
              : fail(`tokens signed with ${alg} are not accepted`);
        if (typeof payload.sub !== "string" || payload.sub === "") fail("token has no subject");
        if (payload.role !== undefined && payload.role !== "authenticated")
          fail("token is not a user session");
        return payload as VerifiedClaims;
      } catch (error) {
        if (error instanceof InvalidTokenError) throw error;
        if (error instanceof joseErrors.JWTExpired) throw new InvalidTokenError("token expired");
        if (error instanceof joseErrors.JOSEError)
          throw new InvalidTokenError(`invalid token: ${error.code}`);
        throw error;
      }
    },
  };
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
