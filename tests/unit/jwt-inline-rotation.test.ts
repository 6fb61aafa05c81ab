/**
 * An inline JWKS (SUPABASE_JWKS) after the project rotates its signing key: a token with a `kid` the
 * inline set lacks makes the project's JWKS be fetched (a node:http server on 127.0.0.1 that rotates
 * keys and counts requests), at most once per interval however many such tokens arrive.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLocalSigner, type LocalSigner } from "../../devkit/auth.ts";
import {
  createTokenVerifier,
  InvalidTokenError,
  KeysUnavailableError,
  type TokenVerifier,
} from "../../shared/auth/jwt.ts";

const ISSUER = "https://ref.supabase.test/auth/v1";
const INTERVAL_MS = 1_000;
const user = { id: "a0000000-0000-4000-8000-000000000001", email: "a@example.test" };

let server: Server;
let jwksUrl: string;
/** What the endpoint answers now; `fetches` counts its requests. */
let served: { status: number; body: string };
let fetches = 0;
let oldKey: LocalSigner;
let newKey: LocalSigner;
let stranger: LocalSigner;

beforeAll(async () => {
  [oldKey, newKey, stranger] = await Promise.all([
    createLocalSigner(ISSUER),
    createLocalSigner(ISSUER),
    createLocalSigner(ISSUER),
  ]);
  server = createServer((_request, response) => {
    fetches++;
    response.writeHead(served.status, { "content-type": "application/json" });
    response.end(served.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/auth/v1/.well-known/jwks.json`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  fetches = 0;
  // after the rotation: the project serves the new key (and still the old one)
  served = { status: 200, body: JSON.stringify({ keys: [...newKey.jwks.keys, ...oldKey.jwks.keys] }) };
});

/** A verifier whose inline JWKS holds only the key from before the rotation. */
function staleVerifier(): TokenVerifier {
  return createTokenVerifier(
    { issuer: ISSUER, audience: "authenticated", jwks: oldKey.jwks, jwksUrl, hs256Secret: undefined },
    { jwksTimeoutMs: 500, jwksRefetchIntervalMs: INTERVAL_MS },
  );
}
/** A token signed with a key nobody serves, under a kid never seen before. */
async function randomKidToken(): Promise<string> {
  const signer = await createLocalSigner(ISSUER, { ...stranger.privateJwk, kid: crypto.randomUUID() });
  return signer.sign(user);
}
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("inline JWKS after a key rotation", () => {
  it("accepts tokens of the inline keys without fetching", async () => {
    expect((await staleVerifier().verify(await oldKey.sign(user))).sub).toBe(user.id);
    expect(fetches).toBe(0);
  });

  it("fetches the project's JWKS once for a kid the inline set lacks, then accepts the rotated key", async () => {
    const verifier = staleVerifier();
    expect((await verifier.verify(await newKey.sign(user))).sub).toBe(user.id);
    expect(fetches).toBe(1);
    // the fetched keys are kept: more tokens of the new key need no fetch
    for (let i = 0; i < 5; i++) {
      expect((await verifier.verify(await newKey.sign(user))).sub).toBe(user.id);
    }
    expect(fetches).toBe(1);
  });

  it("stops trusting a fetched key once it is old and the project no longer serves it (rotated out, revoked)", async () => {
    const verifier = createTokenVerifier(
      { issuer: ISSUER, audience: "authenticated", jwks: oldKey.jwks, jwksUrl, hs256Secret: undefined },
      { jwksTimeoutMs: 500, jwksRefetchIntervalMs: 50, jwksFetchedMaxAgeMs: 200 },
    );
    expect((await verifier.verify(await newKey.sign(user))).sub).toBe(user.id);
    expect(fetches).toBe(1);
    // the project revokes the new key; a token signed with it (not one seen before) after the max age
    served = { status: 200, body: JSON.stringify({ keys: oldKey.jwks.keys }) };
    await sleep(250);
    const another = { id: "a0000000-0000-4000-8000-000000000002", email: "b@example.test" };
    expect(await refusal(verifier.verify(await newKey.sign(another)))).toBeInstanceOf(InvalidTokenError);
    expect(fetches).toBe(2);
  });

  it("fetches at most once per interval for a flood of tokens with random kids, refusing each", async () => {
    const verifier = staleVerifier();
    const tokens = await Promise.all(Array.from({ length: 100 }, randomKidToken));
    const concurrent = await Promise.all(tokens.slice(0, 50).map((t) => refusal(verifier.verify(t))));
    const sequential: unknown[] = [];
    for (const token of tokens.slice(50)) sequential.push(await refusal(verifier.verify(token)));
    for (const error of [...concurrent, ...sequential]) expect(error).toBeInstanceOf(InvalidTokenError);
    expect(fetches).toBe(1);
    // a rotated token still passes within the interval: the one fetch brought its key
    expect((await verifier.verify(await newKey.sign(user))).sub).toBe(user.id);
    expect(fetches).toBe(1);

    await sleep(INTERVAL_MS + 50);
    for (let i = 0; i < 20; i++) {
      expect(await refusal(verifier.verify(await randomKidToken()))).toBeInstanceOf(InvalidTokenError);
    }
    expect(fetches).toBe(2);
  });

  it("reports keys unavailable (not an invalid token) while the fetch fails, without fetching again within the interval", async () => {
    served = { status: 500, body: '{"message":"internal"}' };
    const verifier = staleVerifier();
    for (let i = 0; i < 10; i++) {
      expect(await refusal(verifier.verify(await newKey.sign(user)))).toBeInstanceOf(KeysUnavailableError);
    }
    expect(fetches).toBe(1);
    // the inline keys keep working meanwhile
    expect((await verifier.verify(await oldKey.sign(user))).sub).toBe(user.id);

    served = { status: 200, body: JSON.stringify(newKey.jwks) };
    await sleep(INTERVAL_MS + 50);
    expect((await verifier.verify(await newKey.sign(user))).sub).toBe(user.id);
    expect(fetches).toBe(2);
  });
});
