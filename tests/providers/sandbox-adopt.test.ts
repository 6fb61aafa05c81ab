/**
 * The sandbox adopting a document it took in before it started (what the local run's database says
 * the authority accepted or holds pending): held as received, answered by query and AttachedDocument,
 * never logged as a submission, and deduplicated like one it accepted itself.
 */
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLedger } from "../../sandbox/ledger.ts";
import { createSandboxProvider } from "../../sandbox/provider.ts";
import { stamp } from "../../sandbox/rules.ts";
import { sandboxSigners } from "../../sandbox/signers.ts";
import { createTaxClient } from "../../shared/providers/tax/client.ts";
import { makeDocument, SANDBOX_KEY } from "./fixtures.ts";

const VALIDATED_AT = "2026-11-20T15:16:17.000Z";
const now = () => new Date("2026-11-22T08:00:00.000Z");

/** The outcome a database records for an accepted document: its own code and QR text. */
async function recorded(doc = makeDocument()) {
  const { cufe, qrText } = await stamp(doc);
  const outcome = {
    provider_reference: "sbx_before-the-restart",
    status: "accepted" as const,
    authority_code: cufe,
    qr_text: qrText,
    validated_at: VALIDATED_AT,
  };
  return { doc, outcome };
}

describe("the ledger adopting a document", () => {
  it("holds an accepted one with the outcome on record, and answers queries with it", async () => {
    const ledger = createLedger(now);
    const { doc, outcome } = await recorded();
    const adopted = await ledger.adopt(doc, outcome, 0);
    expect(adopted).toMatchObject({ reference: doc.reference, ...outcome });
    expect(ledger.held(doc.reference)).toEqual({ request: doc, outcome: adopted });
    expect(await ledger.query(doc.reference)).toEqual(adopted);
    expect(ledger.submissions).toEqual([]);
  });

  it("is idempotent: adopting again keeps what it holds", async () => {
    const ledger = createLedger(now);
    const { doc, outcome } = await recorded();
    const first = await ledger.adopt(doc, outcome, 0);
    const again = await ledger.adopt(doc, { provider_reference: "other", status: "pending" }, 0);
    expect(again).toEqual(first);
    expect(ledger.held(doc.reference)?.outcome).toEqual(first);
    expect([...ledger.documents.keys()]).toEqual([doc.reference]);
  });

  it("refuses another reference with the adopted CUFE (rule 90), and answers a resend of the same one", async () => {
    const ledger = createLedger(now);
    const { doc, outcome } = await recorded();
    const adopted = await ledger.adopt(doc, outcome, 0);
    const copy = await ledger.submit({ ...doc, reference: crypto.randomUUID() }, "doc-copy-submit-1", 0);
    expect(copy).toMatchObject({ kind: "processed", outcome: { status: "rejected" } });
    expect(copy.kind !== "conflict" && copy.outcome.errors?.map((e) => e.code)).toEqual(["90"]);
    await expect(ledger.submit(doc, `doc-${doc.reference}-submit-2`, 0)).resolves.toEqual({
      kind: "duplicate",
      outcome: adopted,
    });
  });

  it("stamps an accepted one recorded without a code, as it stamps what it accepts", async () => {
    const ledger = createLedger(now);
    const doc = makeDocument();
    const adopted = await ledger.adopt(
      doc,
      { provider_reference: "sandbox-seeded", status: "accepted", validated_at: VALIDATED_AT },
      0,
    );
    const { cufe, qrText } = await stamp(doc);
    expect(adopted).toMatchObject({ authority_code: cufe, qr_text: qrText, validated_at: VALIDATED_AT });
  });

  it("accepts a pending one on a later query, after pendingPolls", async () => {
    const ledger = createLedger(now);
    const doc = makeDocument();
    const pending = { provider_reference: "sandbox-pending", status: "pending" as const };
    expect(await ledger.adopt(doc, pending, 1)).toMatchObject({ status: "pending" });
    expect(await ledger.query(doc.reference)).toMatchObject({ status: "pending" });
    expect(await ledger.query(doc.reference)).toMatchObject({
      status: "accepted",
      provider_reference: "sandbox-pending",
      authority_code: (await stamp(doc)).cufe,
      validated_at: now().toISOString(),
    });
  });

  it("refuses an authority code without its QR text", async () => {
    const ledger = createLedger(now);
    const { doc, outcome } = await recorded();
    await expect(ledger.adopt(doc, { ...outcome, qr_text: undefined }, 0)).rejects.toThrow(/QR text/);
    expect(ledger.held(doc.reference)).toBeNull();
  });
});

describe("the sandbox provider, over its protocol", () => {
  const sandbox = createSandboxProvider();
  const client = createTaxClient({
    baseUrl: "http://sandbox.local",
    apiKey: SANDBOX_KEY,
    timeoutMs: 500,
    fetch: sandbox.fetch,
  });
  beforeEach(() => sandbox.reset());
  // the process's sandbox certificates, generated once, before the timed calls
  beforeAll(() => sandboxSigners(), 60_000);

  it("answers a query and serves the AttachedDocument of an adopted document", async () => {
    const { doc, outcome } = await recorded();
    await sandbox.adopt(doc, outcome);
    expect(await client.query(doc.reference)).toMatchObject(outcome);
    const xml = new TextDecoder().decode(
      await client.attachedDocument(doc.reference, { authorityCode: outcome.authority_code }),
    );
    expect(xml).toContain(outcome.authority_code);
    expect(xml).toContain("<cbc:ValidationDate>2026-11-20</cbc:ValidationDate>"); // the recorded instant's
    expect(sandbox.submissions).toEqual([]);
  });

  it("cannot serve the AttachedDocument of one recorded with a code that is not its CUFE", async () => {
    const { doc, outcome } = await recorded();
    await sandbox.adopt(doc, { ...outcome, authority_code: "e".repeat(96) });
    const answer = await sandbox.fetch(`/documents/${doc.reference}/attached-document`, {
      headers: { authorization: `Bearer ${SANDBOX_KEY}` },
    });
    expect(answer.status).toBe(500);
    expect((await answer.json()).error.message).toMatch(
      /CUFE\/CUDE of SETP\d+ is not the one the sandbox answered/,
    );
  });

  it("refuses to adopt a request the protocol would refuse", async () => {
    const doc = makeDocument((d) => (d.number = ""));
    await expect(sandbox.adopt(doc, { provider_reference: "x", status: "pending" })).rejects.toThrow();
    expect(sandbox.documents.size).toBe(0);
  });

  it("forgets adopted documents on reset", async () => {
    const { doc, outcome } = await recorded();
    await sandbox.adopt(doc, outcome);
    sandbox.reset();
    await expect(client.query(doc.reference)).resolves.toBeNull();
  });
});
