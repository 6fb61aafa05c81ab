/**
 * Configuration: token verification by public keys must also check the issuer, so a deployment
 * that cannot tell which issuer to expect fails at start instead of silently skipping the check.
 */
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { createTokenVerifier } from "../../shared/auth/jwt.ts";
import { ConfigError, loadConfig } from "../../shared/config.ts";

const JWKS = JSON.stringify({ keys: [{ kty: "EC", crv: "P-256", x: "x", y: "y", kid: "k" }] });
const base = {
  SUPABASE_PUBLISHABLE_KEYS: "sb_publishable_test",
  EINV_DB_TRANSPORT: "embedded",
  EINV_CREDENTIALS_KEY: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
};

describe("loadConfig: the token issuer", () => {
  it.each([
    ["SUPABASE_JWKS", { SUPABASE_JWKS: JWKS }],
    ["SUPABASE_JWKS_URL", { SUPABASE_JWKS_URL: "https://ref.supabase.co/auth/v1/.well-known/jwks.json" }],
    ["SUPABASE_JWKS with an empty JWT_ISSUER", { SUPABASE_JWKS: JWKS, JWT_ISSUER: "" }],
  ])("fails at start when %s is set but no issuer can be derived", (_what, env) => {
    const load = () => loadConfig({ ...base, ...env });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/JWT_ISSUER/);
  });

  it("takes JWT_ISSUER when given", () => {
    const config = loadConfig({ ...base, SUPABASE_JWKS: JWKS, JWT_ISSUER: "https://auth.example/auth/v1" });
    expect(config.jwt.issuer).toBe("https://auth.example/auth/v1");
  });

  it("derives the issuer from SUPABASE_URL", () => {
    const config = loadConfig({ ...base, SUPABASE_URL: "https://ref.supabase.co/", SUPABASE_JWKS: JWKS });
    expect(config.jwt).toMatchObject({ issuer: "https://ref.supabase.co/auth/v1", jwks: JSON.parse(JWKS) });
    const fetched = loadConfig({ ...base, SUPABASE_URL: "https://ref.supabase.co" });
    expect(fetched.jwt).toMatchObject({
      issuer: "https://ref.supabase.co/auth/v1",
      jwksUrl: "https://ref.supabase.co/auth/v1/.well-known/jwks.json",
    });
  });
});

describe("loadConfig: the legacy HS256 secret", () => {
  const SECRET = "legacy-secret-of-at-least-32-characters!";
  const OTHER = "another-legacy-secret-of-32-characters!!";
  const hs256Token = (secret: string) =>
    new SignJWT({ role: "authenticated" })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject("a0000000-0000-4000-8000-000000000001")
      .setAudience("authenticated")
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode(secret));

  it("reads EINV_JWT_SECRET, a name `supabase secrets set` accepts, and verifies tokens signed with it", async () => {
    const config = loadConfig({ ...base, EINV_JWT_SECRET: SECRET });
    expect(config.jwt.hs256Secret).toBe(SECRET);
    const claims = await createTokenVerifier(config.jwt).verify(await hs256Token(SECRET));
    expect(claims.sub).toBe("a0000000-0000-4000-8000-000000000001");
  });

  it("keeps SUPABASE_JWT_SECRET working (local runs)", () => {
    expect(loadConfig({ ...base, SUPABASE_JWT_SECRET: SECRET }).jwt.hs256Secret).toBe(SECRET);
  });

  it("prefers EINV_JWT_SECRET when both are set", () => {
    const config = loadConfig({ ...base, EINV_JWT_SECRET: SECRET, SUPABASE_JWT_SECRET: OTHER });
    expect(config.jwt.hs256Secret).toBe(SECRET);
  });

  it("names EINV_JWT_SECRET, never a value, when no way to verify tokens is configured", () => {
    expect(() => loadConfig(base)).toThrow(/EINV_JWT_SECRET is required/);
  });
});

describe("loadConfig: the /deliver limits", () => {
  it("defaults to 5 e-mails per document and 300 per organization an hour", () => {
    expect(loadConfig({ ...base, SUPABASE_JWT_SECRET: "s" }).deliver).toEqual({
      perDocument: 5,
      perOrganization: 300,
      windowSeconds: 3_600,
    });
  });

  it("takes them from the environment, and fails at start on a limit of 0", () => {
    const env = {
      ...base,
      SUPABASE_JWT_SECRET: "s",
      EINV_DELIVER_LIMIT_PER_DOCUMENT: "2",
      EINV_DELIVER_LIMIT_PER_ORG: "50",
      EINV_DELIVER_LIMIT_WINDOW_SECONDS: "600",
    };
    expect(loadConfig(env).deliver).toEqual({ perDocument: 2, perOrganization: 50, windowSeconds: 600 });
    expect(() => loadConfig({ ...env, EINV_DELIVER_LIMIT_PER_DOCUMENT: "0" })).toThrow(
      /EINV_DELIVER_LIMIT_PER_DOCUMENT/,
    );
  });
});
