/**
 * The deliver HTTP client against a provider faked at the network edge (msw; any request without a
 * handler fails the test).
 */
import { delay, HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import {
  type DeliveryMessage,
  type DeliveryOutcome,
  deliveryIdempotencyKey,
  EmailAddress,
  fromBase64,
  MAX_ATTACHMENT_BYTES,
  type SendMessageRequest,
  toBase64,
} from "../../shared/ports/providers/deliver.ts";
import { ProviderRequestError } from "../../shared/ports/providers/errors.ts";
import { createDeliveryClient } from "../../shared/providers/deliver/client.ts";
import { useNetworkEdge } from "../support/msw.ts";
import { failure, makeMessage } from "./fixtures.ts";

const BASE = "https://mail.example.test/api";
const API_KEY = "dl_live_Hush_Hush_Key_31337";
const server = useNetworkEdge();

const client = createDeliveryClient({ baseUrl: BASE, apiKey: API_KEY, timeoutMs: 200 });
const KEY = "delivery-test-key-0001";

const outcomeFor = (reference: string, status: DeliveryOutcome["status"] = "sent"): DeliveryOutcome => ({
  reference,
  provider_reference: "msg-1",
  status,
  message: status === "sent" ? "queued" : "mailbox does not exist",
});

describe("send", () => {
  it("posts the message with the key, the Idempotency-Key and base64 attachments", async () => {
    const pdf = new Uint8Array(70_000).map((_, i) => (i * 7) % 256);
    const message = makeMessage((m) => {
      m.attachments = [{ filename: "FV 001.pdf", content_type: "application/pdf", content: pdf }];
    });
    let seen: { headers: Headers; body: SendMessageRequest } | undefined;
    server.use(
      http.post(`${BASE}/messages`, async ({ request }) => {
        seen = { headers: request.headers, body: (await request.json()) as SendMessageRequest };
        return HttpResponse.json(outcomeFor(message.reference), { status: 201 });
      }),
    );
    await expect(client.send(message, { idempotencyKey: KEY })).resolves.toEqual(
      outcomeFor(message.reference),
    );
    expect(seen?.headers.get("authorization")).toBe(`Bearer ${API_KEY}`);
    expect(seen?.headers.get("idempotency-key")).toBe(KEY);
    expect(seen?.body).toMatchObject({
      reference: message.reference,
      to: message.to,
      subject: message.subject,
    });
    const [attachment] = seen?.body.attachments ?? [];
    expect(attachment).toMatchObject({ filename: "FV 001.pdf", content_type: "application/pdf" });
    expect(Buffer.from(fromBase64(attachment?.content_base64 ?? "")).equals(pdf)).toBe(true);
  });

  it("returns a rejected message as an outcome, not an error", async () => {
    const message = makeMessage();
    server.use(
      http.post(`${BASE}/messages`, () => HttpResponse.json(outcomeFor(message.reference, "rejected"))),
    );
    await expect(client.send(message, { idempotencyKey: KEY })).resolves.toMatchObject({
      status: "rejected",
    });
  });

  const invalid: [string, (m: DeliveryMessage) => void, string][] = [
    ["a recipient that is not an e-mail address", (m) => (m.to = ["ana@"]), "to.0"],
    ["no recipient", (m) => (m.to = []), "to"],
    ["a subject with a line break", (m) => (m.subject = "Factura\r\nBcc: x@evil.test"), "subject"],
    ["a reference that is not a UUID", (m) => (m.reference = "delivery-1"), "reference"],
    ["a file name with a path", (m) => (m.attachments = [att("../x.pdf")]), "attachments.0.filename"],
    ["two attachments of one name", (m) => (m.attachments = [att("a.pdf"), att("a.pdf")]), "attachments"],
    [
      "an attachment over the cap",
      (m) => (m.attachments = [att("big.pdf", MAX_ATTACHMENT_BYTES + 1)]),
      "attachments.0",
    ],
  ];
  it.each(invalid)("refuses to send %s", async (_, change, field) => {
    const error = await client.send(makeMessage(change), { idempotencyKey: KEY }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderRequestError);
    expect((error as ProviderRequestError).details.map((d) => d.field)).toContain(field);
  });

  it("refuses an idempotency key the protocol does not allow", async () => {
    for (const idempotencyKey of ["short", "with space in it", "x".repeat(256)]) {
      await expect(client.send(makeMessage(), { idempotencyKey })).rejects.toBeInstanceOf(
        ProviderRequestError,
      );
    }
  });

  it("reports the outcome of another message as malformed", async () => {
    server.use(http.post(`${BASE}/messages`, () => HttpResponse.json(outcomeFor(crypto.randomUUID()))));
    expect(await failure(() => client.send(makeMessage(), { idempotencyKey: KEY }))).toMatchObject({
      kind: "malformed",
      service: "deliver",
      operation: "send",
    });
  });

  it("reports a timeout, a 5xx and an idempotency conflict as maybe sent", async () => {
    server.use(
      http.post(`${BASE}/messages`, async () => {
        await delay(2_000);
        return HttpResponse.json({});
      }),
    );
    const timeout = await failure(() => client.send(makeMessage(), { idempotencyKey: KEY }));
    expect(timeout).toMatchObject({ kind: "timeout", maybeProcessed: true, service: "deliver" });
    expect(timeout.message).toContain("delivery provider");
    server.use(
      http.post(`${BASE}/messages`, () =>
        HttpResponse.json({ error: { code: "x", message: "y" } }, { status: 502 }),
      ),
    );
    expect(await failure(() => client.send(makeMessage(), { idempotencyKey: KEY }))).toMatchObject({
      kind: "unavailable",
      maybeProcessed: true,
    });
    server.use(
      http.post(`${BASE}/messages`, () =>
        HttpResponse.json(
          { error: { code: "idempotency_conflict", message: `key ${API_KEY}` } },
          { status: 409 },
        ),
      ),
    );
    const conflict = await failure(() => client.send(makeMessage(), { idempotencyKey: KEY }));
    expect(conflict).toMatchObject({
      kind: "rejected",
      providerCode: "idempotency_conflict",
      maybeProcessed: true,
    });
    expect(conflict.message).not.toContain(API_KEY);
  });

  it("checks the credential", async () => {
    server.use(http.get(`${BASE}/credentials/check`, () => HttpResponse.json({ ok: true, message: "ok" })));
    await expect(client.checkCredential()).resolves.toEqual({
      ok: true,
      message: "The provider accepted the API key.",
      providerMessage: "ok",
    });
  });
});

describe("query", () => {
  const reference = "0b8e7c52-3f7a-4f0e-9d55-6a1f6c2d9e10";

  it("answers the outcome of the message sent under a reference, with the key, by GET", async () => {
    let authorization: string | null = null;
    server.use(
      http.get(`${BASE}/messages/${reference}`, ({ request }) => {
        authorization = request.headers.get("authorization");
        return HttpResponse.json(outcomeFor(reference));
      }),
    );
    await expect(client.query(reference)).resolves.toEqual(outcomeFor(reference));
    expect(authorization).toBe(`Bearer ${API_KEY}`);
  });

  it("answers null only for the protocol's message_not_found; a bare 404 is malformed", async () => {
    server.use(
      http.get(`${BASE}/messages/${reference}`, () =>
        HttpResponse.json({ error: { code: "message_not_found", message: "no" } }, { status: 404 }),
      ),
    );
    await expect(client.query(reference)).resolves.toBeNull();
    server.use(
      http.get(`${BASE}/messages/${reference}`, () => new HttpResponse("Not Found", { status: 404 })),
    );
    expect(await failure(() => client.query(reference))).toMatchObject({
      kind: "malformed",
      service: "deliver",
      operation: "message_query",
    });
  });

  it("reports the outcome of another message as malformed, and a 5xx as a failure", async () => {
    server.use(
      http.get(`${BASE}/messages/${reference}`, () => HttpResponse.json(outcomeFor(crypto.randomUUID()))),
    );
    expect(await failure(() => client.query(reference))).toMatchObject({ kind: "malformed" });
    server.use(
      http.get(`${BASE}/messages/${reference}`, () =>
        HttpResponse.json({ error: { code: "unavailable", message: "down" } }, { status: 503 }),
      ),
    );
    expect(await failure(() => client.query(reference))).toMatchObject({ kind: "unavailable" });
  });
});

describe("helpers", () => {
  it("validates e-mail addresses", () => {
    for (const good of ["ana@example.com", "a.b+c@sub.example.co", "x@rebota.test"]) {
      expect(EmailAddress.safeParse(good).success).toBe(true);
    }
    for (const bad of ["", "ana", "ana@", "@example.com", "a b@example.com", "ana@example.com\nBcc: x@y.z"]) {
      expect(EmailAddress.safeParse(bad).success).toBe(false);
    }
  });

  it("round-trips base64 of any size", () => {
    for (const size of [0, 1, 2, 3, 4, 5, 100_001]) {
      const bytes = new Uint8Array(size).map((_, i) => (i * 31 + 7) % 256);
      expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString("base64"));
      expect(Buffer.from(fromBase64(toBase64(bytes))).equals(bytes)).toBe(true);
    }
  });

  it("derives one idempotency key per delivery", () => {
    const id = crypto.randomUUID();
    expect(deliveryIdempotencyKey(id.toUpperCase())).toBe(`delivery-${id}-send`);
  });
});

function att(filename: string, size = 10) {
  return { filename, content_type: "application/pdf", content: new Uint8Array(size) };
}
