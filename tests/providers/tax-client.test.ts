/**
 * The adapter-tax HTTP client against a provider faked at the network edge (msw; any request
 * without a handler fails the test).
 */
import { delay, HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import {
  ProviderMalformedError,
  ProviderRateLimitedError,
  ProviderRejectedError,
  ProviderTimeoutError,
  ProviderUnauthorizedError,
  ProviderUnavailableError,
  parseRetryAfter,
} from "../../shared/ports/providers/errors.ts";
import type { DocumentOutcome } from "../../shared/ports/providers/protocol.ts";
import { createTaxClient } from "../../shared/providers/tax/client.ts";
import { useNetworkEdge } from "../support/msw.ts";
import { failure, makeDocument } from "./fixtures.ts";

const BASE = "https://tax.example.test/v1";
const API_KEY = "sk_live_Sup3rS3cretKey_9f8e7d";
const server = useNetworkEdge();

const client = createTaxClient({ baseUrl: BASE, apiKey: API_KEY, timeoutMs: 200 });
const CUFE = "a".repeat(96);

function acceptedFor(reference: string): DocumentOutcome {
  return {
    reference,
    provider_reference: "prv-1",
    status: "accepted",
    authority_code: CUFE,
    qr_text: "NumFac: SETP1",
    message: "ok",
    validated_at: "2026-11-20T15:30:00Z",
  };
}

const providerError = (status: number, code: string, message: string, headers?: Record<string, string>) =>
  HttpResponse.json({ error: { code, message } }, { status, headers });

/** Runs `call` and returns what it threw. */
describe("submit", () => {
  it("posts the document with the bearer key, JSON and the idempotency key, and returns the outcome", async () => {
    const doc = makeDocument();
    let seen: { headers: Headers; body: unknown } | undefined;
    server.use(
      http.post(`${BASE}/documents`, async ({ request }) => {
        seen = { headers: request.headers, body: await request.json() };
        return HttpResponse.json(acceptedFor(doc.reference), { status: 201 });
      }),
    );
    await expect(client.submit(doc)).resolves.toEqual(acceptedFor(doc.reference));
    expect(seen?.headers.get("authorization")).toBe(`Bearer ${API_KEY}`);
    expect(seen?.headers.get("content-type")).toBe("application/json");
    expect(seen?.headers.get("idempotency-key")).toBe(`doc-${doc.reference}-submit-1`);
    expect(seen?.body).toEqual(doc);
  });

  it("derives a new idempotency key for a new attempt only", async () => {
    const doc = makeDocument();
    const keys: (string | null)[] = [];
    server.use(
      http.post(`${BASE}/documents`, ({ request }) => {
        keys.push(request.headers.get("idempotency-key"));
        return HttpResponse.json(acceptedFor(doc.reference));
      }),
    );
    await client.submit(doc);
    await client.submit(doc, { attempt: 1 });
    await client.submit(doc, { attempt: 2 });
    expect(keys).toEqual([
      `doc-${doc.reference}-submit-1`,
      `doc-${doc.reference}-submit-1`,
      `doc-${doc.reference}-submit-2`,
    ]);
  });

  it("times out after timeoutMs with an unknown outcome", async () => {
    server.use(
      http.post(`${BASE}/documents`, async () => {
        await delay(2_000);
        return HttpResponse.json({});
      }),
    );
    const started = Date.now();
    const error = await failure(() => client.submit(makeDocument()));
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(error).toBeInstanceOf(ProviderTimeoutError);
    expect(error).toMatchObject({
      kind: "timeout",
      code: "provider_timeout",
      maybeProcessed: true,
      operation: "submit",
    });
  });

  it("reports a 503 as unavailable, outcome unknown, with the provider's message", async () => {
    server.use(http.post(`${BASE}/documents`, () => providerError(503, "unavailable", "DIAN no responde")));
    const error = await failure(() => client.submit(makeDocument()));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({
      kind: "unavailable",
      code: "provider_error",
      status: 503,
      maybeProcessed: true,
    });
    expect(error.message).toBe("The tax provider failed on the document submission (HTTP 503).");
    expect(error.providerMessage).toBe("DIAN no responde");
  });

  it("reports a lost connection as unavailable, outcome unknown", async () => {
    server.use(http.post(`${BASE}/documents`, () => HttpResponse.error()));
    const error = await failure(() => client.submit(makeDocument()));
    expect(error).toMatchObject({ kind: "unavailable", maybeProcessed: true });
  });

  it("reports a 429 as rate limited with the Retry-After seconds, nothing processed", async () => {
    server.use(
      http.post(`${BASE}/documents`, () =>
        providerError(429, "rate_limited", "slow down", { "Retry-After": "7" }),
      ),
    );
    const error = await failure(() => client.submit(makeDocument()));
    expect(error).toBeInstanceOf(ProviderRateLimitedError);
    expect(error).toMatchObject({
      kind: "rate_limited",
      code: "rate_limited",
      retryAfterSeconds: 7,
      maybeProcessed: false,
    });
  });

  it("reports a 401 as unauthorized (credential_rejected)", async () => {
    server.use(http.post(`${BASE}/documents`, () => providerError(401, "unauthorized", "bad key")));
    const error = await failure(() => client.submit(makeDocument()));
    expect(error).toBeInstanceOf(ProviderUnauthorizedError);
    expect(error).toMatchObject({ kind: "unauthorized", code: "credential_rejected", maybeProcessed: false });
  });

  it("reports another 4xx as a refused request with the provider's code", async () => {
    server.use(http.post(`${BASE}/documents`, () => providerError(422, "validation_failed", "bad field")));
    const error = await failure(() => client.submit(makeDocument()));
    expect(error).toBeInstanceOf(ProviderRejectedError);
    expect(error).toMatchObject({
      kind: "rejected",
      providerCode: "validation_failed",
      maybeProcessed: false,
    });
  });

  it("reports an idempotency conflict as possibly processed: the key already went through", async () => {
    server.use(
      http.post(`${BASE}/documents`, () => providerError(409, "idempotency_conflict", "key reused")),
    );
    const error = await failure(() => client.submit(makeDocument()));
    expect(error).toBeInstanceOf(ProviderRejectedError);
    expect(error).toMatchObject({
      kind: "rejected",
      providerCode: "idempotency_conflict",
      maybeProcessed: true,
    });
  });

  it("reports a body that is not JSON as malformed, outcome unknown", async () => {
    server.use(http.post(`${BASE}/documents`, () => new HttpResponse("<html>oops</html>", { status: 200 })));
    const error = await failure(() => client.submit(makeDocument()));
    expect(error).toBeInstanceOf(ProviderMalformedError);
    expect(error).toMatchObject({ kind: "malformed", code: "provider_error", maybeProcessed: true });
  });

  it("reports JSON that breaks the schema as malformed, naming the field", async () => {
    const doc = makeDocument();
    const { authority_code: _, ...withoutCufe } = acceptedFor(doc.reference);
    server.use(http.post(`${BASE}/documents`, () => HttpResponse.json(withoutCufe)));
    const error = await failure(() => client.submit(doc));
    expect(error).toMatchObject({ kind: "malformed" });
    expect(error.message).toContain("authority_code");
  });

  it("does not follow a redirect", async () => {
    server.use(
      http.post(
        `${BASE}/documents`,
        () => new HttpResponse(null, { status: 307, headers: { Location: "http://10.0.0.1/" } }),
      ),
    );
    expect(await failure(() => client.submit(makeDocument()))).toMatchObject({
      kind: "malformed",
      status: 307,
    });
  });

  it("reports the outcome of another document as malformed", async () => {
    server.use(http.post(`${BASE}/documents`, () => HttpResponse.json(acceptedFor(crypto.randomUUID()))));
    expect(await failure(() => client.submit(makeDocument()))).toMatchObject({ kind: "malformed" });
  });
});

describe("query", () => {
  it("returns the provider's outcome", async () => {
    const reference = crypto.randomUUID();
    server.use(http.get(`${BASE}/documents/${reference}`, () => HttpResponse.json(acceptedFor(reference))));
    await expect(client.query(reference)).resolves.toEqual(acceptedFor(reference));
    await expect(client.query(reference)).resolves.toEqual(acceptedFor(reference));
  });

  it("returns null only for the protocol's document_not_found", async () => {
    const reference = crypto.randomUUID();
    server.use(
      http.get(`${BASE}/documents/${reference}`, () =>
        providerError(404, "document_not_found", "never seen"),
      ),
    );
    await expect(client.query(reference)).resolves.toBeNull();
  });

  it("does not read a bare 404 (wrong URL, proxy) as never received", async () => {
    const reference = crypto.randomUUID();
    server.use(
      http.get(`${BASE}/documents/${reference}`, () => new HttpResponse("Not Found", { status: 404 })),
    );
    expect(await failure(() => client.query(reference))).toMatchObject({
      kind: "malformed",
      operation: "query",
    });
  });
});

describe("checkCredential", () => {
  it("answers ok for an accepted key", async () => {
    server.use(http.get(`${BASE}/credentials/check`, () => HttpResponse.json({ ok: true, message: "fine" })));
    await expect(client.checkCredential()).resolves.toEqual({
      ok: true,
      message: "The provider accepted the API key.",
      providerMessage: "fine",
    });
  });

  it("answers ok: false for 401 and 403 instead of throwing", async () => {
    for (const status of [401, 403]) {
      server.use(http.get(`${BASE}/credentials/check`, () => providerError(status, "unauthorized", "no")));
      const check = await client.checkCredential();
      expect(check.ok).toBe(false);
      expect(check.message).toContain(String(status));
    }
  });

  it("throws a typed error when the provider fails", async () => {
    server.use(http.get(`${BASE}/credentials/check`, () => providerError(500, "internal", "boom")));
    expect(await failure(() => client.checkCredential())).toMatchObject({
      kind: "unavailable",
      operation: "check_credential",
    });
  });
});

describe("the API key", () => {
  const echo = `invalid key ${API_KEY}`;
  const scenarios: [string, () => Response][] = [
    ["401", () => providerError(401, "unauthorized", echo)],
    ["400", () => providerError(400, "validation_failed", echo)],
    ["503", () => providerError(503, "unavailable", echo)],
    ["schema", () => HttpResponse.json({ status: echo })],
  ];

  it.each(scenarios)("never appears in an error message (%s)", async (_, respond) => {
    server.use(http.post(`${BASE}/documents`, respond));
    const error = await failure(() => client.submit(makeDocument()));
    expect(error.message).not.toContain(API_KEY);
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain(API_KEY);
    expect(String(error.cause ?? "")).not.toContain(API_KEY);
  });

  it("never appears in a credential check message", async () => {
    server.use(http.get(`${BASE}/credentials/check`, () => providerError(401, "unauthorized", echo)));
    expect((await client.checkCredential()).message).not.toContain(API_KEY);
    server.use(http.get(`${BASE}/credentials/check`, () => HttpResponse.json({ ok: true, message: echo })));
    expect((await client.checkCredential()).message).not.toContain(API_KEY);
  });
});

describe("parseRetryAfter", () => {
  it("reads seconds and HTTP dates, defaults to 1 s and caps at 1 h", () => {
    const now = Date.parse("2026-11-20T15:00:00Z");
    expect(parseRetryAfter("3", now)).toBe(3);
    expect(parseRetryAfter("Fri, 20 Nov 2026 15:00:30 GMT", now)).toBe(30);
    expect(parseRetryAfter(null, now)).toBe(1);
    expect(parseRetryAfter("soon", now)).toBe(1);
    expect(parseRetryAfter("999999", now)).toBe(3600);
  });
});

describe("what a provider says never carries the key", () => {
  it("cuts the key out of a successful outcome, even when a NUL splits it", async () => {
    const doc = makeDocument();
    const [head, tail] = [API_KEY.slice(0, 8), API_KEY.slice(8)];
    server.use(
      http.post(`${BASE}/documents`, () =>
        HttpResponse.json(
          { ...acceptedFor(doc.reference), message: `ok (${API_KEY}) (${head}\u0000${tail})` },
          { status: 201 },
        ),
      ),
    );
    const outcome = await client.submit(doc);
    expect(outcome.message).toBe("ok ([redacted]) ([redacted])");
  });

  it("answers a body nested too deep to walk as malformed, a typed provider error", async () => {
    const doc = makeDocument();
    const deep = `${"[".repeat(20_000)}${"]".repeat(20_000)}`;
    const body = JSON.stringify(acceptedFor(doc.reference)).replace(/}$/, `,"extra":${deep}}`);
    server.use(
      http.post(
        `${BASE}/documents`,
        () => new HttpResponse(body, { status: 201, headers: { "content-type": "application/json" } }),
      ),
    );
    const error = await client.submit(doc).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderMalformedError);
  });
});
