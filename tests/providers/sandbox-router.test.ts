/**
 * The three sandboxes served together: under a prefix in-process (as the local server mounts them)
 * and over real HTTP through sandbox/server.ts, where adapter-tax keeps its root URLs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createSandboxDeliver,
  createSandboxDocsgen,
  createSandboxProvider,
  createSandboxRouter,
} from "../../sandbox/index.ts";
import { type RunningSandbox, startSandboxServer } from "../../sandbox/server.ts";
import { deliveryIdempotencyKey } from "../../shared/ports/providers/deliver.ts";
import { createDeliveryClient } from "../../shared/providers/deliver/client.ts";
import { createDocsgenClient } from "../../shared/providers/docsgen/client.ts";
import { createTaxClient } from "../../shared/providers/tax/client.ts";
import { makeDocument, makeMessage, makeRenderRequest, SANDBOX_KEY } from "./fixtures.ts";

const clients = (base: string, fetch?: typeof globalThis.fetch) => {
  const options = (path: string) => ({
    baseUrl: `${base}${path}`,
    apiKey: SANDBOX_KEY,
    timeoutMs: 2_000,
    ...(fetch ? { fetch } : {}),
  });
  return {
    tax: createTaxClient(options("/adapter-tax")),
    taxAtRoot: createTaxClient(options("")),
    docsgen: createDocsgenClient(options("/docsgen")),
    deliver: createDeliveryClient(options("/deliver")),
  };
};

describe("createSandboxRouter", () => {
  const services = {
    adapterTax: createSandboxProvider(),
    docsgen: createSandboxDocsgen(),
    deliver: createSandboxDeliver(),
  };
  const router = createSandboxRouter(services, { prefix: "/sandbox" });
  const { tax, docsgen, deliver } = clients("http://127.0.0.1:54321/sandbox", router);

  it("serves each service under <prefix>/<service>, with the prefix stripped", async () => {
    expect((await tax.submit(makeDocument())).status).toBe("accepted");
    expect((await docsgen.render(makeRenderRequest())).byteLength).toBeGreaterThan(500);
    const message = makeMessage();
    await deliver.send(message, { idempotencyKey: deliveryIdempotencyKey(message.reference) });
    expect(services.adapterTax.submissions).toHaveLength(1);
    expect(services.docsgen.renders).toHaveLength(1);
    expect(services.deliver.messages).toHaveLength(1);
    const control = await router("/sandbox/deliver/_sandbox/messages");
    expect(await control.json()).toMatchObject({ messages: [{ reference: message.reference }] });
  });

  it("answers 404 elsewhere unless adapter-tax is asked to take the rest", async () => {
    expect((await router("/sandbox/documents")).status).toBe(404);
    expect((await router("/elsewhere/docsgen/render")).status).toBe(404);
    const rooted = createSandboxRouter(services, { prefix: "/sandbox", adapterTaxAtRoot: true });
    expect((await rooted("/sandbox/_sandbox/knobs")).status).toBe(200);
  });
});

describe("over HTTP (sandbox/server.ts)", () => {
  let running: RunningSandbox;
  beforeAll(async () => {
    running = await startSandboxServer(createSandboxProvider(), { port: 0 });
  });
  afterAll(() => running?.close());

  it("keeps adapter-tax at the root and serves docsgen at /docsgen and deliver at /deliver", async () => {
    const { tax, taxAtRoot, docsgen, deliver } = clients(running.url);
    expect((await taxAtRoot.submit(makeDocument())).status).toBe("accepted");
    expect((await tax.submit(makeDocument())).status).toBe("accepted");
    expect(running.provider.submissions).toHaveLength(2);
    const pdf = await docsgen.render(makeRenderRequest());
    expect(new TextDecoder().decode(pdf.subarray(0, 5))).toBe("%PDF-");
    const message = makeMessage();
    expect(await deliver.send(message, { idempotencyKey: "http-key-0001" })).toMatchObject({
      status: "sent",
    });
    expect(running.deliver.messages[0]?.attachments[0]?.size).toBe(
      message.attachments?.[0]?.content.byteLength,
    );
    await expect(docsgen.checkCredential()).resolves.toMatchObject({ ok: true });
  });

  it("times out a hung render over HTTP, and the abort reaches the sandbox", async () => {
    running.docsgen.setKnobs({ failNext: [{ kind: "hang" }], hangMs: 10_000 });
    const slow = createDocsgenClient({
      baseUrl: `${running.url}/docsgen`,
      apiKey: SANDBOX_KEY,
      timeoutMs: 200,
    });
    await expect(slow.render(makeRenderRequest())).rejects.toMatchObject({
      kind: "timeout",
      service: "docsgen",
    });
    // With one slot, a render succeeds only if the abandoned (still hung, for 10 s) one released its
    // slot: asked until 5 s have passed, since the abort takes a moment to arrive on a busy machine;
    // the patient client leaves room for a first render that loads pdf-lib.
    running.docsgen.setKnobs({ concurrencyLimit: 1 });
    const patient = createDocsgenClient({
      baseUrl: `${running.url}/docsgen`,
      apiKey: SANDBOX_KEY,
      timeoutMs: 5_000,
    });
    const deadline = Date.now() + 5_000;
    let rendered: unknown;
    while (rendered === undefined) {
      rendered = await patient.render(makeRenderRequest()).catch((error: { kind?: string }) => {
        if (error.kind !== "rate_limited" || Date.now() > deadline) throw error;
        return new Promise((resolve) => setTimeout(resolve, 100)).then(() => undefined);
      });
    }
    expect(rendered).toBeInstanceOf(Uint8Array);
  });
});
