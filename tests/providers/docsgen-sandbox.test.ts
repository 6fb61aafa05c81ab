/**
 * The docsgen client against the sandbox docsgen, in-process: real PDFs (read back with pdf-lib),
 * deterministic bytes, templates, keys and injected faults.
 */
import { PDFDocument } from "pdf-lib";
import { beforeEach, describe, expect, it } from "vitest";
import { createSandboxDocsgen, DOCSGEN_SANDBOX_TITLE } from "../../sandbox/docsgen.ts";
import type { RenderRequest } from "../../shared/ports/providers/docsgen.ts";
import { createDocsgenClient } from "../../shared/providers/docsgen/client.ts";
import { accepted, failure, makeRenderRequest, pdfText, SANDBOX_KEY } from "./fixtures.ts";

const sandbox = createSandboxDocsgen();
const clientWith = (apiKey = SANDBOX_KEY, timeoutMs = 2_000) =>
  createDocsgenClient({ baseUrl: "http://sandbox.local", apiKey, timeoutMs, fetch: sandbox.fetch });
const client = clientWith();
beforeEach(() => sandbox.reset());

const creditNote = (r: RenderRequest) => {
  r.kind = "credit_note";
  r.document.billing_reference = { number: "SETP990000001", issue_date: "2026-11-20" };
  r.document.correction = { concept_code: "2", reason: "Anulación de factura electrónica" };
};

describe("rendering", () => {
  it("renders a real PDF that says it came from the docsgen sandbox", async () => {
    const request = makeRenderRequest();
    const pdf = await client.render(request);
    const loaded = await PDFDocument.load(pdf, { updateMetadata: false });
    expect(loaded.getTitle()).toBe(`${DOCSGEN_SANDBOX_TITLE} ${request.document.number}`);
    expect(loaded.getSubject()).toBe(request.reference);
    const text = pdfText(pdf);
    expect(text).toContain(DOCSGEN_SANDBOX_TITLE);
    expect(text).toContain(`Factura electrónica de venta No. ${request.document.number}`);
    expect(text).toContain("Empresa Demo S.A.S.");
    expect(text).toContain("Ana Gómez");
    expect(text).toContain("129000.00 COP");
    expect(text).toContain("no enviado a la DIAN");
    expect(sandbox.renders).toEqual([
      expect.objectContaining({
        reference: request.reference,
        kind: "invoice",
        template: "default",
        bytes: pdf.byteLength,
      }),
    ]);
  });

  it("gives the same bytes for the same request, and different bytes for another", async () => {
    const request = makeRenderRequest(accepted);
    const first = await client.render(request);
    expect(await client.render(structuredClone(request))).toEqual(first);
    const other = await client.render({ ...request, document: { ...request.document, number: "SETP1" } });
    expect(other).not.toEqual(first);
  });

  it("prints the CUFE of an accepted invoice, and the corrected invoice of a credit note", async () => {
    const invoice = makeRenderRequest(accepted);
    expect(pdfText(await client.render(invoice))).toContain(`CUFE: ${invoice.document.authority_code}`);
    const credit = makeRenderRequest((r) => {
      creditNote(r);
      accepted(r);
    });
    const text = pdfText(await client.render(credit));
    expect(text).toContain("Nota crédito electrónica");
    expect(text).toContain("Corrige la factura SETP990000001");
    expect(text).toContain(`CUDE: ${credit.document.authority_code}`);
  });

  it("continues a long document on further pages", async () => {
    const request = makeRenderRequest((r) => {
      const [line] = r.document.lines;
      if (!line) throw new Error("fixture without lines");
      r.document.lines = Array.from({ length: 120 }, (_, i) => ({ ...line, position: i + 1 }));
    });
    const loaded = await PDFDocument.load(await client.render(request));
    expect(loaded.getPageCount()).toBeGreaterThan(1);
  });

  it("knows the default and compact templates and refuses others", async () => {
    await client.render(makeRenderRequest((r) => (r.template = "compact")));
    const error = await failure(() => client.render(makeRenderRequest((r) => (r.template = "fancy"))));
    expect(error).toMatchObject({ kind: "rejected", status: 422, providerCode: "template_not_found" });
    expect(sandbox.renders.map((r) => r.template)).toEqual(["compact"]);
  });

  it("answers 400 to a body outside the protocol", async () => {
    const headers = { authorization: `Bearer ${SANDBOX_KEY}`, "content-type": "application/json" };
    const bad = await sandbox.fetch("/render", {
      method: "POST",
      headers,
      body: JSON.stringify({ kind: "x" }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: "validation_failed" } });
    const notJson = await sandbox.fetch("/render", { method: "POST", headers, body: "{" });
    expect(await notJson.json()).toMatchObject({ error: { code: "invalid_json" } });
  });
});

describe("keys and faults", () => {
  it("accepts sandbox keys only", async () => {
    await expect(client.checkCredential()).resolves.toMatchObject({ ok: true });
    const stranger = clientWith("sk_live_nope");
    await expect(stranger.checkCredential()).resolves.toMatchObject({ ok: false });
    expect(await failure(() => stranger.render(makeRenderRequest()))).toMatchObject({ kind: "unauthorized" });
    expect(sandbox.renders).toHaveLength(0);
  });

  it("applies failNext to renders by default: error, garbled, hung", async () => {
    sandbox.setKnobs({ failNext: [{ kind: "error" }, { kind: "malformed" }] });
    expect(await failure(() => client.render(makeRenderRequest()))).toMatchObject({ kind: "unavailable" });
    expect(sandbox.renders).toHaveLength(0);
    const garbled = await failure(() => client.render(makeRenderRequest()));
    expect(garbled).toMatchObject({ kind: "malformed" });
    expect(garbled.message).toContain("not a PDF");
    sandbox.setKnobs({ failNext: [{ kind: "hang" }], hangMs: 5_000 });
    expect(await failure(() => clientWith(SANDBOX_KEY, 100).render(makeRenderRequest()))).toMatchObject({
      kind: "timeout",
    });
    await expect(client.render(makeRenderRequest())).resolves.toBeInstanceOf(Uint8Array);
  });

  it("aims failNext at the credential check with on: check", async () => {
    sandbox.setKnobs({ failNext: [{ kind: "rate_limited", on: "check" }] });
    await client.render(makeRenderRequest());
    expect(await failure(() => client.checkCredential())).toMatchObject({
      kind: "rate_limited",
      retryAfterSeconds: 1,
    });
  });

  it("serves its render log and knobs on the control endpoints", async () => {
    await client.render(makeRenderRequest());
    expect(await (await sandbox.fetch("/_sandbox/renders")).json()).toMatchObject({
      renders: [{ kind: "invoice" }],
    });
    const knobs = await sandbox.fetch("/_sandbox/knobs", {
      method: "POST",
      body: JSON.stringify({ latencyMs: 3 }),
    });
    expect(await knobs.json()).toMatchObject({ latencyMs: 3 });
    expect((await sandbox.fetch("/_sandbox/reset", { method: "POST" })).status).toBe(200);
    expect(sandbox.renders).toHaveLength(0);
    expect(sandbox.knobs.latencyMs).toBe(0);
  });
});
