import { SignJWT } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLocalSigner } from "../../devkit/auth.ts";
import { createTokenVerifier, InvalidTokenError } from "../../shared/auth/jwt.ts";

const user = { id: "a0000000-0000-4000-8000-000000000001", email: "a@example.test" };

async function setup() {
  const signer = await createLocalSigner("https://ref.supabase.test/auth/v1");
  const verifier = createTokenVerifier({
    issuer: signer.issuer,
    audience: "authenticated",
    jwks: signer.jwks,
    jwksUrl: undefined,
    hs256Secret: "legacy-secret-of-at-least-32-characters!",
  });
  return { signer, verifier };
}

afterEach(() => vi.useRealTimers());

describe("token verification", () => {
  it("accepts a session token and returns its claims", async () => {
    const { signer, verifier } = await setup();
    const claims = await verifier.verify(await signer.sign(user));
    expect(claims).toMatchObject({ sub: user.id, role: "authenticated", aud: "authenticated" });
  });

  it("stops accepting a remembered token once it expires", async () => {
    const { signer, verifier } = await setup();
    const token = await signer.sign(user, { expiresIn: "1h" });
    await verifier.verify(token);
    vi.useFakeTimers({ now: Date.now() + 2 * 3600_000 });
    await expect(verifier.verify(token)).rejects.toThrow(/expired/);
  });

  it("refuses a token without an expiry", async () => {
    const { verifier } = await setup();
    const token = await new SignJWT({ role: "authenticated" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(user.id)
      .setIssuer("https://ref.supabase.test/auth/v1")
      .setAudience("authenticated")
      .sign(new TextEncoder().encode("legacy-secret-of-at-least-32-characters!"));
    await expect(verifier.verify(token)).rejects.toBeInstanceOf(InvalidTokenError);
  });

  it("accepts the legacy HS256 secret when configured", async () => {
    const { verifier } = await setup();
    const token = await new SignJWT({ role: "authenticated" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(user.id)
      .setIssuer("https://ref.supabase.test/auth/v1")
      .setAudience("authenticated")
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode("legacy-secret-of-at-least-32-characters!"));
    expect((await verifier.verify(token)).sub).toBe(user.id);
  });
});
