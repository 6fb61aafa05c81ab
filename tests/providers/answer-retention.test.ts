/**
 * What a provider call leaves in memory once it is over: nothing. Found with heap snapshots of the
 * local server after a /transmit load (bench/heap-snapshot.ts): each call's AbortSignal.timeout kept
 * its signal, through it the race that waited on the answer, and so the answer's bytes (a view into a
 * 64 KiB buffer) for the whole provider timeout — hundreds of MiB at a few hundred calls a second.
 * The provider is a fetch at the network edge; V8's collector is run for real (`gc` exposed).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { readCapped } from "../../shared/kernel/bytes.ts";
import { type Egress, reach } from "../../shared/ports/egress/egress.ts";
import { createProviderTransport } from "../../shared/providers/transport.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Whether `ref`'s target is still alive after full collections (each after the current job). */
async function survives(ref: WeakRef<object>): Promise<boolean> {
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
  }
  return ref.deref() !== undefined;
}

describe("a provider call, once over", () => {
  it("holds neither the answer nor its signal (the timeout is long, the call is done)", async () => {
    const refs: { chunk?: WeakRef<Uint8Array>; signal?: WeakRef<AbortSignal> } = {};
    const transport = createProviderTransport("adapter-tax", "test client", {
      baseUrl: "https://provider.example.test/v1",
      apiKey: "sk_test_retention_0123456789",
      timeoutMs: 60_000,
      fetch: async (_input, init) => {
        if (init?.signal) refs.signal = new WeakRef(init.signal);
        const chunk = new TextEncoder().encode(JSON.stringify({ ok: true, message: "Credencial válida." }));
        refs.chunk = new WeakRef(chunk);
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(chunk);
            controller.close();
          },
        });
        return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
      },
    });
    await expect(transport.checkCredential()).resolves.toEqual({
      ok: true,
      message: "The provider accepted the API key.",
      providerMessage: "Credencial válida.",
    });
    if (!refs.chunk || !refs.signal) throw new Error("the provider was not called");
    expect(await survives(refs.chunk)).toBe(false);
    expect(await survives(refs.signal)).toBe(false);
  });

  it("still times out when the provider does not answer", async () => {
    const transport = createProviderTransport("adapter-tax", "test client", {
      baseUrl: "https://provider.example.test/v1",
      apiKey: "sk_test_retention_0123456789",
      timeoutMs: 50,
      fetch: () => new Promise<Response>(() => {}),
    });
    await expect(transport.checkCredential()).rejects.toMatchObject({ name: "ProviderTimeoutError" });
  });
});

describe("reach, once resolved", () => {
  it("holds no signal of the resolution (the timeout is long, the name resolved)", async () => {
    let signal: WeakRef<AbortSignal> | undefined;
    const egress: Egress = {
      resolve: async (_host, s) => {
        if (s) signal = new WeakRef(s);
        return ["93.184.215.14"];
      },
      fetch: () => Promise.reject(new Error("unused")),
      pinned: () => () => Promise.reject(new Error("unused")),
      pins: true,
    };
    await reach(egress, new URL("https://provider.example.test/v1"), {
      allowPrivate: false,
      timeoutMs: 60_000,
    });
    if (!signal) throw new Error("the resolver was not called");
    expect(await survives(signal)).toBe(false);
  });
});

describe("readCapped", () => {
  it("copies a small body out of the larger buffer its chunk is a view into", async () => {
    const big = new Uint8Array(64 * 1024);
    const view = big.subarray(0, 500).fill(7);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(view);
        controller.close();
      },
    });
    const { bytes, truncated } = await readCapped(stream, 1_000);
    expect(truncated).toBe(false);
    expect(bytes).toEqual(new Uint8Array(500).fill(7));
    expect(bytes.buffer.byteLength).toBe(500);
  });
});
