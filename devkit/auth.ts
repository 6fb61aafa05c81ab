/**
 * Local stand-in for Supabase Auth's signing keys: one ES256 key pair, its public JWKS, and user
 * session tokens with the claims Supabase puts in them. Used by the local server and the tests.
 */
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from "jose";

export interface LocalSigner {
  /** The private key as a JWK, to persist between runs. */
  privateJwk: JWK;
  /** What `/auth/v1/.well-known/jwks.json` serves. */
  jwks: { keys: JWK[] };
  issuer: string;
  sign(user: { id: string; email: string }, options?: TokenOptions): Promise<string>;
}

export interface TokenOptions {
  expiresIn?: string;
  audience?: string;
  issuer?: string;
  role?: string;
}

export async function createLocalSigner(issuer: string, privateJwk?: JWK): Promise<LocalSigner> {
  const jwk = privateJwk ?? (await newPrivateJwk());
  const key = await importJWK(jwk, "ES256");
  const { d: _secret, ...publicJwk } = jwk;
  const kid = jwk.kid ?? "local";
  return {
    privateJwk: jwk,
    jwks: { keys: [{ ...publicJwk, kid, alg: "ES256", use: "sig" }] },
    issuer,
    sign: (user, options = {}) =>
      new SignJWT({
        role: options.role ?? "authenticated",
        email: user.email,
        aal: "aal1",
        is_anonymous: false,
        session_id: crypto.randomUUID(),
      })
        .setProtectedHeader({ alg: "ES256", kid, typ: "JWT" })
        .setSubject(user.id)
        .setIssuer(options.issuer ?? issuer)
        .setAudience(options.audience ?? "authenticated")
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? "1h")
        .sign(key),
  };
}

async function newPrivateJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: `local-${crypto.randomUUID().slice(0, 8)}` };
}
