/**
 * The deliver client against the sandbox deliver, in-process: the message log, idempotency, the
 * bounce rule, injected faults and the outbox on disk.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { BOUNCE_DOMAIN, createSandboxDeliver } from "../../sandbox/deliver.ts";
import { deliveryIdempotencyKey } from "../../shared/ports/providers/deliver.ts";
import { createDeliveryClient } from "../../shared/providers/deliver/client.ts";
import { failure, fakePdf, makeMessage, SANDBOX_KEY } from "./fixtures.ts";

const sandbox = createSandboxDeliver();
const clientWith = (apiKey = SANDBOX_KEY, timeoutMs = 500, fetch = sandbox.fetch) =>
  createDeliveryClient({ baseUrl: "http://sandbox.local", apiKey, timeoutMs, fetch });
const client = clientWith();
const keyOf = (reference: string) => ({ idempotencyKey: deliveryIdempotencyKey(reference) });
beforeEach(() => sandbox.reset());

describe("sending", () => {
  it("sends, and logs recipients, subject, attachment names and sizes, reference, key and time", async () => {
    const message = makeMessage();
    const outcome = await client.send(message, keyOf(message.reference));
    expect(outcome).toMatchObject({ reference: message.reference, status: "sent" });
    expect(outcome.provider_reference).toMatch(/^sbx_msg_/);
    const pdf = message.attachments?.[0]?.content as Uint8Array;
    expect(sandbox.messages).toEqual([
      {
        provider_reference: outcome.provider_reference,
        reference: message.reference,
        idempotency_key: deliveryIdempotencyKey(message.reference),
        to: ["ana@example.com"],
        subject: message.subject,
        attachments: [
          { filename: "SETP990000001.pdf", content_type: "application/pdf", size: pdf.byteLength },
        ],
        status: "sent",
        received_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      },
    ]);
    expect(sandbox.content(message.reference)?.attachments.get("SETP990000001.pdf")).toEqual(pdf);
  });

  it(`rejects a message to a recipient at ${BOUNCE_DOMAIN}; a new key may send it again`, async () => {
    const message = makeMessage((m) => (m.to = ["ana@example.com", "nadie@REBOTA.test"]));
    const outcome = await client.send(message, { idempotencyKey: "bounce-attempt-1" });
    expect(outcome).toMatchObject({ status: "rejected" });
    expect(outcome.message).toContain("nadie@REBOTA.test");
    const fixed = { ...message, to: ["ana@example.com"] };
    expect((await client.send(fixed, { idempotencyKey: "bounce-attempt-2" })).status).toBe("sent");
    expect(sandbox.messages.map((m) => m.status)).toEqual(["rejected", "sent"]);
  });
});

describe("query", () => {
  it("answers what became of a reference — sent, rejected — and message_not_found for one never received", async () => {
    const sent = makeMessage();
    const bounced = makeMessage((m) => (m.to = [`nadie@${BOUNCE_DOMAIN}`]));
    const outcome = await client.send(sent, keyOf(sent.reference));
    await client.send(bounced, keyOf(bounced.reference));
    expect(await client.query(sent.reference)).toEqual(outcome);
    expect(await client.query(bounced.reference)).toMatchObject({ status: "rejected" });
    expect(await client.query(crypto.randomUUID())).toBeNull();
    // a query sends nothing
    expect(sandbox.messages).toHaveLength(2);
    expect(sandbox.queries.map((q) => q.found)).toEqual([true, true, false]);
  });

  it("fails a query on request (503), sending nothing", async () => {
    const message = makeMessage();
    sandbox.setKnobs({ failNext: [{ kind: "error", on: "query" }] });
    expect(await failure(() => client.query(message.reference))).toMatchObject({ kind: "unavailable" });
    expect(sandbox.received).toHaveLength(0);
  });
});

describe("idempotency", () => {
  it("answers a resend with the same key from its store: one e-mail", async () => {
    const message = makeMessage();
    const first = await client.send(message, keyOf(message.reference));
    expect(await client.send(message, keyOf(message.reference))).toEqual(first);
    expect(sandbox.messages).toHaveLength(1);
    expect(sandbox.received.map((r) => r.result)).toEqual(["processed", "replayed"]);
  });

  it("refuses the same key with a different message (409)", async () => {
    const message = makeMessage();
    await client.send(message, keyOf(message.reference));
    const error = await failure(() => client.send({ ...message, subject: "Otro" }, keyOf(message.reference)));
    expect(error).toMatchObject({ kind: "rejected", providerCode: "idempotency_conflict" });
  });

  it("never sends a sent reference again, whatever the key", async () => {
    const message = makeMessage();
    const first = await client.send(message, { idempotencyKey: "first-key-0001" });
    expect(await client.send(message, { idempotencyKey: "other-key-0002" })).toEqual(first);
    expect(sandbox.messages).toHaveLength(1);
    expect(sandbox.received.map((r) => r.result)).toEqual(["processed", "duplicate"]);
  });

  it("requires an Idempotency-Key", async () => {
    const body = JSON.stringify({
      reference: crypto.randomUUID(),
      to: ["a@b.co"],
      subject: "s",
      text: "",
      attachments: [],
    });
    const headers = { authorization: `Bearer ${SANDBOX_KEY}`, "content-type": "application/json" };
    const answer = await sandbox.fetch("/messages", { method: "POST", headers, body });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: { code: "idempotency_key_required" } });
  });
});

describe("faults", () => {
  it("sends a message whose answer hangs; the resend with the same key sends nothing more", async () => {
    sandbox.setKnobs({ failNext: [{ kind: "hang" }], hangMs: 5_000 });
    const message = makeMessage();
    const error = await failure(() => clientWith(SANDBOX_KEY, 100).send(message, keyOf(message.reference)));
    expect(error).toMatchObject({ kind: "timeout", maybeProcessed: true });
    expect(await client.send(message, keyOf(message.reference))).toMatchObject({ status: "sent" });
    expect(sandbox.messages).toHaveLength(1);
  });

  it("answers 503 without sending, and garbles after sending", async () => {
    sandbox.setKnobs({ failNext: [{ kind: "error" }, { kind: "malformed" }] });
    expect(await failure(() => client.send(makeMessage(), { idempotencyKey: "k-error-01" }))).toMatchObject({
      kind: "unavailable",
    });
    expect(sandbox.messages).toHaveLength(0);
    expect(await failure(() => client.send(makeMessage(), { idempotencyKey: "k-garbled-01" }))).toMatchObject(
      {
        kind: "malformed",
      },
    );
    expect(sandbox.messages).toHaveLength(1);
    expect(sandbox.received.map((r) => r.result)).toEqual(["unavailable", "processed"]);
  });

  it("refuses keys that are not sandbox keys", async () => {
    const stranger = clientWith("sk_live_nope");
    await expect(stranger.checkCredential()).resolves.toMatchObject({ ok: false });
    expect(await failure(() => stranger.send(makeMessage(), { idempotencyKey: "k-stranger" }))).toMatchObject(
      {
        kind: "unauthorized",
      },
    );
    expect(sandbox.received.map((r) => r.result)).toEqual(["unauthorized"]);
  });
});

describe("outbox", () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  it("writes message.json and each attachment under <outboxDir>/<time>-<reference>/", async () => {
    const outboxDir = await mkdtemp(join(tmpdir(), "deliver-outbox-"));
    dirs.push(outboxDir);
    const withOutbox = createSandboxDeliver({ outboxDir, now: () => new Date("2026-11-20T15:30:02.123Z") });
    const message = makeMessage((m) => {
      m.attachments?.push({
        filename: "message.json",
        content_type: "application/json",
        content: fakePdf(3),
      });
    });
    await clientWith(SANDBOX_KEY, 2_000, withOutbox.fetch).send(message, keyOf(message.reference));

    const folder = `2026-11-20T15-30-02-123Z-${message.reference}`;
    expect(await readdir(outboxDir)).toEqual([folder]);
    expect((await readdir(join(outboxDir, folder))).sort()).toEqual([
      "2-message.json",
      "SETP990000001.pdf",
      "message.json",
    ]);
    const record = JSON.parse(await readFile(join(outboxDir, folder, "message.json"), "utf8"));
    expect(record).toMatchObject({
      reference: message.reference,
      status: "sent",
      to: message.to,
      subject: message.subject,
      text: message.text,
      idempotency_key: deliveryIdempotencyKey(message.reference),
      attachments: [
        { filename: "SETP990000001.pdf", file: "SETP990000001.pdf" },
        { filename: "message.json", file: "2-message.json" },
      ],
    });
    const pdf = await readFile(join(outboxDir, folder, "SETP990000001.pdf"));
    expect(new Uint8Array(pdf)).toEqual(message.attachments?.[0]?.content);
    expect(withOutbox.messages[0]?.outbox_path).toBe(join(outboxDir, folder));
  });
});
