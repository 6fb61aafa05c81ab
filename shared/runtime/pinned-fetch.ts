/**
 * A fetch that connects only where it is told: to an address checked beforehand, not to whatever a
 * resolver answers at connect time, while TLS (SNI and the certificate check) and the Host header
 * stay those of the URL's name. Runtimes' fetch cannot do that (Deno's `createHttpClient` "tcp"
 * proxy speaks plain HTTP even for https URLs, so it would send the key in clear text), so this
 * speaks HTTP/1.1 itself over a connection from a `Connect` port (./deno-network.ts: `Deno.connect`
 * then `Deno.startTls` with the name).
 *
 * One request per connection (`Connection: close`); answers framed by Content-Length, chunked
 * transfer coding or the end of the connection; no compression asked for; 1xx answers skipped;
 * redirects returned, never followed. The caller's signal closes the connection at any point. It
 * is for provider API calls (a few kilobytes up to a PDF), not a general-purpose client.
 */
import type { FetchLike } from "../ports/egress/exchange.ts";

/** A byte stream both ways, e.g. a Deno TCP or TLS connection. */
export interface Connection {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
  close(): void;
}

export interface ConnectTarget {
  /** The checked IP address to connect to. */
  address: string;
  port: number;
  /** For https: the name TLS announces (SNI) and checks the certificate against; null for http. */
  tls: string | null;
}

export type Connect = (target: ConnectTarget) => Promise<Connection>;

/** Status line plus headers; a provider's are a few hundred bytes. */
const MAX_HEAD_BYTES = 64 * 1024;
const MAX_CHUNK_LINE = 4096;
/** Headers the connection itself owns: never copied from the request. */
const OWN_HEADERS = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
  "upgrade",
  "te",
  "proxy-connection",
]);

/** `addresses` are tried in order until one accepts the connection; nothing else is ever dialled. */
export function createPinnedFetch(connect: Connect, addresses: readonly string[]): FetchLike {
  if (addresses.length === 0) throw new TypeError("a pinned fetch needs at least one address");
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      throw new TypeError(`cannot fetch ${url.protocol} URLs`);
    }
    const signal = request.signal;
    signal.throwIfAborted();
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    const tls = url.protocol === "https:" ? serverName(url) : null;
    const port = url.port ? Number(url.port) : tls ? 443 : 80;
    const connection = await open(connect, addresses, port, tls, signal);

    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      signal.removeEventListener("abort", finish);
      try {
        connection.close();
      } catch {
        // already closed
      }
    };
    signal.addEventListener("abort", finish, { once: true });
    try {
      const writer = connection.writable.getWriter();
      await writer.write(requestHead(request, url, body));
      if (body && body.byteLength > 0) await writer.write(body);
      writer.releaseLock();
      const reader = new ByteReader(connection.readable.getReader());
      const head = await readHead(reader);
      const empty = request.method === "HEAD" || [204, 205, 304].includes(head.status);
      const answer = empty ? null : streamOf(bodyOf(reader, framingOf(head.headers)), finish);
      if (empty) finish();
      return new Response(answer, {
        status: head.status,
        statusText: head.statusText,
        headers: head.headers,
      });
    } catch (error) {
      finish();
      throw signal.aborted ? signal.reason : error;
    }
  };
}

/** The name TLS checks: the URL's host without brackets or a trailing dot. */
function serverName(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname.replace(/\.+$/, "");
}

async function open(
  connect: Connect,
  addresses: readonly string[],
  port: number,
  tls: string | null,
  signal: AbortSignal,
): Promise<Connection> {
  let lastError: unknown;
  for (const address of addresses) {
    const attempt = connect({ address, port, tls });
    try {
      return await new Promise<Connection>((resolve, reject) => {
        const onAbort = () => {
          reject(signal.reason);
          // a connection that completes after the caller gave up is closed at once
          attempt.then((late) => late.close()).catch(() => {});
        };
        signal.addEventListener("abort", onAbort, { once: true });
        attempt.then(
          (connection) => {
            signal.removeEventListener("abort", onAbort);
            resolve(connection);
          },
          (error: unknown) => {
            signal.removeEventListener("abort", onAbort);
            reject(error);
          },
        );
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      lastError = error;
    }
  }
  throw new TypeError("could not connect to the provider", { cause: lastError });
}

function requestHead(request: Request, url: URL, body: Uint8Array | undefined): Uint8Array {
  const lines = [`${request.method} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`];
  for (const [name, value] of request.headers) {
    if (!OWN_HEADERS.has(name)) lines.push(`${name}: ${value}`);
  }
  if (!request.headers.has("accept-encoding")) lines.push("Accept-Encoding: identity");
  if (body || !["GET", "HEAD", "OPTIONS", "DELETE"].includes(request.method)) {
    lines.push(`Content-Length: ${body?.byteLength ?? 0}`);
  }
  lines.push("Connection: close", "", "");
  return new TextEncoder().encode(lines.join("\r\n"));
}

interface Head {
  status: number;
  statusText: string;
  headers: Headers;
}

/** The final answer's status line and headers (informational 1xx answers are read past). */
async function readHead(reader: ByteReader): Promise<Head> {
  for (;;) {
    let budget = MAX_HEAD_BYTES;
    const take = async () => {
      const line = await reader.line(budget);
      budget -= line.length + 2;
      return line;
    };
    const status = /^HTTP\/1\.[01] ([1-5]\d\d)(?: ([^\r\n]*))?$/.exec(await take());
    if (!status) throw new TypeError("the answer is not HTTP/1.1");
    const headers = new Headers();
    for (let line = await take(); line !== ""; line = await take()) {
      const field = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/.exec(line);
      if (!field?.[1]) throw new TypeError("the answer has a malformed header line");
      headers.append(field[1], field[2] ?? "");
    }
    const code = Number(status[1]);
    if (code === 101) throw new TypeError("the provider switched protocols");
    if (code >= 200) {
      const text = status[2] ?? "";
      return { status: code, statusText: /^[\t\x20-\x7e]*$/.test(text) ? text : "", headers };
    }
  }
}

type Framing = { by: "chunks" } | { by: "length"; length: number } | { by: "close" };

/** How the headers frame the body; a TypeError for a Content-Length that cannot be trusted. */
function framingOf(headers: Headers): Framing {
  const coding = headers.get("transfer-encoding");
  if (coding !== null) return /(^|,)\s*chunked\s*$/i.test(coding) ? { by: "chunks" } : { by: "close" };
  const length = headers.get("content-length");
  if (length === null) return { by: "close" };
  // Repeated Content-Length headers arrive joined ("12, 12"): every value must agree.
  const values = new Set(length.split(",").map((v) => v.trim()));
  const [only] = values;
  if (values.size !== 1 || !only || !/^\d{1,15}$/.test(only)) {
    throw new TypeError("the answer has an invalid Content-Length");
  }
  return { by: "length", length: Number(only) };
}

/** The body's bytes, as framed. */
function bodyOf(reader: ByteReader, framing: Framing): AsyncGenerator<Uint8Array> {
  if (framing.by === "chunks") return chunked(reader);
  if (framing.by === "length") return fixed(reader, framing.length);
  return untilClose(reader);
}

async function* fixed(reader: ByteReader, length: number): AsyncGenerator<Uint8Array> {
  for (let left = length; left > 0; ) {
    const piece = await reader.take(left);
    if (!piece) throw new TypeError("the connection closed before the whole body arrived");
    left -= piece.byteLength;
    yield piece;
  }
}

async function* untilClose(reader: ByteReader): AsyncGenerator<Uint8Array> {
  for (let piece = await reader.take(); piece; piece = await reader.take()) yield piece;
}

async function* chunked(reader: ByteReader): AsyncGenerator<Uint8Array> {
  for (;;) {
    const size = /^([0-9A-Fa-f]{1,12})[ \t]*(;.*)?$/.exec(await reader.line(MAX_CHUNK_LINE));
    if (!size?.[1]) throw new TypeError("the answer has a malformed chunk");
    const length = Number.parseInt(size[1], 16);
    if (length === 0) {
      // trailer fields, up to the empty line that ends the message
      while ((await reader.line(MAX_CHUNK_LINE)) !== "");
      return;
    }
    yield* fixed(reader, length);
    if ((await reader.line(2)) !== "") throw new TypeError("the answer has a malformed chunk");
  }
}

/** A ReadableStream over the generator; `done` runs once it ends, fails or is cancelled. */
function streamOf(pieces: AsyncGenerator<Uint8Array>, done: () => void): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await pieces.next();
        if (next.done) {
          done();
          controller.close();
        } else {
          controller.enqueue(next.value);
        }
      } catch (error) {
        done();
        controller.error(error);
      }
    },
    cancel() {
      done();
    },
  });
}

/** Lines and byte runs out of a stream of chunks. */
class ByteReader {
  private buffer: Uint8Array = new Uint8Array(0);

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** One line without its CRLF, in Latin-1; a TypeError when it runs past `max` bytes or the end. */
  async line(max: number): Promise<string> {
    let from = 0;
    for (;;) {
      const end = indexOfCrlf(this.buffer, from);
      if (end > max || (end < 0 && this.buffer.length > max + 1)) {
        throw new TypeError("the answer has a line that is too long");
      }
      if (end >= 0) {
        const line = latin1(this.buffer.subarray(0, end));
        this.buffer = this.buffer.subarray(end + 2);
        return line;
      }
      from = Math.max(0, this.buffer.length - 1);
      if (!(await this.more())) throw new TypeError("the connection closed in the middle of the answer");
    }
  }

  /** Up to `max` bytes (at least one), or null at the end of the stream. */
  async take(max = Number.POSITIVE_INFINITY): Promise<Uint8Array | null> {
    if (this.buffer.length === 0 && !(await this.more())) return null;
    const piece = this.buffer.slice(0, Math.min(max, this.buffer.length));
    this.buffer = this.buffer.subarray(piece.length);
    return piece;
  }

  private async more(): Promise<boolean> {
    const { done, value } = await this.reader.read();
    if (done) return false;
    if (this.buffer.length === 0) {
      this.buffer = value;
    } else {
      const joined = new Uint8Array(this.buffer.length + value.length);
      joined.set(this.buffer);
      joined.set(value, this.buffer.length);
      this.buffer = joined;
    }
    return true;
  }
}

function indexOfCrlf(bytes: Uint8Array, from: number): number {
  for (let i = from; i + 1 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10) return i;
  }
  return -1;
}

/** Header bytes as the ByteString the Headers class takes (one character per byte). */
function latin1(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 4096) {
    text += String.fromCharCode(...bytes.subarray(i, i + 4096));
  }
  return text;
}
