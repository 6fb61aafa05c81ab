/**
 * What makes a session token acceptable beyond its signature: a subject, a user role, an accepted
 * algorithm (ES256 or RS256 from the JWKS, HS256 only with the legacy secret), and a readable header.
 */
import { exportJWK, generateKeyPair, importJWK, type JWTPayload, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { createLocalSigner, type LocalSigner } from "../../devkit/auth.ts";
import { createTokenVerifier, InvalidTokenError } from "../../shared/auth/jwt.ts";

const ISSUER = "https://ref.supabase.test/auth/v1";
const SECRET = "legacy-secret-of-at-least-32-characters!";
const USER_ID = "a0000000-0000-4000-8000-000000000001";

const verifierFor = (options: { jwks?: { keys: unknown[] }; hs256Secret?: string }) =>
  createTokenVerifier({
    issuer: ISSUER,
    audience: "authenticated",
    jwks: options.jwks,
    jwksUrl: undefined,
    hs256Secret: options.hs256Secret,
  });

/** A token with `payload` as the session claims, signed by `signer`'s key. */
async function signed(
  signer: LocalSigner,
  payload: JWTPayload,
  kid = signer.jwks.keys[0]?.kid,
): Promise<string> {
  const key = await importJWK(signer.privateJwk, "ES256");
  return new SignJWT(payload)
    .setProtectedHeader({ alg: "ES256", kid, typ: "JWT" })
    .setIssuer(ISSUER)
    .setAudience("authenticated")
    .setExpirationTime("1h")
    .sign(key);
}

/** What verify rejects with (fails the test when it resolves). */
async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail("expected the token to be refused"),
    (error: unknown) => error,
  );
}

describe("the subject", () => {
  it.each([
    ["an empty subject", { sub: "" }],
    ["a subject that is not a string", { sub: 42 as unknown as string }],
    ["no subject at all", {}],
  ])("is required: a token with %s is invalid", async (_what, claims) => {
    const signer = await createLocalSigner(ISSUER);
    const token = await signed(signer, { role: "authenticated", ...claims });
    const error = await refusal(verifierFor({ jwks: signer.jwks }).verify(token));
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect((error as Error).name).toBe("InvalidTokenError");
  });

  it.each([
    ["a user id followed by more", { sub: `${USER_ID}x` }],
    ["a user id preceded by more", { sub: `x${USER_ID}` }],
    ["a user id inside a list", { sub: [USER_ID] as unknown as string }],
    ["a name", { sub: "service-account" }],
  ])("must be a user id: a token with %s is invalid", async (_what, claims) => {
    const signer = await createLocalSigner(ISSUER);
    const token = await signed(signer, { role: "authenticated", ...claims });
    const error = await refusal(verifierFor({ jwks: signer.jwks }).verify(token));
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect((error as Error).message).toBe("token subject is not a user id");
  });

  it("may be a user id in capitals", async () => {
    const signer = await createLocalSigner(ISSUER);
    const token = await signed(signer, { role: "authenticated", sub: USER_ID.toUpperCase() });
    expect((await verifierFor({ jwks: signer.jwks }).verify(token)).sub).toBe(USER_ID.toUpperCase());
  });
});

describe("the role", () => {
  it("may be absent", async () => {
    const signer = await createLocalSigner(ISSUER);
    const token = await signed(signer, { sub: USER_ID });
    expect((await verifierFor({ jwks: signer.jwks }).verify(token)).sub).toBe(USER_ID);
  });

  it("must be authenticated when present", async () => {
    const signer = await createLocalSigner(ISSUER);
    const token = await signed(signer, { sub: USER_ID, role: "anon" });
    const error = await refusal(verifierFor({ jwks: signer.jwks }).verify(token));
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect((error as Error).message).toMatch(/not a user session/);
  });
});

describe("the algorithm", () => {
  it("may be RS256 with a key from the JWKS", async () => {
    const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: "rsa-1", alg: "RS256", use: "sig" };
    const token = await new SignJWT({ role: "authenticated" })
      .setProtectedHeader({ alg: "RS256", kid: "rsa-1" })
      .setSubject(USER_ID)
      .setIssuer(ISSUER)
      .setAudience("authenticated")
      .setExpirationTime("1h")
      .sign(privateKey);
    expect((await verifierFor({ jwks: { keys: [jwk] } }).verify(token)).sub).toBe(USER_ID);
  });

  it("may not be another asymmetric one, even with its key in the JWKS", async () => {
    const { privateKey, publicKey } = await generateKeyPair("PS256", { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: "ps-1", alg: "PS256", use: "sig" };
    const token = await new SignJWT({ role: "authenticated" })
      .setProtectedHeader({ alg: "PS256", kid: "ps-1" })
      .setSubject(USER_ID)
      .setIssuer(ISSUER)
      .setAudience("authenticated")
      .setExpirationTime("1h")
      .sign(privateKey);
    const error = await refusal(verifierFor({ jwks: { keys: [jwk] } }).verify(token));
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect((error as Error).message).toMatch(/PS256 are not accepted/);
  });

  it("is HS256 only with the legacy secret, and asymmetric only with a JWKS", async () => {
    const signer = await createLocalSigner(ISSUER);
    const es256 = await signer.sign({ id: USER_ID, email: "a@example.test" });
    const hs256 = await new SignJWT({ role: "authenticated" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(USER_ID)
      .setIssuer(ISSUER)
      .setAudience("authenticated")
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode(SECRET));
    const secretOnly = verifierFor({ hs256Secret: SECRET });
    const jwksOnly = verifierFor({ jwks: signer.jwks });
    expect((await secretOnly.verify(hs256)).sub).toBe(USER_ID);
    expect(await refusal(secretOnly.verify(es256))).toBeInstanceOf(InvalidTokenError);
    expect(await refusal(jwksOnly.verify(hs256))).toBeInstanceOf(InvalidTokenError);
    expect((await jwksOnly.verify(es256)).sub).toBe(USER_ID);
  });

  it("HS512 is refused even with the legacy secret configured", async () => {
    const token = await new SignJWT({ role: "authenticated" })
      .setProtectedHeader({ alg: "HS512" })
      .setSubject(USER_ID)
      .setIssuer(ISSUER)
      .setAudience("authenticated")
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode(SECRET));
    const error = await refusal(verifierFor({ hs256Secret: SECRET }).verify(token));
    expect(error).toBeInstanceOf(InvalidTokenError);
  });
});

describe("a bad signature", () => {
  it("is said in a sentence, never with jose's error code", async () => {
    const signer = await createLocalSigner(ISSUER);
    const other = await createLocalSigner(ISSUER);
    const forged = await other.sign({ id: USER_ID, email: "a@example.test" });
    const error = await refusal(verifierFor({ jwks: signer.jwks }).verify(forged));
    expect((error as Error).message).toBe(
      "invalid token: it was signed with a key this project does not have (another project's, or one rotated out); sign in again",
    );
    const [header, payload] = (await signer.sign({ id: USER_ID, email: "a@example.test" })).split(".");
    const tampered = `${header}.${payload}.${"A".repeat(86)}`;
    const bad = await refusal(verifierFor({ jwks: signer.jwks }).verify(tampered));
    expect((bad as Error).message).toBe(
      "invalid token: its signature does not match (it was altered, or signed with another key); sign in again",
    );
    const payloadless = `${header}.${btoa("not json")}.${"A".repeat(86)}`;
    const garbled = await refusal(verifierFor({ jwks: signer.jwks }).verify(payloadless));
    expect((garbled as Error).message).not.toMatch(/ERR_/);
  });
});

describe("the header", () => {
  it("is read as base64url, whichever characters its encoding uses", async () => {
    const signer = await createLocalSigner(ISSUER);
    // this key id makes the header encode with both url-safe characters ("_" and "-")
    const kid = "k???>";
    const rekeyed = await createLocalSigner(ISSUER, { ...signer.privateJwk, kid });
    const token = await rekeyed.sign({ id: USER_ID, email: "a@example.test" });
    const header = token.split(".")[0] as string;
    expect(header).toMatch(/-/);
    expect(header).toMatch(/_/);
    expect((await verifierFor({ jwks: rekeyed.jwks }).verify(token)).sub).toBe(USER_ID);
  });

  it.each([
    ["not base64", "%%%.e30.sig"],
    ["not JSON", `${btoa("not json")}.e30.sig`],
    ["without an algorithm", `${btoa(JSON.stringify({ typ: "JWT" }))}.e30.sig`],
    ["with an algorithm that is not a string", `${btoa(JSON.stringify({ alg: 256 }))}.e30.sig`],
    ["empty", ""],
  ])("that is %s makes the token malformed", async (_what, token) => {
    const signer = await createLocalSigner(ISSUER);
    const error = await refusal(verifierFor({ jwks: signer.jwks, hs256Secret: SECRET }).verify(token));
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect((error as Error).message).toBe("malformed token");
  });
});

describe("a claim that fails", () => {
  it("names the issuer when a token comes from another address of the same key (a changed PORT)", async () => {
    const signer = await createLocalSigner(ISSUER);
    const elsewhere = await createLocalSigner("http://127.0.0.1:54400/auth/v1", signer.privateJwk);
    const token = await elsewhere.sign({ id: USER_ID, email: "a@example.test" });
    const error = await refusal(verifierFor({ jwks: signer.jwks }).verify(token));
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect((error as Error).message).toBe(
      `invalid token: it was not issued by this project (${ISSUER}) but by another project, or by this ` +
        "one at another address (locally: after PORT or HOST changed); sign in again",
    );
  });

  it("names the audience and a missing claim", async () => {
    const signer = await createLocalSigner(ISSUER);
    const key = await importJWK(signer.privateJwk, "ES256");
    const header = { alg: "ES256", kid: signer.jwks.keys[0]?.kid, typ: "JWT" };
    const base = () => new SignJWT({ sub: USER_ID, role: "authenticated" }).setProtectedHeader(header);
    const otherAudience = await base()
      .setIssuer(ISSUER)
      .setAudience("anon")
      .setExpirationTime("1h")
      .sign(key);
    const noExpiry = await base().setIssuer(ISSUER).setAudience("authenticated").sign(key);
    const verifier = verifierFor({ jwks: signer.jwks });
    expect(((await refusal(verifier.verify(otherAudience))) as Error).message).toBe(
      'invalid token: its audience is not "authenticated"',
    );
    expect(((await refusal(verifier.verify(noExpiry))) as Error).message).toBe(
      'invalid token: it has no "exp" claim',
    );
  });
});
