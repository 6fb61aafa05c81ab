/**
 * The docsgen HTTP client against a provider faked at the network edge (msw; any request without a
 * handler fails the test).
 */
import { deflateSync } from "node:zlib";
import { delay, HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { providerPdf } from "../../devkit/pdf/fixtures.ts";
import { MAX_INFLATED_BYTES, MAX_OBJECTS, pdfCostProblem } from "../../shared/pdf/cost.ts";
import type { RenderRequest } from "../../shared/ports/providers/docsgen.ts";
import { pdfProblem } from "../../shared/ports/providers/docsgen.ts";
import {
  ProviderMalformedError,
  ProviderRequestError,
  ProviderTimeoutError,
} from "../../shared/ports/providers/errors.ts";
import { createDocsgenClient } from "../../shared/providers/docsgen/client.ts";
import { useNetworkEdge } from "../support/msw.ts";
import { accepted, failure, fakePdf, makeDocument, makeRenderRequest } from "./fixtures.ts";

const BASE = "https://docs.example.test/v2";
const API_KEY = "dg_live_T0pS3cretRenderKey_77";
const server = useNetworkEdge();

const client = createDocsgenClient({ baseUrl: BASE, apiKey: API_KEY, timeoutMs: 200 });
const pdfResponse = (bytes: Uint8Array) =>
  new HttpResponse(new Uint8Array(bytes), { status: 200, headers: { "content-type": "application/pdf" } });
const errorResponse = (status: number, code: string, message: string) =>
  HttpResponse.json({ error: { code, message } }, { status });

describe("render", () => {
  it("posts the request with the bearer key, asks for a PDF, and returns its bytes", async () => {
    const request = makeRenderRequest((r) => (r.template = "compact"));
    const pdf = fakePdf(100);
    let seen: { headers: Headers; body: unknown } | undefined;
    server.use(
      http.post(`${BASE}/render`, async ({ request: req }) => {
        seen = { headers: req.headers, body: await req.json() };
        return pdfResponse(pdf);
      }),
    );
    expect(await client.render(request)).toEqual(pdf);
    expect(seen?.headers.get("authorization")).toBe(`Bearer ${API_KEY}`);
    expect(seen?.headers.get("accept")).toBe("application/pdf");
    expect(seen?.headers.get("content-type")).toBe("application/json");
    expect(seen?.body).toEqual(request);
  });

  it("renders accepted invoices and credit notes with their fiscal fields", async () => {
    const bodies: unknown[] = [];
    server.use(
      http.post(`${BASE}/render`, async ({ request }) => {
        bodies.push(await request.json());
        return pdfResponse(fakePdf());
      }),
    );
    const invoice = makeRenderRequest(accepted);
    const credit = makeRenderRequest((r) => {
      r.kind = "credit_note";
      r.document.billing_reference = { number: "SETP990000001", issue_date: "2026-11-20" };
      r.document.correction = { concept_code: "2", reason: "Anulación de la factura" };
      accepted(r);
    });
    await client.render(invoice);
    await client.render(credit);
    expect(bodies).toEqual([invoice, credit]);
  });

  it("never sends the issuer's technical key, even when handed a submit request's issuer", async () => {
    const doc = makeDocument();
    let body = "";
    server.use(
      http.post(`${BASE}/render`, async ({ request }) => {
        body = await request.text();
        return pdfResponse(fakePdf());
      }),
    );
    const request = makeRenderRequest();
    (request.document as { issuer: unknown }).issuer = doc.issuer;
    await client.render(request);
    expect(body).not.toContain("technical_key");
    expect(body).not.toContain(doc.issuer.technical_key);
  });

  const invalid: [string, (r: RenderRequest) => void][] = [
    ["accepted without the CUFE", (r) => (r.document.status = "accepted")],
    ["a CUFE on a document not accepted", (r) => (r.document.authority_code = "a".repeat(96))],
    ["a credit note without the invoice it corrects", (r) => (r.kind = "credit_note")],
    ["an invoice with a correction", (r) => (r.document.correction = { concept_code: "1", reason: "x" })],
    ["a template name with a slash", (r) => (r.template = "../etc")],
  ];
  it.each(invalid)("refuses to send %s", async (_, change) => {
    const error = await client.render(makeRenderRequest(change)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderRequestError);
    expect(error).toMatchObject({ operation: "render" });
    expect((error as ProviderRequestError).details.length).toBeGreaterThan(0);
  });

  const garbage: [string, () => Response, string][] = [
    ["JSON", () => HttpResponse.json({ ok: true }), "not a PDF"],
    ["HTML labelled as PDF", () => pdfResponse(new TextEncoder().encode("<html>oops</html>")), "not a PDF"],
    ["a PDF cut short", () => pdfResponse(fakePdf().subarray(0, 12)), "truncated"],
    ["an empty body", () => new HttpResponse(null, { status: 200 }), "not a PDF"],
  ];
  it.each(garbage)("reports %s as malformed, from the document provider", async (_, respond, problem) => {
    server.use(http.post(`${BASE}/render`, respond));
    const error = await failure(() => client.render(makeRenderRequest()));
    expect(error).toBeInstanceOf(ProviderMalformedError);
    expect(error).toMatchObject({ service: "docsgen", operation: "render", maybeProcessed: true });
    expect(error.message).toContain("document provider");
    expect(error.message).toContain(problem);
  });

  it("stops reading a PDF past the size cap", async () => {
    const small = createDocsgenClient({ baseUrl: BASE, apiKey: API_KEY, timeoutMs: 500, maxPdfBytes: 1_000 });
    server.use(http.post(`${BASE}/render`, () => pdfResponse(fakePdf(5_000))));
    const error = await failure(() => small.render(makeRenderRequest()));
    expect(error).toMatchObject({ kind: "malformed" });
    expect(error.message).toContain("larger than 1000 bytes");
    // Streamed without a Content-Length: counted while reading.
    const chunks = [fakePdf(600).subarray(0, 600), new Uint8Array(600)];
    const stream = () =>
      new ReadableStream<Uint8Array>({
        pull(controller) {
          const chunk = chunks.shift();
          if (chunk) controller.enqueue(chunk);
          else controller.close();
        },
      });
    server.use(http.post(`${BASE}/render`, () => new HttpResponse(stream(), { status: 200 })));
    expect((await failure(() => small.render(makeRenderRequest()))).message).toContain("larger than 1000");
    server.use(http.post(`${BASE}/render`, () => pdfResponse(fakePdf(500))));
    await expect(small.render(makeRenderRequest())).resolves.toBeInstanceOf(Uint8Array);
  });

  it("times out after timeoutMs", async () => {
    server.use(
      http.post(`${BASE}/render`, async () => {
        await delay(2_000);
        return pdfResponse(fakePdf());
      }),
    );
    const error = await failure(() => client.render(makeRenderRequest()));
    expect(error).toBeInstanceOf(ProviderTimeoutError);
    expect(error).toMatchObject({ service: "docsgen", code: "provider_timeout" });
  });

  it("maps provider errors by status, keeping the provider's code", async () => {
    server.use(
      http.post(`${BASE}/render`, () => errorResponse(422, "template_not_found", "no such template")),
    );
    expect(await failure(() => client.render(makeRenderRequest()))).toMatchObject({
      kind: "rejected",
      providerCode: "template_not_found",
      maybeProcessed: false,
    });
    server.use(http.post(`${BASE}/render`, () => errorResponse(503, "unavailable", "busy")));
    expect(await failure(() => client.render(makeRenderRequest()))).toMatchObject({ kind: "unavailable" });
    server.use(http.post(`${BASE}/render`, () => errorResponse(401, "unauthorized", `bad key ${API_KEY}`)));
    const error = await failure(() => client.render(makeRenderRequest()));
    expect(error).toMatchObject({ kind: "unauthorized", code: "credential_rejected" });
    expect(error.message).not.toContain(API_KEY);
  });
});

describe("checkCredential", () => {
  it("answers ok, or ok: false for a refused key", async () => {
    server.use(http.get(`${BASE}/credentials/check`, () => HttpResponse.json({ ok: true, message: "fine" })));
    await expect(client.checkCredential()).resolves.toEqual({
      ok: true,
      message: "The provider accepted the API key.",
      providerMessage: "fine",
    });
    server.use(http.get(`${BASE}/credentials/check`, () => errorResponse(403, "unauthorized", API_KEY)));
    const check = await client.checkCredential();
    expect(check).toMatchObject({ ok: false });
    expect(check.message).not.toContain(API_KEY);
    expect(check.providerMessage).toBe("[redacted]");
  });
});

describe("pdfProblem", () => {
  it("accepts a whole PDF and names what is wrong with anything else", () => {
    expect(pdfProblem(fakePdf())).toBeUndefined();
    expect(pdfProblem(new Uint8Array(0))).toContain("not a PDF");
    expect(pdfProblem(fakePdf(2_000).subarray(0, 1_500))).toContain("truncated");
    expect(pdfProblem(fakePdf(100), 50)).toContain("larger than 50 bytes");
  });
});

describe("a PDF too costly to stamp", () => {
  /** A minimal PDF around `body`, which pdfProblem accepts as a whole PDF. */
  const pdfOf = (body: Buffer) =>
    new Uint8Array(Buffer.concat([Buffer.from("%PDF-1.7\n"), body, Buffer.from("\ntrailer\n<<>>\n%%EOF\n")]));
  const streamObject = (data: Buffer) =>
    Buffer.concat([
      Buffer.from(`1 0 obj\n<< /Length ${data.byteLength} /Filter /FlateDecode >>\nstream\n`),
      data,
      Buffer.from("\nendstream\nendobj"),
    ]);
  const render = async (pdf: Uint8Array) => {
    server.use(http.post(`${BASE}/render`, () => pdfResponse(pdf)));
    return client.render(makeRenderRequest()).catch((e: unknown) => e);
  };

  it("is refused as malformed when a stream inflates past the budget (a zip bomb), before any parsing", async () => {
    const bomb = deflateSync(Buffer.alloc(MAX_INFLATED_BYTES + 1024 * 1024));
    expect(bomb.byteLength).toBeLessThan(100_000);
    const error = await render(pdfOf(streamObject(bomb)));
    expect(error).toBeInstanceOf(ProviderMalformedError);
    expect((error as Error).message).toMatch(/inflate past/);
  });

  it("is refused as malformed when it holds too many objects, in object streams too", async () => {
    const many = Array.from({ length: MAX_OBJECTS + 1 }, (_, i) => `${i + 2} 0 obj null endobj`).join("\n");
    expect(await render(pdfOf(Buffer.from(many)))).toBeInstanceOf(ProviderMalformedError);
    const packed = Buffer.from(
      `1 0 obj\n<< /Type /ObjStm /N ${MAX_OBJECTS + 1} /First 10 /Length 0 >>\nendobj`,
    );
    expect(await render(pdfOf(packed))).toBeInstanceOf(ProviderMalformedError);
  });

  it("lets an ordinary provider PDF through, compressed streams and object streams included", async () => {
    const pdf = await providerPdf();
    expect(await pdfCostProblem(pdf)).toBeUndefined();
    expect(await render(pdf)).toEqual(pdf);
    const big = deflateSync(Buffer.alloc(MAX_INFLATED_BYTES - 1024 * 1024));
    expect(await pdfCostProblem(pdfOf(streamObject(big)))).toBeUndefined();
  });
});
