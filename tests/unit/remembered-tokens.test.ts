/**
 * Verified tokens are remembered so a client's next calls skip the signature check: each until it
 * expires or for 5 minutes, whichever comes first, and at most 1000 of them.
 *
 * Whether a token was answered from memory shows when the signing keys can no longer be fetched:
 * jose keeps the project's JWKS for 10 minutes, so a token first verified 8 minutes after the keys
 * were fetched, and presented again 3 minutes later while the JWKS endpoint is down, is accepted
 * only if it was remembered; a token that has to be checked again then gets "keys unavailable".
 * Only the clock (`Date`) is faked.
 */
import { HttpResponse, http } from "msw";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createLocalSigner, type LocalSigner } from "../../devkit/auth.ts";
import {
  createTokenVerifier,
  InvalidTokenError,
  KeysUnavailableError,
  type TokenVerifier,
} from "../../shared/auth/jwt.ts";
import { useNetworkEdge } from "../support/msw.ts";

const ISSUER = "https://ref.supabase.test/auth/v1";
const JWKS_URL = `${ISSUER}/.well-known/jwks.json`;
const T0 = Date.parse("2026-11-20T15:00:00Z");
const MINUTE = 60_000;

const server = useNetworkEdge();
let signer: LocalSigner;
let keysUp: boolean;
let fetches: number;

beforeAll(async () => {
  signer = await createLocalSigner(ISSUER);
});
beforeEach(() => {
  keysUp = true;
  fetches = 0;
  server.use(
    http.get(JWKS_URL, () => {
      fetches++;
      return keysUp
        ? HttpResponse.json(signer.jwks)
        : HttpResponse.json({ message: "down" }, { status: 500 });
    }),
  );
  vi.useFakeTimers({ toFake: ["Date"], now: T0 });
});
afterEach(() => vi.useRealTimers());

const at = (ms: number) => vi.setSystemTime(T0 + ms);
const user = () => ({ id: crypto.randomUUID(), email: "a@example.test" });

function newVerifier(): TokenVerifier {
  return createTokenVerifier(
    { issuer: ISSUER, audience: "authenticated", jwks: undefined, jwksUrl: JWKS_URL, hs256Secret: undefined },
    { jwksTimeoutMs: 1_000 },
  );
}

/** A verifier whose JWKS was fetched at T0 and will be stale (for jose) from T0 + 10 min. */
async function warmVerifier(): Promise<TokenVerifier> {
  const verifier = newVerifier();
  await verifier.verify(await signer.sign(user()));
  expect(fetches).toBe(1);
  return verifier;
}

const outcome = (verifier: TokenVerifier, token: string) =>
  verifier.verify(token).then(
    () => "accepted",
    (error: unknown) =>
      error instanceof KeysUnavailableError
        ? "checked again: keys unavailable"
        : error instanceof InvalidTokenError
          ? `invalid: ${error.message}`
          : `unexpected: ${String(error)}`,
  );

describe("remembered tokens", () => {
  it("are answered from memory for 5 minutes, then checked again", async () => {
    const verifier = await warmVerifier();
    at(8 * MINUTE);
    const token = await signer.sign(user(), { expiresIn: "1h" });
    await verifier.verify(token);
    keysUp = false;

    at(11 * MINUTE); // jose's copy of the keys is stale: only memory can answer
    expect(await outcome(verifier, token)).toBe("accepted");
    expect(fetches).toBe(1);
    at(13 * MINUTE - 1);
    expect(await outcome(verifier, token)).toBe("accepted");
    at(13 * MINUTE); // 5 minutes after it was remembered
    expect(await outcome(verifier, token)).toBe("checked again: keys unavailable");
  });

  it("are not remembered when they could not be checked: the next call checks again", async () => {
    const verifier = await warmVerifier();
    const token = await signer.sign(user(), { expiresIn: "1h" });
    keysUp = false;
    at(11 * MINUTE);
    expect(await outcome(verifier, token)).toBe("checked again: keys unavailable");
    keysUp = true;
    expect(await outcome(verifier, token)).toBe("accepted");
    expect(fetches).toBe(3);
  });

  it("are never accepted past their own expiry, even within the 5 minutes", async () => {
    const verifier = newVerifier();
    const token = await signer.sign(user(), { expiresIn: "60s" });
    await verifier.verify(token);
    at(60_000 - 1);
    expect(await outcome(verifier, token)).toBe("accepted");
    at(60_000); // the expiry instant
    expect(await outcome(verifier, token)).toBe("invalid: token expired");
    at(2 * MINUTE);
    expect(await outcome(verifier, token)).toBe("invalid: token expired");
  });

  it("are at most 1000: the oldest is forgotten when another comes", async () => {
    const verifier = await warmVerifier();
    at(8 * MINUTE);
    const tokens: string[] = [];
    for (let i = 0; i < 1001; i++) {
      const token = await signer.sign(user(), { expiresIn: "1h" });
      await verifier.verify(token);
      tokens.push(token);
    }
    keysUp = false;
    at(11 * MINUTE);
    expect(await outcome(verifier, tokens[0] as string)).toBe("checked again: keys unavailable");
    expect(await outcome(verifier, tokens[1] as string)).toBe("accepted");
    expect(await outcome(verifier, tokens[1000] as string)).toBe("accepted");
  });

  it("are remembered only once verified: a refused token is refused again", async () => {
    const verifier = newVerifier();
    const other = await createLocalSigner(ISSUER);
    const forged = await other.sign(user());
    expect(await outcome(verifier, forged)).toMatch(/^invalid: /);
    expect(await outcome(verifier, forged)).toMatch(/^invalid: /);
  });
});
