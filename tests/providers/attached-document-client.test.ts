/**
 * The tax client's AttachedDocument download against a provider faked at the network edge (msw; any
 * request without a handler fails the test): what it sends, and every answer it must refuse before
 * the XML can reach a bucket or a buyer.
 */
import { delay, HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import {
  ProviderMalformedError,
  ProviderRejectedError,
  ProviderTimeoutError,
  ProviderUnauthorizedError,
} from "../../shared/ports/providers/errors.ts";
import { MAX_ATTACHED_DOCUMENT_BYTES } from "../../shared/ports/providers/protocol.ts";
import { createTaxClient } from "../../shared/providers/tax/client.ts";
import { useNetworkEdge } from "../support/msw.ts";
import { failure } from "./fixtures.ts";

const BASE = "https://tax.example.test/v1";
const API_KEY = "sk_live_Sup3rS3cretKey_9f8e7d";
const server = useNetworkEdge();
const client = createTaxClient({ baseUrl: BASE, apiKey: API_KEY, timeoutMs: 200 });
const CUFE = "c".repeat(96);
const REFERENCE = "6f1c0d3e-8a4b-4c61-9b7e-2f0a6d9c1e55";
const URL_OF = `${BASE}/documents/${REFERENCE}/attached-document`;

const xmlOf = (body: string, root = "AttachedDocument") =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<!-- provider -->\n<${root} xmlns="urn:oasis:names:specification:ubl:schema:xsd:${root}-2">${body}</${root}>`;
const serve = (body: string | Uint8Array, init: ResponseInit = {}) =>
  server.use(
    http.get(
      URL_OF,
      () =>
        new HttpResponse(typeof body === "string" ? new TextEncoder().encode(body) : body, {
          headers: { "content-type": "application/xml" },
          ...init,
        }),
    ),
  );
const download = () => client.attachedDocument(REFERENCE, { authorityCode: CUFE });

describe("attachedDocument", () => {
  it("GETs documents/{reference}/attached-document with the bearer key and returns the XML's bytes", async () => {
    const xml = xmlOf(`<cbc:UUID schemeName="CUFE-SHA384">${CUFE}</cbc:UUID>`);
    let seen: Headers | undefined;
    server.use(
      http.get(URL_OF, ({ request }) => {
        seen = request.headers;
        return HttpResponse.text(xml, { headers: { "content-type": "application/xml" } });
      }),
    );
    expect(new TextDecoder().decode(await download())).toBe(xml);
    expect(seen?.get("authorization")).toBe(`Bearer ${API_KEY}`);
    expect(seen?.get("accept")).toMatch(/application\/xml/);
  });

  it("is a typed rejection carrying the provider's code for 409 document_not_accepted and 404 document_not_found", async () => {
    for (const [status, code] of [
      [409, "document_not_accepted"],
      [404, "document_not_found"],
    ] as const) {
      server.use(http.get(URL_OF, () => HttpResponse.json({ error: { code, message: "no" } }, { status })));
      const error = await failure(download);
      expect(error).toBeInstanceOf(ProviderRejectedError);
      expect(error).toMatchObject({ status, providerCode: code, operation: "attached_document" });
      expect(error.message).toMatch(/AttachedDocument download/);
    }
  });

  it("refuses what is not this document's AttachedDocument", async () => {
    for (const [body, problem] of [
      ["<html>gateway error</html>", /not an AttachedDocument/],
      [xmlOf(`<cbc:UUID>${CUFE}</cbc:UUID>`, "Invoice"), /not an AttachedDocument/],
      [xmlOf(`<cbc:UUID>${"d".repeat(96)}</cbc:UUID>`), /different document/],
      [new Uint8Array([0x3c, 0xff, 0xfe, 0x3e]), /not UTF-8/],
    ] as const) {
      serve(body);
      const error = await failure(download);
      expect(error).toBeInstanceOf(ProviderMalformedError);
      expect(error.message).toMatch(problem);
    }
  });

  it("refuses an AttachedDocument that holds the API key, without naming the key", async () => {
    serve(xmlOf(`<cbc:UUID>${CUFE}</cbc:UUID><cbc:Note>key ${API_KEY}</cbc:Note>`));
    const error = await failure(download);
    expect(error).toBeInstanceOf(ProviderMalformedError);
    expect(error.message).toMatch(/holds the API key/);
    expect(error.message).not.toContain(API_KEY);
  });

  it("refuses one larger than MAX_ATTACHED_DOCUMENT_BYTES", async () => {
    serve(xmlOf(`<cbc:UUID>${CUFE}</cbc:UUID>${" ".repeat(MAX_ATTACHED_DOCUMENT_BYTES)}`));
    const error = await failure(download);
    expect(error).toBeInstanceOf(ProviderMalformedError);
    expect(error.message).toMatch(/larger than/);
  });

  it("times out, and maps a rejected key to credential_rejected", async () => {
    server.use(
      http.get(URL_OF, async () => {
        await delay(1_000);
        return HttpResponse.text(xmlOf(CUFE));
      }),
    );
    expect(await failure(download)).toBeInstanceOf(ProviderTimeoutError);
    server.use(
      http.get(URL_OF, () =>
        HttpResponse.json({ error: { code: "unauthorized", message: "bad key" } }, { status: 401 }),
      ),
    );
    expect(await failure(download)).toBeInstanceOf(ProviderUnauthorizedError);
  });
});
