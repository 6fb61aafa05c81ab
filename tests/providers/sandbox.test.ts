/**
 * The tax client against the sandbox provider, in-process (the sandbox's fetch handler is the
 * client's fetch) and once over real HTTP through sandbox/server.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandboxProvider } from "../../sandbox/provider.ts";
import { type RunningSandbox, startSandboxServer } from "../../sandbox/server.ts";
import { computeCufe } from "../../shared/co/cufe.ts";
import type { SubmitDocumentRequest } from "../../shared/ports/providers/protocol.ts";
import { createTaxClient } from "../../shared/providers/tax/client.ts";
import { failure, makeDocument, SANDBOX_KEY } from "./fixtures.ts";

const sandbox = createSandboxProvider();
const clientWith = (apiKey = SANDBOX_KEY, timeoutMs = 300) =>
  createTaxClient({ baseUrl: "http://sandbox.local", apiKey, timeoutMs, fetch: sandbox.fetch });
const client = clientWith();
beforeEach(() => sandbox.reset());

describe("accepting", () => {
  it("accepts a valid document with the DIAN CUFE and QR text, and logs one submission", async () => {
    const doc = makeDocument();
    const outcome = await client.submit(doc);
    const cufe = await computeCufe({
      number: doc.number,
      issueDate: doc.issue_date,
      issueTime: doc.issue_time,
      subtotal: "110000.00",
      iva: "19000.00",
      inc: "0.00",
      ica: "0.00",
      total: "129000.00",
      issuerNit: "900123456",
      buyerId: "1020304050",
      technicalKey: doc.issuer.technical_key ?? "",
      environment: "uat",
    });
    expect(outcome).toMatchObject({ reference: doc.reference, status: "accepted", authority_code: cufe });
    expect(outcome.qr_text).toContain(`ValOtroIm: 0.00\nValTolFac: 129000.00\nCUFE: ${cufe}`);
    expect(outcome.qr_text).toContain("catalogo-vpfe-hab.dian.gov.co");
    expect(sandbox.submissions).toEqual([
      expect.objectContaining({ reference: doc.reference, idempotency_key: `doc-${doc.reference}-submit-1` }),
    ]);
  });

  it("accepts DIAN's final consumer (222222222222, type 13, no check digit) and puts that id in the CUFE", async () => {
    const doc = makeDocument((d) => {
      d.buyer = { ...d.buyer, id_type: "13", id_number: "222222222222", name: "Consumidor final" };
    });
    const outcome = await client.submit(doc);
    expect(outcome).toMatchObject({ status: "accepted" });
    expect(outcome.qr_text).toContain("DocAdq: 222222222222");
  });

  it.each([
    ["identified as a NIT", { id_type: "31", check_digit: "7", name: "Consumidor final" }],
    ["under another name", { id_type: "13", name: "Ana Gómez" }],
  ])("rejects the final consumer %s (FAK61)", async (_, buyer) => {
    const outcome = await client.submit(
      makeDocument((d) => {
        d.buyer = { ...d.buyer, ...buyer, id_number: "222222222222" };
      }),
    );
    expect(outcome.status).toBe("rejected");
    expect(outcome.errors?.map((e) => e.code)).toContain("FAK61");
  });

  it("stamps production documents for the production catalogue", async () => {
    const outcome = await client.submit(makeDocument((d) => (d.environment = "prd")));
    expect(outcome.qr_text).toContain("https://catalogo-vpfe.dian.gov.co/");
  });

  it("answers a credential check for a sandbox key", async () => {
    await expect(client.checkCredential()).resolves.toMatchObject({ ok: true });
  });
});

describe("rejection rules", () => {
  const cases: [string, string, (d: SubmitDocumentRequest) => void][] = [
    ["FAJ24", "issuer check digit wrong", (d) => (d.issuer.check_digit = "7")],
    [
      "FAK24",
      "NIT buyer check digit wrong",
      (d) => Object.assign(d.buyer, { id_type: "31", id_number: "800197268", check_digit: "3" }),
    ],
    ["FAJ44b", "buyer id 999999999 (unknown to the RUT)", (d) => (d.buyer.id_number = "999999999")],
    ["FAJ43b", "buyer name with RECHAZAR", (d) => (d.buyer.name = "Cliente rechazar S.A.")],
    ["FAU02", "subtotal ≠ sum of lines", (d) => (d.totals.subtotal = "110000.01")],
    [
      "FAU04",
      "tax-exclusive amount ≠ sum of the lines' bases",
      (d) => (d.totals.tax_exclusive_amount = "110000.00"),
    ],
    ["FAU06", "tax total ≠ sum of line taxes", (d) => (d.totals.tax_total = "18000.00")],
    [
      "FAS02",
      "a scheme's tax total ≠ its lines'",
      (d) => ((d.tax_totals[0] as { tax_amount: string }).tax_amount = "18999.99"),
    ],
    [
      "FAU08",
      "discounts total ≠ the document's discounts",
      (d) => (d.totals.allowance_total_amount = "100.00"),
    ],
    ["FAU14", "total ≠ subtotal + taxes", (d) => (d.totals.total = "130000.00")],
    ["FAB10b", "number without its resolution's prefix", (d) => (d.numbering = numbering({ prefix: "FE" }))],
    ["FAD05d", "number outside its resolution's range", (d) => (d.numbering = numbering({ to: "999" }))],
    [
      "FAD09a",
      "issue date outside its resolution's period",
      (d) => (d.numbering = numbering({ end_date: "2026-11-19" })),
    ],
  ];
  /** A resolution the fixture's number (SETP + up to nine digits) and date (2026-11-20) fit, changed. */
  const numbering = (change: Partial<NonNullable<SubmitDocumentRequest["numbering"]>>) => ({
    resolution_number: "18760000001",
    start_date: "2019-01-19",
    end_date: "2030-01-19",
    prefix: "SETP",
    from: "1",
    to: "999999999",
    ...change,
  });

  it("accepts a document its numbering resolution fits", async () => {
    expect((await client.submit(makeDocument((d) => (d.numbering = numbering({}))))).status).toBe("accepted");
  });

  it.each(cases)("rejects with %s: %s", async (code, _, change) => {
    const outcome = await client.submit(makeDocument(change));
    expect(outcome.status).toBe("rejected");
    expect(outcome.errors?.map((e) => e.code)).toContain(code);
    expect(outcome.message).toContain(code);
    expect(outcome.authority_code).toBeUndefined();
  });

  it("rejects with 90 a document whose CUFE was accepted for another reference", async () => {
    const first = makeDocument();
    await client.submit(first);
    const outcome = await client.submit({ ...first, reference: crypto.randomUUID() });
    expect(outcome).toMatchObject({ status: "rejected", errors: [expect.objectContaining({ code: "90" })] });
  });
});

describe("idempotency", () => {
  it("answers a resubmit with the same key from its store, without a new submission", async () => {
    const doc = makeDocument();
    const first = await client.submit(doc);
    const second = await client.submit(doc);
    expect(second).toEqual(first);
    expect(sandbox.submissions).toHaveLength(1);
    expect(sandbox.received.map((r) => r.result)).toEqual(["processed", "replayed"]);
  });

  it("refuses the same key with a different document (409)", async () => {
    const doc = makeDocument((d) => (d.buyer.id_number = "999999999"));
    await client.submit(doc);
    const error = await failure(() =>
      client.submit({ ...doc, buyer: { ...doc.buyer, id_number: "1020304050" } }),
    );
    expect(error).toMatchObject({ kind: "rejected", providerCode: "idempotency_conflict" });
  });

  it("processes a corrected document again under the next attempt", async () => {
    const doc = makeDocument((d) => (d.buyer.id_number = "999999999"));
    expect((await client.submit(doc)).status).toBe("rejected");
    const fixed = { ...doc, buyer: { ...doc.buyer, id_number: "1020304050" } };
    expect((await client.submit(fixed, { attempt: 2 })).status).toBe("accepted");
    expect(sandbox.submissions.map((s) => s.status)).toEqual(["rejected", "accepted"]);
  });

  it("never processes an accepted reference again, whatever the key", async () => {
    const doc = makeDocument();
    const first = await client.submit(doc);
    await expect(client.submit(doc, { attempt: 5 })).resolves.toEqual(first);
    expect(sandbox.submissions).toHaveLength(1);
  });
});

describe("pending documents", () => {
  const pendingDoc = () =>
    makeDocument((d) => {
      for (const line of d.lines) line.description = `${line.description} (entrega pendiente)`;
    });

  it("leaves a PENDIENTE document pending; the next query finds it accepted", async () => {
    const doc = pendingDoc();
    const submitted = await client.submit(doc);
    expect(submitted.status).toBe("pending");
    expect(submitted).not.toHaveProperty("authority_code");
    expect(await client.query(doc.reference)).toMatchObject({
      status: "accepted",
      authority_code: expect.any(String),
    });
  });

  it("stays pending for pendingPolls queries", async () => {
    sandbox.setKnobs({ pendingPolls: 1 });
    const doc = pendingDoc();
    await client.submit(doc);
    expect((await client.query(doc.reference))?.status).toBe("pending");
    expect((await client.query(doc.reference))?.status).toBe("accepted");
  });
});

describe("unknown outcomes", () => {
  it("processes a submit whose answer hangs; the query then finds it without a resend", async () => {
    sandbox.setKnobs({ failNext: [{ kind: "hang" }] });
    const doc = makeDocument();
    const error = await failure(() => client.submit(doc));
    expect(error).toMatchObject({ kind: "timeout", maybeProcessed: true });
    expect(sandbox.submissions).toHaveLength(1);
    expect(await client.query(doc.reference)).toMatchObject({ status: "accepted" });
    expect(sandbox.received).toHaveLength(1);
  });

  it("does not process a submit the client gave up on during latency: the query finds nothing", async () => {
    sandbox.setKnobs({ latencyMs: 1_000 });
    const doc = makeDocument();
    expect(await failure(() => clientWith(SANDBOX_KEY, 50).submit(doc))).toMatchObject({ kind: "timeout" });
    sandbox.setKnobs({ latencyMs: 0 });
    expect(await client.query(doc.reference)).toBeNull();
    expect(sandbox.received.map((r) => r.result)).toEqual(["abandoned"]);
    expect((await client.submit(doc)).status).toBe("accepted");
  });

  it("answers 503 without processing", async () => {
    sandbox.setKnobs({ failNext: [{ kind: "error" }] });
    const doc = makeDocument();
    expect(await failure(() => client.submit(doc))).toMatchObject({ kind: "unavailable", status: 503 });
    expect(sandbox.submissions).toHaveLength(0);
    expect(await client.query(doc.reference)).toBeNull();
  });

  it("processes, then answers garbage", async () => {
    sandbox.setKnobs({ failNext: [{ kind: "malformed" }] });
    const doc = makeDocument();
    expect(await failure(() => client.submit(doc))).toMatchObject({
      kind: "malformed",
      maybeProcessed: true,
    });
    expect(await client.query(doc.reference)).toMatchObject({ status: "accepted" });
  });

  it("aims failNext at one reference and at queries", async () => {
    const doc = makeDocument();
    sandbox.setKnobs({ failNext: [{ kind: "error", on: "query", reference: doc.reference, count: 2 }] });
    await client.submit(makeDocument());
    await client.submit(doc);
    expect(await failure(() => client.query(doc.reference))).toMatchObject({ kind: "unavailable" });
    expect(await failure(() => client.query(doc.reference))).toMatchObject({ kind: "unavailable" });
    expect(await client.query(doc.reference)).toMatchObject({ status: "accepted" });
  });

  it("draws rate-based failures reproducibly from the seed", async () => {
    const run = async () => {
      sandbox.reset();
      sandbox.setKnobs({ errorRate: 0.5, seed: 7 });
      const results = [];
      for (let i = 0; i < 8; i++)
        results.push(
          await client.checkCredential().then(
            () => "ok",
            () => "error",
          ),
        );
      return results;
    };
    const first = await run();
    expect(first).toContain("ok");
    expect(first).toContain("error");
    expect(await run()).toEqual(first);
  });
});

describe("limits and keys", () => {
  it("answers 429 with Retry-After: 1 past the concurrency limit, without processing", async () => {
    sandbox.setKnobs({ concurrencyLimit: 2, latencyMs: 100 });
    const results = await Promise.allSettled([1, 2, 3].map(() => client.submit(makeDocument())));
    const refused = results.filter((r) => r.status === "rejected");
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(2);
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({
      kind: "rate_limited",
      retryAfterSeconds: 1,
    });
    expect(sandbox.submissions).toHaveLength(2);
  });

  it("answers 401 to a key that is not a sandbox key", async () => {
    const stranger = clientWith("sk_live_nope");
    expect(await failure(() => stranger.submit(makeDocument()))).toMatchObject({ kind: "unauthorized" });
    await expect(stranger.checkCredential()).resolves.toMatchObject({ ok: false });
    expect(sandbox.received.map((r) => r.result)).toEqual(["unauthorized"]);
    expect(sandbox.submissions).toHaveLength(0);
  });

  it("accepts only the configured keys when apiKeys is given", async () => {
    const strict = createSandboxProvider({ apiKeys: ["k_only_this_one"] });
    const check = (apiKey: string) =>
      createTaxClient({
        baseUrl: "http://sandbox.local",
        apiKey,
        timeoutMs: 300,
        fetch: strict.fetch,
      }).checkCredential();
    await expect(check("k_only_this_one")).resolves.toMatchObject({ ok: true });
    await expect(check(SANDBOX_KEY)).resolves.toMatchObject({ ok: false });
  });
});

describe("control endpoints", () => {
  it("serves the logs and takes knobs over HTTP", async () => {
    await client.submit(makeDocument());
    const logs = await (await sandbox.fetch("/_sandbox/submissions")).json();
    expect(logs).toMatchObject({ submissions: [expect.any(Object)], received: [{ result: "processed" }] });
    const knobs = await sandbox.fetch("/_sandbox/knobs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ latencyMs: 5 }),
    });
    expect(await knobs.json()).toMatchObject({ latencyMs: 5 });
    const bad = await sandbox.fetch("/_sandbox/knobs", {
      method: "POST",
      body: JSON.stringify({ errorRate: 2 }),
    });
    expect(bad.status).toBe(400);
  });
});

describe("over HTTP (sandbox/server.ts)", () => {
  let running: RunningSandbox;
  beforeAll(async () => {
    running = await startSandboxServer(createSandboxProvider(), { port: 0 });
  });
  afterAll(() => running?.close());

  it("serves the protocol; a hung answer times out and the query finds the document", async () => {
    const http = createTaxClient({ baseUrl: running.url, apiKey: SANDBOX_KEY, timeoutMs: 300 });
    expect((await http.submit(makeDocument())).status).toBe("accepted");
    running.provider.setKnobs({ failNext: [{ kind: "hang" }] });
    const doc = makeDocument();
    expect(await failure(() => http.submit(doc))).toMatchObject({ kind: "timeout" });
    // The client's abort reaches the sandbox through the bridge: the hung request is no longer in flight.
    running.provider.setKnobs({ concurrencyLimit: 1 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await http.query(doc.reference)).toMatchObject({ status: "accepted" });
    expect(running.provider.submissions).toHaveLength(2);
  });
});
