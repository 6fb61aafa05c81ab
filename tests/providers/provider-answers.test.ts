/**
 * What every provider client does with an answer (shared/providers/transport.ts), seen through the
 * adapter-tax client with the provider faked at the network edge: the size cap (declared and
 * streamed) at its exact boundary, answers that arrive in pieces, provider text cut to a message's
 * size, the base URL, and what a failed connection is allowed to say.
 */
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkRequest, ProviderRequestError } from "../../shared/ports/providers/errors.ts";
import type { DocumentOutcome } from "../../shared/ports/providers/protocol.ts";
import { DocumentOutcome as DocumentOutcomeSchema } from "../../shared/ports/providers/protocol.ts";
import { createDeliveryClient } from "../../shared/providers/deliver/client.ts";
import { createTaxClient } from "../../shared/providers/tax/client.ts";
import { MAX_JSON_ANSWER_BYTES } from "../../shared/providers/transport.ts";
import { useNetworkEdge } from "../support/msw.ts";
import { streamed } from "../support/streamed.ts";
import { failure, makeDocument, makeMessage } from "./fixtures.ts";

const BASE = "https://tax.example.test/v1";
const API_KEY = "sk_live_answers_9f8e7d6c";
const server = useNetworkEdge();
// built in each test, so a client that cannot be built fails that test
const taxClient = () => createTaxClient({ baseUrl: BASE, apiKey: API_KEY, timeoutMs: 2_000 });

function acceptedFor(reference: string): DocumentOutcome {
  return {
    reference,
    provider_reference: "prv-1",
    status: "accepted",
    authority_code: "a".repeat(96),
    qr_text: "NumFac: SETP1",
    message: "Documento validado por la DIAN: válido ✓",
    validated_at: "2026-11-20T15:30:00Z",
  };
}

/** The outcome as JSON padded with trailing spaces (still valid JSON) to exactly `size` bytes. */
function answerOfSize(reference: string, size: number): Uint8Array<ArrayBuffer> {
  const json = new TextEncoder().encode(JSON.stringify(acceptedFor(reference)));
  const bytes = new Uint8Array(size).fill(0x20);
  bytes.set(json);
  return bytes;
}

/** `bytes` cut into pieces of `size` bytes. */
const piecesOf = (bytes: Uint8Array, size: number) =>
  Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));

const answerWith = (body: BodyInit, headers: Record<string, string> = {}) =>
  new HttpResponse(body, { status: 200, headers: { "content-type": "application/json", ...headers } });

/** A client whose network edge answers `response` as it is (so reading or cancelling its body shows). */
const clientAnswering = (response: Response) =>
  createTaxClient({ baseUrl: BASE, apiKey: API_KEY, timeoutMs: 2_000, fetch: async () => response });

describe("the size of an answer", () => {
  it("may be exactly the cap", async () => {
    const doc = makeDocument();
    const bytes = answerOfSize(doc.reference, MAX_JSON_ANSWER_BYTES);
    server.use(
      http.post(`${BASE}/documents`, () =>
        answerWith(bytes, { "content-length": String(MAX_JSON_ANSWER_BYTES) }),
      ),
    );
    await expect(taxClient().submit(doc)).resolves.toEqual(acceptedFor(doc.reference));
  });

  it("is refused from its Content-Length alone when over the cap, without reading it", async () => {
    const doc = makeDocument();
    const { body, cancelled } = streamed([
      new TextEncoder().encode(JSON.stringify(acceptedFor(doc.reference))),
    ]);
    const error = await failure(() =>
      clientAnswering(answerWith(body, { "content-length": String(MAX_JSON_ANSWER_BYTES + 1) })).submit(doc),
    );
    expect(error).toMatchObject({ kind: "malformed", maybeProcessed: true });
    expect(error.message).toContain("a body larger than expected");
    expect(cancelled()).toBe(true);
  });

  it("is counted while streaming when nothing declares it: exactly the cap passes", async () => {
    const doc = makeDocument();
    const pieces = piecesOf(answerOfSize(doc.reference, MAX_JSON_ANSWER_BYTES), 64 * 1024);
    server.use(http.post(`${BASE}/documents`, () => answerWith(streamed(pieces).body)));
    await expect(taxClient().submit(doc)).resolves.toEqual(acceptedFor(doc.reference));
  });

  it("is counted while streaming: one byte over the cap is refused, and the rest is not read", async () => {
    const doc = makeDocument();
    const bytes = answerOfSize(doc.reference, MAX_JSON_ANSWER_BYTES + 1);
    const { body, cancelled } = streamed([...piecesOf(bytes, 64 * 1024), new Uint8Array(1024).fill(0x20)]);
    const error = await failure(() => clientAnswering(answerWith(body)).submit(doc));
    expect(error.message).toContain("a body larger than expected");
    expect(cancelled()).toBe(true);
  });
});

describe("an answer in several pieces", () => {
  it("is put back together, a character split across two pieces included", async () => {
    const doc = makeDocument();
    const bytes = new TextEncoder().encode(JSON.stringify(acceptedFor(doc.reference)));
    const cut = bytes.indexOf(0xc3) + 1; // inside the "á"
    const pieces = [bytes.subarray(0, 10), bytes.subarray(10, cut), bytes.subarray(cut)];
    server.use(http.post(`${BASE}/documents`, () => answerWith(streamed(pieces).body)));
    await expect(taxClient().submit(doc)).resolves.toEqual(acceptedFor(doc.reference));
  });

  it("is read to its end however small the pieces", async () => {
    const doc = makeDocument();
    const bytes = new TextEncoder().encode(JSON.stringify(acceptedFor(doc.reference)));
    server.use(http.post(`${BASE}/documents`, () => answerWith(streamed(piecesOf(bytes, 7)).body)));
    await expect(taxClient().submit(doc)).resolves.toEqual(acceptedFor(doc.reference));
  });

  it("that is empty is malformed, not a crash", async () => {
    server.use(http.post(`${BASE}/documents`, () => answerWith(streamed([]).body)));
    const error = await failure(() => taxClient().submit(makeDocument()));
    expect(error).toMatchObject({ kind: "malformed" });
    expect(error.message).toContain("not JSON");
  });
});

describe("provider text beside a message", () => {
  it("is cut to 300 characters, and is never part of our sentence", async () => {
    const text = `${"a".repeat(300)}${"b".repeat(100)}`;
    server.use(
      http.post(`${BASE}/documents`, () =>
        HttpResponse.json({ error: { code: "validation_failed", message: text } }, { status: 422 }),
      ),
    );
    const error = await failure(() => taxClient().submit(makeDocument()));
    expect(error.message).toBe("The tax provider refused the document submission (HTTP 422).");
    expect(error.providerMessage).toBe("a".repeat(300));
  });

  it("from a refused credential check goes beside the sentence, and its absence too", async () => {
    server.use(
      http.get(`${BASE}/credentials/check`, () =>
        HttpResponse.json({ error: { code: "unauthorized", message: "llave revocada" } }, { status: 403 }),
      ),
    );
    expect(await taxClient().checkCredential()).toEqual({
      ok: false,
      message: "The provider rejected the API key (HTTP 403).",
      providerMessage: "llave revocada",
    });
    server.use(http.get(`${BASE}/credentials/check`, () => new HttpResponse(null, { status: 401 })));
    expect(await taxClient().checkCredential()).toEqual({
      ok: false,
      message: "The provider rejected the API key (HTTP 401).",
    });
  });
});

describe("the request", () => {
  it.each([
    ["without a trailing slash", BASE],
    ["with a trailing slash", `${BASE}/`],
  ])("goes below the base URL given %s, asking for JSON", async (_what, baseUrl) => {
    const doc = makeDocument();
    const seen: { url: string; accept: string | null }[] = [];
    server.use(
      http.post(`${BASE}/documents`, ({ request }) => {
        seen.push({ url: request.url, accept: request.headers.get("accept") });
        return HttpResponse.json(acceptedFor(doc.reference));
      }),
    );
    await createTaxClient({ baseUrl, apiKey: API_KEY, timeoutMs: 2_000 }).submit(doc);
    expect(seen).toEqual([{ url: `${BASE}/documents`, accept: "application/json" }]);
  });

  it("needs an API key and a positive timeout", () => {
    expect(() => createTaxClient({ baseUrl: BASE, apiKey: "", timeoutMs: 1_000 })).toThrow(
      /apiKey is required/,
    );
    expect(() => createTaxClient({ baseUrl: BASE, apiKey: API_KEY, timeoutMs: 0 })).toThrow(
      /timeoutMs must be positive/,
    );
    expect(() => createTaxClient({ baseUrl: BASE, apiKey: API_KEY, timeoutMs: Number.NaN })).toThrow(
      /timeoutMs must be positive/,
    );
  });
});

describe("a connection that fails", () => {
  it("keeps the error's name and a message without the key", async () => {
    const leaky = createTaxClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      timeoutMs: 2_000,
      fetch: () => Promise.reject(new TypeError(`connect ECONNRESET (Authorization: Bearer ${API_KEY})`)),
    });
    const error = await failure(() => leaky.submit(makeDocument()));
    expect(error).toMatchObject({ kind: "unavailable", maybeProcessed: true });
    const cause = error.cause as Error;
    expect(cause).toBeInstanceOf(Error);
    expect(cause.name).toBe("TypeError");
    expect(cause.message).toContain("connect ECONNRESET");
    expect(cause.message).not.toContain(API_KEY);
  });

  it("with something that is not an error says only that the network failed", async () => {
    const odd = createTaxClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      timeoutMs: 2_000,
      fetch: () => Promise.reject(`socket closed for ${API_KEY}`),
    });
    const error = await failure(() => odd.submit(makeDocument()));
    expect(error.cause).toEqual(new Error("network error"));
  });
});

describe("a 2xx answer", () => {
  it("is any status from 200 to 299", async () => {
    for (const status of [200, 201, 299]) {
      const doc = makeDocument();
      server.use(
        http.post(`${BASE}/documents`, () => HttpResponse.json(acceptedFor(doc.reference), { status })),
      );
      await expect(taxClient().submit(doc)).resolves.toEqual(acceptedFor(doc.reference));
    }
  });

  it("that is not an object is malformed, naming the body", async () => {
    server.use(http.post(`${BASE}/documents`, () => HttpResponse.json("accepted")));
    const error = await failure(() => taxClient().submit(makeDocument()));
    expect(error.message).toContain("does not follow the protocol ((body): ");
  });

  it("that breaks the schema deep inside is malformed, naming the whole path and what is wrong", async () => {
    const doc = makeDocument();
    const body = {
      ...acceptedFor(doc.reference),
      status: "rejected",
      errors: [
        { code: "FAJ43b", message: "ok" },
        { code: 7, message: "ok" },
      ],
    };
    const expected = DocumentOutcomeSchema.safeParse(body);
    expect(expected.success).toBe(false);
    const issue = expected.error?.issues[0];
    expect(issue?.path).toEqual(["errors", 1, "code"]);
    server.use(http.post(`${BASE}/documents`, () => HttpResponse.json(body)));
    const error = await failure(() => taxClient().submit(doc));
    expect(error.message).toContain(`does not follow the protocol (errors.1.code: ${issue?.message})`);
  });

  it("has the API key cut out of every string, nested ones included", async () => {
    const doc = makeDocument();
    const body = {
      reference: doc.reference,
      provider_reference: "prv-1",
      status: "rejected",
      message: `rechazado para ${API_KEY}`,
      errors: [{ code: "FAJ43b", message: `la llave ${API_KEY} no aplica; ${API_KEY}` }],
    };
    server.use(http.post(`${BASE}/documents`, () => HttpResponse.json(body)));
    expect(await taxClient().submit(doc)).toEqual({
      ...body,
      message: "rechazado para [redacted]",
      errors: [{ code: "FAJ43b", message: "la llave [redacted] no aplica; [redacted]" }],
    });
  });
});

describe("a provider error's text", () => {
  it("has the API key replaced by a marker", async () => {
    server.use(
      http.post(`${BASE}/documents`, () =>
        HttpResponse.json(
          { error: { code: "unauthorized", message: `bad key ${API_KEY}` } },
          { status: 401 },
        ),
      ),
    );
    const error = await failure(() => taxClient().submit(makeDocument()));
    expect(error.providerMessage).toBe("bad key [redacted]");
    expect(error.message).not.toContain("bad key");
  });
});

describe("the credential check", () => {
  it("names itself when the provider cannot be reached or answers garbage", async () => {
    const unreachable = createTaxClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      timeoutMs: 2_000,
      fetch: () => Promise.reject(new TypeError("fetch failed")),
    });
    expect(await failure(() => unreachable.checkCredential())).toMatchObject({
      kind: "unavailable",
      operation: "check_credential",
    });
    server.use(http.get(`${BASE}/credentials/check`, () => HttpResponse.json({ fine: true })));
    expect(await failure(() => taxClient().checkCredential())).toMatchObject({
      kind: "malformed",
      operation: "check_credential",
    });
  });
});

describe("the timeout", () => {
  it("holds even for a fetch that ignores the abort signal", async () => {
    const deaf = createTaxClient({
      baseUrl: BASE,
      apiKey: API_KEY,
      timeoutMs: 100,
      fetch: () => new Promise<Response>(() => {}),
    });
    const error = await failure(() => deaf.submit(makeDocument()));
    expect(error).toMatchObject({ kind: "timeout", maybeProcessed: true, operation: "submit" });
    expect(error.message).toContain("within 100 ms");
  });
});

describe("a request that breaks the protocol", () => {
  it("is refused before anything is sent, naming each problem", async () => {
    const deliver = createDeliveryClient({ baseUrl: BASE, apiKey: API_KEY, timeoutMs: 2_000 });
    const error = await deliver
      .send(
        makeMessage((m) => {
          m.to = ["not an address"];
          m.subject = "";
        }),
        { idempotencyKey: "deliver-test-0001" },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderRequestError);
    const request = error as ProviderRequestError;
    expect(request.name).toBe("ProviderRequestError");
    expect(request.details.map((d) => d.field)).toEqual(["to.0", "subject"]);
    expect(request.message).toBe(
      `invalid send request: ${request.details.map((d) => `${d.field}: ${d.message}`).join("; ")}`,
    );
  });

  it("that is not even an object is named as the body", () => {
    const error = (() => {
      try {
        checkRequest("send", z.object({ to: z.string() }), 42);
      } catch (e) {
        return e as ProviderRequestError;
      }
    })();
    expect(error?.details).toEqual([{ field: "(body)", message: expect.any(String) }]);
    expect(error?.message).toMatch(/^invalid send request: \(body\): /);
  });
});
