/**
 * The pinned fetch (shared/runtime/pinned-fetch.ts): it dials only the address it was given, keeps
 * the URL's name for TLS (SNI, certificate check) and the Host header, and speaks enough HTTP/1.1 for
 * provider answers — Content-Length, chunked, until-close, 1xx skipped, no body for 204/HEAD — and
 * fails cleanly on what is not HTTP, on a body cut short, and when the caller's signal fires. The
 * connector here is Node's net/tls (the Deno one is tests/e2e/pinned-egress.test.ts); the servers are
 * real sockets on loopback.
 */
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createServer as createNetServer, connect as netConnect, type Server, type Socket } from "node:net";
import { Duplex } from "node:stream";
import { connect as tlsConnect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PUBLIC_TEST_ADDRESS } from "../../devkit/app.ts";
import { reach } from "../../shared/ports/egress/egress.ts";
import { UnsafeProviderUrlError } from "../../shared/ports/egress/url-policy.ts";
import { createProviderTransport } from "../../shared/providers/transport.ts";
import { type Connect, type Connection, createPinnedFetch } from "../../shared/runtime/pinned-fetch.ts";
import { PROVIDER_TLS_CERT, PROVIDER_TLS_KEY, PROVIDER_TLS_NAME } from "../support/provider-tls.ts";

/** Node's sockets as a Connect port; `dialled` records each target, `reroute` maps addresses to loopback. */
function nodeConnect(options: { reroute?: Record<string, string> } = {}) {
  const dialled: { address: string; port: number; tls: string | null }[] = [];
  const connect: Connect = (target) =>
    new Promise<Connection>((resolve, reject) => {
      dialled.push(target);
      const host = options.reroute?.[target.address] ?? target.address;
      const socket: Socket = target.tls
        ? tlsConnect({ host, port: target.port, servername: target.tls, ca: [PROVIDER_TLS_CERT] })
        : netConnect({ host, port: target.port });
      socket.once(target.tls ? "secureConnect" : "connect", () => {
        const { readable, writable } = Duplex.toWeb(socket) as unknown as Omit<Connection, "close">;
        resolve({ readable, writable, close: () => socket.destroy() });
      });
      socket.once("error", reject);
    });
  return { connect, dialled };
}

/** A raw TCP server: `answer` gets the request head's text and writes whatever it likes. */
async function rawServer(
  answer: (head: string, socket: Socket) => void,
): Promise<{ server: Server; port: number }> {
  const server = createNetServer((socket) => {
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      if (received.includes("\r\n\r\n")) {
        socket.removeAllListeners("data");
        answer(received, socket);
      }
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return { server, port: typeof address === "object" && address ? address.port : 0 };
}

let echo: HttpServer;
let echoPort: number;
let tlsServer: HttpServer;
let tlsPort: number;
const raw: Server[] = [];

/** What a real HTTP server parsed of our request. */
const echoHandler: Parameters<typeof createHttpServer>[1] = (request, response) => {
  let body = "";
  request.on("data", (chunk) => (body += chunk));
  request.on("end", () => {
    const text = JSON.stringify({
      method: request.method,
      url: request.url,
      host: request.headers.host,
      authorization: request.headers.authorization,
      contentType: request.headers["content-type"],
      connection: request.headers.connection,
      body,
    });
    response.writeHead(200, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
    });
    response.end(text);
  });
};

beforeAll(async () => {
  echo = createHttpServer(echoHandler);
  tlsServer = createHttpsServer({ cert: PROVIDER_TLS_CERT, key: PROVIDER_TLS_KEY }, echoHandler);
  const listen = (server: HttpServer) =>
    new Promise<number>((resolve) =>
      server.listen(0, "127.0.0.1", () => {
        const address = server.address();
        resolve(typeof address === "object" && address ? address.port : 0);
      }),
    );
  [echoPort, tlsPort] = await Promise.all([listen(echo), listen(tlsServer)]);
});
afterAll(() => {
  echo?.close();
  tlsServer?.close();
  for (const server of raw) server.close();
});

async function serve(answer: (head: string, socket: Socket) => void): Promise<number> {
  const { server, port } = await rawServer(answer);
  raw.push(server);
  return port;
}

describe("a pinned fetch", () => {
  it("connects to the address it was given, keeping the name in the Host header and the path", async () => {
    const { connect, dialled } = nodeConnect();
    const fetch = createPinnedFetch(connect, ["127.0.0.1"]);
    const response = await fetch(`http://provider.example.test:${echoPort}/v1/credentials/check?x=1&y=%20`, {
      method: "POST",
      headers: { authorization: "Bearer sk_test", "content-type": "application/json", Host: "evil.test" },
      body: JSON.stringify({ hello: "wörld" }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      method: "POST",
      url: "/v1/credentials/check?x=1&y=%20",
      host: `provider.example.test:${echoPort}`,
      authorization: "Bearer sk_test",
      contentType: "application/json",
      connection: "close",
      body: '{"hello":"wörld"}',
    });
    expect(dialled).toEqual([{ address: "127.0.0.1", port: echoPort, tls: null }]);
  });

  it("speaks TLS to the checked address for the URL's name, and refuses a certificate for another name", async () => {
    const { connect, dialled } = nodeConnect();
    const fetch = createPinnedFetch(connect, ["127.0.0.1"]);
    const response = await fetch(`https://${PROVIDER_TLS_NAME}:${tlsPort}/credentials/check`);
    expect(await response.json()).toMatchObject({ host: `${PROVIDER_TLS_NAME}:${tlsPort}`, method: "GET" });
    expect(dialled).toEqual([{ address: "127.0.0.1", port: tlsPort, tls: PROVIDER_TLS_NAME }]);
    await expect(fetch(`https://other.example.test:${tlsPort}/credentials/check`)).rejects.toThrow();
  });

  it("tries the next checked address when one refuses the connection, and dials nothing else", async () => {
    const { connect, dialled } = nodeConnect({ reroute: { [PUBLIC_TEST_ADDRESS]: "127.0.0.1" } });
    const refused: string[] = [];
    const fetch = createPinnedFetch(
      async (target) => {
        if (target.address !== "198.51.100.7") return connect(target);
        refused.push(target.address);
        throw new Error("ECONNREFUSED");
      },
      ["198.51.100.7", PUBLIC_TEST_ADDRESS],
    );
    expect((await fetch(`http://provider.example.test:${echoPort}/x`)).status).toBe(200);
    expect(refused).toEqual(["198.51.100.7"]);
    expect(dialled.map((d) => d.address)).toEqual([PUBLIC_TEST_ADDRESS]);
    const none = createPinnedFetch(() => Promise.reject(new Error("ECONNREFUSED")), ["198.51.100.7"]);
    await expect(none("http://provider.example.test/x")).rejects.toThrow("could not connect to the provider");
  });

  it.each([
    [
      "Content-Length",
      'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"ok":true}',
      '{"ok":true}',
    ],
    [
      "chunked transfer coding, with extensions and trailers",
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\n{"ok\r\nA\r\n":true,"m"\r\n5\r\n:"x"}\r\n0\r\nX-Trailer: 1\r\n\r\n',
      '{"ok":true,"m":"x"}',
    ],
    [
      "the end of the connection",
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil close",
      "until close",
    ],
    [
      "an informational answer first",
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi",
      "hi",
    ],
    [
      "a repeated, agreeing Content-Length",
      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nhi",
      "hi",
    ],
  ])("reads a body framed by %s", async (_framing, answer, body) => {
    const port = await serve((_head, socket) => socket.end(answer));
    const fetch = createPinnedFetch(nodeConnect().connect, ["127.0.0.1"]);
    const response = await fetch(`http://provider.example.test:${port}/`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(body);
  });

  it("reads a large body in pieces, whole", async () => {
    const big = "x".repeat(3 * 1024 * 1024);
    const port = await serve((_head, socket) =>
      socket.end(`HTTP/1.1 200 OK\r\nContent-Length: ${big.length}\r\n\r\n${big}`),
    );
    const fetch = createPinnedFetch(nodeConnect().connect, ["127.0.0.1"]);
    expect((await (await fetch(`http://provider.example.test:${port}/`)).text()).length).toBe(big.length);
  });

  it("gives the status, reason and headers of a non-2xx answer, and no body for 204", async () => {
    const port = await serve((head, socket) =>
      socket.end(
        head.startsWith("GET /gone")
          ? "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\nContent-Length: 0\r\n\r\n"
          : "HTTP/1.1 204 No Content\r\n\r\n",
      ),
    );
    const fetch = createPinnedFetch(nodeConnect().connect, ["127.0.0.1"]);
    const denied = await fetch(`http://provider.example.test:${port}/gone`);
    expect([denied.status, denied.statusText, denied.headers.get("www-authenticate")]).toEqual([
      401,
      "Unauthorized",
      "Bearer",
    ]);
    const empty = await fetch(`http://provider.example.test:${port}/empty`);
    expect([empty.status, empty.body]).toEqual([204, null]);
  });

  it.each([
    ["an answer that is not HTTP", "SSH-2.0-OpenSSH_9.6\r\n\r\n", /not HTTP/],
    ["a malformed header line", "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", /malformed header/],
    [
      "disagreeing Content-Lengths",
      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nhi",
      /Content-Length/,
    ],
    ["a connection closed in the head", "HTTP/1.1 200 OK\r\nContent-Le", /closed in the middle/],
    ["a head larger than 64 KiB", `HTTP/1.1 200 OK\r\nX-Big: ${"a".repeat(70_000)}\r\n\r\n`, /too long/],
  ])("fails on %s", async (_what, answer, error) => {
    const port = await serve((_head, socket) => socket.end(answer));
    const fetch = createPinnedFetch(nodeConnect().connect, ["127.0.0.1"]);
    await expect(fetch(`http://provider.example.test:${port}/`)).rejects.toThrow(error);
  });

  it.each([
    ["cut short", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf", /before the whole body/],
    [
      "with a malformed chunk",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      /malformed chunk/,
    ],
  ])("fails reading a body %s", async (_what, answer, error) => {
    const port = await serve((_head, socket) => socket.end(answer));
    const fetch = createPinnedFetch(nodeConnect().connect, ["127.0.0.1"]);
    const response = await fetch(`http://provider.example.test:${port}/`);
    await expect(response.text()).rejects.toThrow(error);
  });

  it("gives up when the caller's signal fires, while connecting or while waiting for the answer", async () => {
    const silent = await serve(() => {});
    const fetch = createPinnedFetch(nodeConnect().connect, ["127.0.0.1"]);
    const started = Date.now();
    await expect(
      fetch(`http://provider.example.test:${silent}/`, { signal: AbortSignal.timeout(100) }),
    ).rejects.toMatchObject({ name: "TimeoutError" });
    expect(Date.now() - started).toBeLessThan(2_000);

    const late = fakeConnection();
    const hanging = createPinnedFetch(
      () => new Promise((resolve) => setTimeout(() => resolve(late), 300)),
      ["127.0.0.1"],
    );
    await expect(
      hanging("http://provider.example.test/", { signal: AbortSignal.timeout(50) }),
    ).rejects.toMatchObject({
      name: "TimeoutError",
    });
    expect(late.closed).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(late.closed).toBe(true);
  });

  it("carries a provider client: the transport's credential check over a pinned connection", async () => {
    const port = await serve((head, socket) => {
      const authorised = /\r\nauthorization: Bearer sk_sandbox_pinned\r\n/i.test(head);
      const body = JSON.stringify({ ok: authorised, message: authorised ? "fine" : "no" });
      socket.end(
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
    });
    const transport = createProviderTransport("deliver", "test", {
      baseUrl: `http://provider.example.test:${port}/v1`,
      apiKey: "sk_sandbox_pinned",
      timeoutMs: 2_000,
      fetch: createPinnedFetch(nodeConnect().connect, ["127.0.0.1"]),
    });
    expect(await transport.checkCredential()).toEqual({
      ok: true,
      message: "The provider accepted the API key.",
      providerMessage: "fine",
    });
  });
});

describe("reaching a provider through the egress", () => {
  it("resolves once, checks, and dials exactly the checked address — a later rebinding answer is never asked for", async () => {
    const answers = [[PUBLIC_TEST_ADDRESS], ["127.0.0.1"]];
    const asked: string[] = [];
    const { connect, dialled } = nodeConnect({ reroute: { [PUBLIC_TEST_ADDRESS]: "127.0.0.1" } });
    const egress = {
      resolve: async (host: string) => {
        asked.push(host);
        return answers.shift() ?? [];
      },
      fetch: () => Promise.reject(new Error("the unpinned fetch must not be used")),
      pinned: (addresses: readonly string[]) => createPinnedFetch(connect, addresses),
      pins: true,
    };
    const fetch = await reach(egress, new URL(`https://${PROVIDER_TLS_NAME}:${tlsPort}/`), {
      allowPrivate: false,
      timeoutMs: 1_000,
    });
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`https://${PROVIDER_TLS_NAME}:${tlsPort}/credentials/check`);
      expect(response.status).toBe(200);
    }
    expect(asked).toEqual([PROVIDER_TLS_NAME]);
    expect(dialled.map((d) => [d.address, d.tls])).toEqual(
      Array(3).fill([PUBLIC_TEST_ADDRESS, PROVIDER_TLS_NAME]),
    );
    // the second answer (loopback) is what a check now would see: refused
    await expect(
      reach(egress, new URL(`https://${PROVIDER_TLS_NAME}/`), { allowPrivate: false, timeoutMs: 1_000 }),
    ).rejects.toBeInstanceOf(UnsafeProviderUrlError);
  });
});

function fakeConnection(): Connection & { closed: boolean } {
  const connection = {
    closed: false,
    readable: new ReadableStream<Uint8Array>(),
    writable: new WritableStream<Uint8Array>(),
    close() {
      connection.closed = true;
    },
  };
  return connection;
}
