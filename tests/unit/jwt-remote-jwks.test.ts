/**
 * Token verification against a JWKS fetched over HTTP (a tiny node:http server on 127.0.0.1): an
 * Auth outage (500, garbage, no answer in time) is "keys unavailable" (the pipeline answers 503),
 * never "invalid token" (401), while bad tokens stay 401.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Hono } from "hono";
import { errors as joseErrors } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createLocalSigner, type LocalSigner } from "../../devkit/auth.ts";
import { createTokenVerifier, InvalidTokenError, KeysUnavailableError } from "../../shared/auth/jwt.ts";
import type { AppDeps, AppEnv } from "../../shared/http/context.ts";
import { handleError } from "../../shared/http/errors.ts";
import { authenticate } from "../../shared/http/middleware.ts";

const ISSUER = "https://ref.supabase.test/auth/v1";
const user = { id: "a0000000-0000-4000-8000-000000000001", email: "a@example.test" };

type Behaviour = (request: IncomingMessage, response: ServerResponse) => void;
let behaviour: Behaviour;
let server: Server;
let jwksUrl: string;
let signer: LocalSigner;
/** Responses held open by the "hang" behaviour, ended after each test. */
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  signer = await createLocalSigner(ISSUER);
  server = createServer((request, response) => behaviour(request, response));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/auth/v1/.well-known/jwks.json`;
});
afterEach(() => {
  for (const response of hanging.splice(0)) response.destroy();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const serve =
  (status: number, body: string): Behaviour =>
  (_request, response) => {
    response.writeHead(status, { "content-type": "application/json" });
    response.end(body);
  };
const hang: Behaviour = (_request, response) => {
  hanging.push(response);
};

function verifier() {
  return createTokenVerifier(
    { issuer: ISSUER, audience: "authenticated", jwks: undefined, jwksUrl, hs256Secret: undefined },
    { jwksTimeoutMs: 200 },
  );
}

describe("remote JWKS", () => {
  it("accepts a token signed by a key the endpoint serves", async () => {
    behaviour = serve(200, JSON.stringify(signer.jwks));
    expect((await verifier().verify(await signer.sign(user))).sub).toBe(user.id);
  });

  it.each([
    ["answers 500", serve(500, '{"message":"internal"}')],
    ["answers 503 with HTML", serve(503, "<html>down</html>")],
    ["answers 200 with a body that is not JSON", serve(200, "<html>ok</html>")],
    ["answers 200 with something that is not a key set", serve(200, '{"keys":"nope"}')],
  ])("reports keys unavailable, not an invalid token, when the endpoint %s", async (_what, serveIt) => {
    behaviour = serveIt;
    const failure = await verifier()
      .verify(await signer.sign(user))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(KeysUnavailableError);
    expect(failure).not.toBeInstanceOf(InvalidTokenError);
    // named, and carrying jose's error as its cause for the logs
    expect((failure as Error).name).toBe("KeysUnavailableError");
    expect((failure as Error).cause).toBeInstanceOf(joseErrors.JOSEError);
    expect((failure as Error).message).toMatch(/^could not obtain the signing keys: /);
  });

  it("reports keys unavailable when the endpoint does not answer in time", async () => {
    behaviour = hang;
    const started = Date.now();
    const failure = await verifier()
      .verify(await signer.sign(user))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(KeysUnavailableError);
    expect(String((failure as Error).message)).toMatch(/timed out/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("answers 503, not 401, when the endpoint refuses the connection", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = createTokenVerifier(
      {
        issuer: ISSUER,
        audience: "authenticated",
        jwks: undefined,
        jwksUrl: `http://127.0.0.1:${port}/auth/v1/.well-known/jwks.json`,
        hs256Secret: undefined,
      },
      { jwksTimeoutMs: 2_000 },
    );
    const token = await signer.sign(user);
    const failure = await refused.verify(token).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(InvalidTokenError);

    const app = new Hono<AppEnv>();
    app.use(async (c, next) => {
      c.set("deps", { verifyToken: (t: string) => refused.verify(t) } as unknown as AppDeps);
      await next();
    });
    app.use(authenticate);
    app.post("/", (c) => c.text("ok"));
    app.onError(handleError);
    const response = await app.request("/", {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(503);
    expect((await response.json()).error.code).toBe("service_unavailable");
  });

  it("still refuses bad tokens as invalid: unknown key, wrong issuer, wrong audience, expired", async () => {
    behaviour = serve(200, JSON.stringify(signer.jwks));
    const other = await createLocalSigner(ISSUER);
    const v = verifier();
    await expect(v.verify(await other.sign(user))).rejects.toBeInstanceOf(InvalidTokenError);
    await expect(v.verify(await signer.sign(user, { issuer: "https://evil.test/auth/v1" }))).rejects.toThrow(
      InvalidTokenError,
    );
    await expect(v.verify(await signer.sign(user, { audience: "anon" }))).rejects.toThrow(InvalidTokenError);
    await expect(v.verify(await signer.sign(user, { expiresIn: "-1m" }))).rejects.toThrow(/expired/);
  });

  it("recovers once the endpoint is back", async () => {
    const v = verifier();
    const token = await signer.sign(user);
    behaviour = serve(500, "{}");
    await expect(v.verify(token)).rejects.toBeInstanceOf(KeysUnavailableError);
    behaviour = serve(200, JSON.stringify(signer.jwks));
    expect((await v.verify(token)).sub).toBe(user.id);
  });

  it("makes the pipeline answer 503, not 401, while the keys are unavailable", async () => {
    const v = verifier();
    const app = new Hono<AppEnv>();
    app.use(async (c, next) => {
      c.set("deps", { verifyToken: (t: string) => v.verify(t) } as unknown as AppDeps);
      await next();
    });
    app.use(authenticate);
    app.post("/", (c) => c.text("ok"));
    app.onError(handleError);
    const call = async () =>
      app.request("/", { method: "POST", headers: { authorization: `Bearer ${await signer.sign(user)}` } });

    behaviour = serve(500, "{}");
    const down = await call();
    expect(down.status).toBe(503);
    expect((await down.json()).error.code).toBe("service_unavailable");
    behaviour = serve(200, JSON.stringify(signer.jwks));
    expect((await call()).status).toBe(200);
  });
});
