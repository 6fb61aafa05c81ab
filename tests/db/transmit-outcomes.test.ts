/**
 * The transmit operation (shared/core/invoices/transmit.ts) on the real database, with the sandbox
 * provider at the network edge: how long a claim holds an invoice, what a 429 costs (bounded
 * retries, then "not sent"), which idempotency key a resend uses, and what an unexpected failure or
 * a lost claim leaves behind. The operation is called directly so the wait between retries can be
 * observed: it takes a `sleep` for that purpose.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import { createSandboxProvider, type SandboxProvider } from "../../sandbox/provider.ts";
import { transmitDocuments } from "../../shared/core/documents/transmit.ts";
import { invoiceKind } from "../../shared/core/invoices/kind.ts";
import { createLogger } from "../../shared/kernel/log.ts";
import { type Clock, systemClock } from "../../shared/ports/clock.ts";
import { createProviderDirectory } from "../../shared/providers/directory.ts";

let db: TestDatabase;
let t: TestApp;
let sandbox: SandboxProvider;
let tenant: Tenant;

/** What the network edge does with a request before (or instead of) the sandbox answering it. */
type Intercept = (request: Request) => Promise<Response | undefined> | Response | undefined;
let intercept: Intercept | undefined;
const edge = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const request = new Request(input, init);
  const answer = await intercept?.(request.clone());
  return answer ?? sandbox.fetch(request);
};

const logs: string[] = [];
let sleeps: number[];

beforeAll(async () => {
  db = await createTestDatabase();
  sandbox = createSandboxProvider();
  t = await createTestApp(db);
  tenant = await createTenant(db);
  await saveCredential(t.deps, tenant);
});
afterAll(() => db?.close());
beforeEach(() => {
  sandbox.reset();
  intercept = undefined;
  sleeps = [];
  logs.length = 0;
});

interface RunOptions {
  reissue?: boolean;
  concurrency?: number;
  providerTimeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  org?: Tenant;
  /** When what it sends afresh is issued; default the system's. */
  clock?: Clock;
}

/** One entry of a transmit answer, as the /transmit route words it. */
interface TransmitResult {
  invoice_id: string;
  status: string;
  code: string;
  message: string;
  authority_message?: string;
  authority_rules?: { rule: string; kind: string; message: string }[];
}

async function run(ids: string[], options: RunOptions = {}): Promise<{ results: TransmitResult[] }> {
  const serviceDb = t.deps.db.asService();
  const timeoutMs = options.providerTimeoutMs ?? 2_000;
  const org = options.org ?? tenant;
  const results = await transmitDocuments({
    kind: invoiceKind,
    input: { org_id: org.org.id, document_ids: ids, reissue: options.reissue ?? false },
    ctx: {
      serviceDb,
      providers: createProviderDirectory({
        serviceDb,
        secretBox: t.deps.secretBox,
        timeoutMs,
        allowPrivateUrls: false,
        fetch: edge,
      }),
      actorId: org.operador.id,
      concurrency: options.concurrency ?? 4,
      providerTimeoutMs: timeoutMs,
      clock: options.clock ?? systemClock,
      log: createLogger("debug", (line) => logs.push(line)),
      sleep:
        options.sleep ??
        (async (ms) => {
          sleeps.push(ms);
        }),
    },
  });
  return {
    results: results.map(({ document_id, ...result }) => ({ invoice_id: document_id, ...result })),
  };
}

const one = async (invoice: Invoice, options?: RunOptions): Promise<TransmitResult> => {
  const { results } = await run([invoice.id], options);
  expect(results).toHaveLength(1);
  return results[0] as TransmitResult;
};

const stored = async (invoice: Invoice) =>
  (
    await db.superuser<{
      status: string;
      last_message: string;
      last_code: string | null;
      authority_message: string | null;
      authority_rules: unknown;
      submitted_attempt: number | null;
      attempt_count: number;
    }>(
      `select status, last_message, last_code, authority_message, authority_rules, submitted_attempt,
              attempt_count from invoices where id = $1`,
      [invoice.id],
    )
  )[0];

const lastEvent = async (invoice: Invoice) =>
  (
    await db.superuser<{ kind: string; data: Record<string, unknown> }>(
      "select kind, data from events where document_id = $1 order by id desc limit 1",
      [invoice.id],
    )
  )[0];

/** The log line with this message, parsed. */
const logged = (msg: string) =>
  logs.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.msg === msg);

const submitsOf = (invoice: Invoice) => sandbox.received.filter((r) => r.reference === invoice.id);
const keysOf = (invoice: Invoice) => submitsOf(invoice).map((r) => r.idempotency_key);

const isSubmit = (request: Request) => request.method === "POST" && request.url.endsWith("/documents");
const tooManyRequests = (retryAfter: string) =>
  new Response(JSON.stringify({ error: { code: "rate_limited", message: "busy" } }), {
    status: 429,
    headers: { "content-type": "application/json", "retry-after": retryAfter },
  });

/** An invoice left `en_proceso` by an earlier submit that never reached the provider. */
async function sentBeforeButLost(): Promise<Invoice> {
  const invoice = await createInvoice(db, tenant.org, tenant.company);
  sandbox.setKnobs({ failNext: [{ kind: "error", reference: invoice.id }] });
  expect((await one(invoice)).status).toBe("en_proceso");
  expect(await stored(invoice)).toMatchObject({ status: "en_proceso", submitted_attempt: 1 });
  sandbox.reset();
  return invoice;
}

describe("the claim's lease", () => {
  it("holds each invoice for the worst case of its batch: per round a query, a submit and two retries at the timeout, two waits of 5 s, plus 30 s", async () => {
    const batch = await Promise.all(
      Array.from({ length: 3 }, () => createInvoice(db, tenant.org, tenant.company)),
    );
    const leases: number[] = [];
    intercept = async (request) => {
      if (!isSubmit(request)) return undefined;
      const { reference } = (await request.json()) as { reference: string };
      const [row] = await db.superuser<{ seconds: number }>(
        "select extract(epoch from lease_until - claimed_at)::float8 as seconds from invoices where id = $1",
        [reference],
      );
      leases.push(row?.seconds as number);
      return undefined;
    };
    // 3 invoices, 2 at a time: 2 rounds of (4 calls × 20 s + 2 waits × 5 s) = 180 s, and 30 s to spare
    const { results } = await run(
      batch.map((i) => i.id),
      { concurrency: 2, providerTimeoutMs: 20_000 },
    );
    expect(results.map((r) => r.status)).toEqual(["transmitida", "transmitida", "transmitida"]);
    expect(leases).toEqual([210, 210, 210]);
    // released once the outcome is recorded
    const [after] = await db.superuser("select lease_until from invoices where id = $1", [
      batch[0]?.id ?? "",
    ]);
    expect(after).toEqual({ lease_until: null });
  });

  it("keeps a second call away while the first one is sending", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    let concurrent: TransmitResult | undefined;
    let tried = false;
    intercept = async (request) => {
      if (!isSubmit(request) || tried) return undefined;
      tried = true;
      concurrent = await one(invoice, { reissue: true });
      return undefined;
    };
    expect((await one(invoice)).status).toBe("transmitida");
    expect(concurrent).toMatchObject({ status: "en_proceso", message: expect.stringMatching(/in progress/) });
    expect(submitsOf(invoice)).toHaveLength(1);
  });
});

describe("a rate-limited submit", () => {
  it("is retried after each Retry-After, and goes through on the third try", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    sandbox.setKnobs({ failNext: [{ kind: "rate_limited", count: 2, reference: invoice.id }] });
    expect((await one(invoice)).status).toBe("transmitida");
    expect(sleeps).toEqual([1_000, 1_000]);
    expect(submitsOf(invoice).map((r) => r.result)).toEqual(["rate_limited", "rate_limited", "processed"]);
    // retries of one attempt share its key
    expect(new Set(keysOf(invoice))).toEqual(new Set([`doc-${invoice.id}-submit-1`]));
  });

  it("is given up after two retries: not sent, and the draft goes back to pendiente with the reason", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    sandbox.setKnobs({ failNext: [{ kind: "rate_limited", count: 3, reference: invoice.id }] });
    const result = await one(invoice);
    expect(result).toMatchObject({ status: "error", code: "not_sent_retry" });
    expect(result.message).toMatch(/^not sent: the provider refused it: .*rate limiting/);
    expect(sleeps).toEqual([1_000, 1_000]);
    expect(submitsOf(invoice)).toHaveLength(3);
    expect(sandbox.submissions).toHaveLength(0);
    expect(await stored(invoice)).toMatchObject({
      status: "pendiente",
      submitted_attempt: null,
      last_message: result.message,
    });
    expect(await lastEvent(invoice)).toMatchObject({
      kind: "transmit_not_sent",
      data: { outcome: "not_sent", kind: "rate_limited" },
    });
  });

  it("waits inline for a Retry-After of up to 5 s", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    let refused = 0;
    intercept = (request) => (isSubmit(request) && refused++ === 0 ? tooManyRequests("5") : undefined);
    expect((await one(invoice)).status).toBe("transmitida");
    expect(sleeps).toEqual([5_000]);
  });

  it("is not waited for when the Retry-After is longer than 5 s: not sent, left for a later call", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    intercept = (request) => (isSubmit(request) ? tooManyRequests("6") : undefined);
    const result = await one(invoice);
    expect(result).toMatchObject({
      status: "error",
      message: expect.stringMatching(/^not sent: .*after 6 s/),
    });
    expect(sleeps).toEqual([]);
    expect((await stored(invoice))?.status).toBe("pendiente");
  });

  it("of an invoice submitted before stays error (not an editable draft) and keeps the earlier key", async () => {
    const invoice = await sentBeforeButLost();
    sandbox.setKnobs({ failNext: [{ kind: "rate_limited", count: 3, reference: invoice.id }] });
    const result = await one(invoice, { reissue: true });
    expect(result).toMatchObject({ status: "error", message: expect.stringMatching(/^not sent: /) });
    expect(await stored(invoice)).toMatchObject({ status: "error", submitted_attempt: 1 });
    expect(new Set(keysOf(invoice))).toEqual(new Set([`doc-${invoice.id}-submit-1`]));
  });
});

describe("a request the provider refuses without processing it", () => {
  it("is not retried: not sent, with the provider's reason", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    let calls = 0;
    intercept = (request) => {
      if (!isSubmit(request)) return undefined;
      calls++;
      return new Response(JSON.stringify({ error: { code: "validation_failed", message: "campo raro" } }), {
        status: 422,
        headers: { "content-type": "application/json" },
      });
    };
    const result = await one(invoice);
    expect(result).toMatchObject({ status: "error", code: "provider_refused" });
    // the provider's own words beside our sentence, never inside it
    expect(result.message).toBe(
      "not sent: the provider refused it: The tax provider refused the document submission (HTTP 422).",
    );
    expect(result).toMatchObject({ provider_message: "campo raro" });
    expect(calls).toBe(1);
    expect(sleeps).toEqual([]);
    expect(await lastEvent(invoice)).toMatchObject({ data: { outcome: "not_sent", kind: "rejected" } });
  });

  it("because of its credential is not sent, and says the credential is what to fix", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    intercept = (request) =>
      isSubmit(request)
        ? Response.json({ error: { code: "unauthorized", message: "bad key" } }, { status: 401 })
        : undefined;
    const result = await one(invoice);
    expect(result).toMatchObject({
      status: "error",
      code: "credential_required",
      message: expect.stringMatching(/^not sent: the provider refused it: .*rejected the credential/),
    });
    expect((await stored(invoice))?.status).toBe("pendiente");
  });
});

describe("a resend", () => {
  it("after a definite rejection is a new attempt, under a new idempotency key", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    await db.superuser("update invoices set buyer_name = 'RECHAZAR SA' where id = $1", [invoice.id]);
    expect((await one(invoice)).status).toBe("error");
    const again = await one(invoice, { reissue: true });
    expect(again).toMatchObject({ status: "error", message: expect.stringMatching(/FAJ43b/) });
    expect(keysOf(invoice)).toEqual([`doc-${invoice.id}-submit-1`, `doc-${invoice.id}-submit-2`]);
    // both reached the authority: the second is a request of its own, not a replay of the first
    expect(sandbox.submissions.filter((s) => s.reference === invoice.id)).toHaveLength(2);
  });

  it("of a document the provider still has pending records it as pending and sends nothing", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, {
      lines: [{ description: "Servicio PENDIENTE", quantity: 1, unitPrice: 1000, taxRate: 19 }],
    });
    sandbox.setKnobs({ pendingPolls: 5 });
    const first = await one(invoice);
    expect(first).toMatchObject({
      status: "en_proceso",
      code: "validation_pending",
      message: expect.stringMatching(/^sent; the authority has not decided on this invoice yet/),
      authority_message: expect.stringMatching(/en proceso de validación/),
    });
    const again = await one(invoice, { reissue: true });
    expect(again).toEqual({ ...first });
    expect(await stored(invoice)).toMatchObject({ status: "en_proceso", last_message: first.message });
    expect(submitsOf(invoice)).toHaveLength(1);
  });
});

describe("what is recorded", () => {
  it("for an accepted invoice: the provider's reference and the key it was sent under", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    expect((await one(invoice)).status).toBe("transmitida");
    const [row] = await db.superuser<{ provider_reference: string; submitted_attempt: number }>(
      "select provider_reference, submitted_attempt from invoices where id = $1",
      [invoice.id],
    );
    const [submission] = sandbox.submissions.filter((s) => s.reference === invoice.id);
    expect(row).toEqual({ provider_reference: submission?.provider_reference, submitted_attempt: 1 });
  });

  it("for a rejection: the API's sentence naming the rules, the authority's message and rules as written, the rules in the event", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    await db.superuser(
      "update invoices set buyer_id_number = '999999999', buyer_check_digit = einv_private.nit_check_digit('999999999'), buyer_name = 'RECHAZAR SA' where id = $1",
      [invoice.id],
    );
    let answer: { message: string; errors: { code: string; message: string }[] } | undefined;
    intercept = async (request) => {
      if (!isSubmit(request)) return undefined;
      const response = await sandbox.fetch(request);
      answer = await response.clone().json();
      return response;
    };
    const result = await one(invoice);
    expect(answer?.errors.map((e) => e.code).sort()).toEqual(["FAJ43b", "FAJ44b"]);
    const [first, second] = answer?.errors ?? [];
    expect(result).toEqual({
      invoice_id: invoice.id,
      status: "error",
      code: "rejected",
      message: `the authority rejected this invoice (${first?.code}, ${second?.code}; see authority_rules); correct it, then pass reissue: true to send it again`,
      authority_message: answer?.message,
      authority_rules: answer?.errors.map((e) => ({ rule: e.code, kind: "rechazo", message: e.message })),
    });
    expect(await stored(invoice)).toMatchObject({
      last_code: "rejected",
      last_message: result.message,
      authority_message: result.authority_message,
      authority_rules: result.authority_rules,
    });
    expect(await lastEvent(invoice)).toMatchObject({
      kind: "transmit_attempt",
      data: { rules: answer?.errors },
    });
  });

  it("for a rejection without rules: the authority's message alone, and no rules", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    intercept = (request) =>
      isSubmit(request)
        ? Response.json({
            reference: invoice.id,
            provider_reference: "prv-no-rules",
            status: "rejected",
            message: "Documento rechazado",
          })
        : undefined;
    expect(await one(invoice)).toEqual({
      invoice_id: invoice.id,
      status: "error",
      code: "rejected",
      message: "the authority rejected this invoice; correct it, then pass reissue: true to send it again",
      authority_message: "Documento rechazado",
    });
    expect(await lastEvent(invoice)).toMatchObject({
      data: { rules: [], provider_reference: "prv-no-rules" },
    });
  });

  it("for a draft that fails the checks: every problem, and that it stopped at the checks", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    // two problems: one of its amounts (a discount above its total, the database's) and one of its buyer
    await db.superuser(
      `update invoices set buyer_name = '', allowance_charges = '[{"charge": false, "amount": 200000}]' where id = $1`,
      [invoice.id],
    );
    const result = await one(invoice);
    expect(result.message).toMatch(
      /^not sent: allowance_charges: the invoice's discounts \(200000\.00\) exceed .*; buyer_name is missing$/,
    );
    expect(await lastEvent(invoice)).toMatchObject({
      kind: "transmit_not_sent",
      data: { outcome: "not_sent", stage: "checks" },
    });
    expect(sandbox.received).toHaveLength(0);
  });

  it("for a company without a credential: that it stopped at the credential", async () => {
    const bare = await createTenant(db);
    const invoice = await createInvoice(db, bare.org, bare.company);
    expect((await one(invoice, { org: bare })).message).toMatch(/^not sent: The company has no adapter-tax/);
    expect(await lastEvent(invoice)).toMatchObject({ data: { outcome: "not_sent", stage: "credential" } });
  });

  it("when the earlier attempt cannot be confirmed: that nothing was re-sent, and why", async () => {
    const invoice = await sentBeforeButLost();
    sandbox.setKnobs({ failNext: [{ kind: "error", on: "query", reference: invoice.id }] });
    const result = await one(invoice, { reissue: true });
    expect(result.status).toBe("en_proceso");
    expect(result.message).toMatch(
      /^could not confirm the earlier attempt \(The tax provider failed on the document query \(HTTP 503\).*\); nothing was re-sent$/,
    );
    expect(submitsOf(invoice)).toHaveLength(0);
  });

  it("when a resend after a rejection has an unknown outcome: its own key, resent under that key even when the provider still reports the earlier rejection", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    await db.superuser("update invoices set buyer_name = 'RECHAZAR SA' where id = $1", [invoice.id]);
    expect((await one(invoice)).status).toBe("error");
    sandbox.setKnobs({ failNext: [{ kind: "error", reference: invoice.id }] });
    expect((await one(invoice, { reissue: true })).status).toBe("en_proceso");
    expect(await stored(invoice)).toMatchObject({ status: "en_proceso", submitted_attempt: 2 });
    // the provider still reports the first rejection, which says nothing of attempt 2 (it may be
    // on its way): the resend is under attempt 2's key, so the provider decides that one, once
    expect((await one(invoice, { reissue: true })).status).toBe("error");
    expect(keysOf(invoice)).toEqual([
      `doc-${invoice.id}-submit-1`,
      `doc-${invoice.id}-submit-2`,
      `doc-${invoice.id}-submit-2`,
    ]);
    expect(await stored(invoice)).toMatchObject({ status: "error", submitted_attempt: 2 });
    // now the provider answered that key itself: the next reissue is a fresh attempt, sent at once
    expect((await one(invoice, { reissue: true })).status).toBe("error");
    expect(keysOf(invoice).at(-1)).toBe(`doc-${invoice.id}-submit-4`);
  });
});

describe("an invoice left as it is", () => {
  it("in error repeats why it failed and how to send it again", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    await db.superuser("update invoices set buyer_name = 'RECHAZAR SA' where id = $1", [invoice.id]);
    const rejected = await one(invoice);
    const again = await one(invoice);
    expect(rejected.code).toBe("rejected");
    expect(again).toMatchObject({ status: "error", code: "reissue_required" });
    // one sentence, said once; why it failed stays with the document (last_code, authority_rules)
    expect(again.message).toBe("the last transmission ended in error; pass reissue: true to send it again");
  });

  it("in error without a recorded reason still says it failed", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "error" });
    await db.superuser("update invoices set last_message = null where id = $1", [invoice.id]);
    const result = await one(invoice);
    expect(result.status).toBe("error");
    expect(result.message).toBe("the last transmission ended in error; pass reissue: true to send it again");
  });
});

describe("an unexpected failure (not a provider answer)", () => {
  it("before anything was sent releases the draft as not sent", async () => {
    const bare = await createTenant(db);
    await saveCredential(t.deps, bare, { apiKey: "" }); // a key no client can be built with
    const invoice = await createInvoice(db, bare.org, bare.company);
    const result = await one(invoice, { org: bare });
    expect(result).toEqual({
      invoice_id: invoice.id,
      status: "error",
      code: "not_sent_retry",
      message: "not sent: an internal error stopped the transmission before anything was sent",
    });
    expect((await stored(invoice))?.status).toBe("pendiente");
    expect(logged("transmit failed unexpectedly")).toMatchObject({
      level: "error",
      document_id: invoice.id,
      error: { name: "TypeError" },
    });
  });

  it("while waiting out a 429 (nothing is at the provider) releases the draft as not sent", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    sandbox.setKnobs({ failNext: [{ kind: "rate_limited", reference: invoice.id }] });
    const result = await one(invoice, {
      sleep: () => Promise.reject(new Error("the timer failed")),
    });
    expect(result.message).toBe(
      "not sent: an internal error stopped the transmission before anything was sent",
    );
    expect(await stored(invoice)).toMatchObject({ status: "pendiente", submitted_attempt: null });
  });

  it("once a submit may have left keeps the outcome unknown, to be asked about before any resend", async () => {
    // No well-formed row reaches this defensive path; an attempt number the client refuses (0) does.
    const invoice = await sentBeforeButLost();
    await db.superuser(
      "update invoices set submitted_attempt = 0, lease_until = null, claimed_at = null where id = $1",
      [invoice.id],
    );
    const result = await one(invoice, { reissue: true });
    expect(result).toEqual({
      invoice_id: invoice.id,
      status: "en_proceso",
      code: "outcome_unknown",
      message: "an internal error interrupted the transmission",
    });
    expect(await stored(invoice)).toMatchObject({ status: "en_proceso", submitted_attempt: 0 });
    expect(await lastEvent(invoice)).toMatchObject({
      kind: "transmit_attempt",
      data: { outcome: "unknown" },
    });
  });
});

describe("a claim taken over while its holder was sending", () => {
  it("is recorded by the new holder only; the late one answers en_proceso and changes nothing", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    let takeover: TransmitResult | undefined;
    let stolen = false;
    intercept = async (request) => {
      if (!isSubmit(request) || stolen) return undefined;
      stolen = true;
      // the first holder's lease runs out before its submit arrives; a reissue claims the invoice
      await db.superuser("update invoices set lease_until = now() - interval '1 second' where id = $1", [
        invoice.id,
      ]);
      takeover = await one(invoice, { reissue: true });
      return undefined;
    };
    const late = await one(invoice);
    expect(takeover?.status).toBe("transmitida");
    expect(late).toEqual({
      invoice_id: invoice.id,
      status: "en_proceso",
      code: "outcome_unknown",
      message: "the outcome could not be saved; use /refresh to read it from the authority",
    });
    expect(await stored(invoice)).toMatchObject({ status: "transmitida", attempt_count: 2 });
    expect(logged("could not record a transmit outcome")).toMatchObject({
      level: "error",
      document_id: invoice.id,
      error: { message: expect.stringMatching(/no longer/) },
    });
    // one document at the authority: the takeover resent under the first key, the late submit was a replay
    expect(sandbox.submissions.filter((s) => s.reference === invoice.id)).toHaveLength(1);
  });
});
