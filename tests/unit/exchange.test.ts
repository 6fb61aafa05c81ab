/**
 * One HTTP exchange leaving the service (shared/ports/egress/exchange.ts), its edges: the deadline
 * covers a fetch that ignores its signal, redirects are returned unfollowed, the body is capped, and
 * what counts as success. The provider clients' tests cover it through their transports.
 */
import { describe, expect, it } from "vitest";
import { ExchangeTimeout, exchange, isSuccess } from "../../shared/ports/egress/exchange.ts";

const limits = { timeoutMs: 50, maxBytes: 8 };

describe("one exchange", () => {
  it("times out a fetch that ignores its signal, as ExchangeTimeout saying so", async () => {
    const hung = () => new Promise<Response>(() => {});
    const error = await exchange(hung, "http://provider.test/", {}, limits).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExchangeTimeout);
    expect(error).toMatchObject({ name: "ExchangeTimeout", message: "the call's deadline passed" });
  });

  it("throws what the fetch threw before the deadline, as it is", async () => {
    const lost = new TypeError("connection reset");
    const error = await exchange(() => Promise.reject(lost), "http://provider.test/", {}, limits).catch(
      (e: unknown) => e,
    );
    expect(error).toBe(lost);
  });

  it("asks fetch not to follow redirects, and answers the redirect itself", async () => {
    let asked: RequestInit | undefined;
    const answer = await exchange(
      async (_url, init) => {
        asked = init;
        return new Response(null, { status: 302, headers: { location: "http://169.254.169.254/" } });
      },
      "http://provider.test/",
      { method: "GET" },
      limits,
    );
    expect(asked).toMatchObject({ method: "GET", redirect: "manual" });
    expect(asked?.signal).toBeInstanceOf(AbortSignal);
    expect(answer).toMatchObject({ status: 302, truncated: false });
    expect(answer.headers.get("location")).toBe("http://169.254.169.254/");
  });

  it("reads at most maxBytes of the body, and none of one declared longer", async () => {
    const read = (body: string, headers: Record<string, string> = {}) =>
      exchange(async () => new Response(body, { headers }), "http://provider.test/", {}, limits);
    expect(await read("12345678")).toMatchObject({
      body: new TextEncoder().encode("12345678"),
      truncated: false,
    });
    // streamed, no length declared: the chunks that fit whole (readCapped), and more was sent
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("12345"));
        controller.enqueue(new TextEncoder().encode("6789"));
        controller.close();
      },
    });
    const over = await exchange(async () => new Response(stream), "http://provider.test/", {}, limits);
    expect({ length: over.body.byteLength, truncated: over.truncated }).toEqual({
      length: 5,
      truncated: true,
    });
    const declared = await read("123", { "content-length": "9" });
    expect({ length: declared.body.byteLength, truncated: declared.truncated }).toEqual({
      length: 0,
      truncated: true,
    });
  });

  it("calls 2xx, and only 2xx, a success", () => {
    expect([199, 200, 204, 299, 300, 302, 404, 500].map(isSuccess)).toEqual([
      false,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});
