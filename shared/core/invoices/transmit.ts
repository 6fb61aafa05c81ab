/**
 * transmitInvoices: sends a batch of invoices to the tax authority, each exactly once.
 *
 * One SQL call claims the whole batch (row locks, a lease, `en_proceso`); each claimed invoice is
 * then checked, sent with bounded concurrency, and its outcome recorded by the claim's holder. An
 * invoice that may have reached the provider before is queried first and re-sent only when the
 * provider never got it or definitely rejected it. One invoice's failure never touches another.
 */
import pLimit, { type LimitFunction } from "p-limit";
import type { ClaimEntry, DbScope, RecordedOutcome } from "../../db/port.ts";
import { DomainError } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import type { ProviderDirectory } from "../../providers/directory.ts";
import { ProviderError, ProviderRateLimitedError } from "../../providers/errors.ts";
import type { DocumentOutcome, SubmitDocumentRequest, TaxAdapter } from "../../providers/protocol.ts";
import { prepareInvoice } from "./document.ts";

export interface TransmitInput {
  org_id: string;
  invoice_ids: string[];
  reissue: boolean;
}

export interface TransmitResult {
  invoice_id: string;
  status: "pendiente" | "en_proceso" | "transmitida" | "error";
  message: string;
}

export interface TransmitContext {
  serviceDb: DbScope;
  providers: ProviderDirectory;
  actorId: string;
  concurrency: number;
  /** The per-call provider timeout, which sizes the claim's lease. */
  providerTimeoutMs: number;
  log: Logger;
  /** Waits before retrying a rate-limited submit; tests pass a fake. */
  sleep?: (ms: number) => Promise<void>;
}

/** Longest Retry-After honoured inside a call; beyond it the invoice is reported and left to a reissue. */
const MAX_INLINE_RETRY_SECONDS = 5;
const MAX_RATE_LIMIT_RETRIES = 2;

export async function transmitInvoices({
  ctx,
  input,
}: {
  ctx: TransmitContext;
  input: TransmitInput;
}): Promise<{ results: TransmitResult[] }> {
  const claims = await ctx.serviceDb.call("einv_transmit_claim", {
    p_org_id: input.org_id,
    p_invoice_ids: input.invoice_ids,
    p_reissue: input.reissue,
    p_actor_id: ctx.actorId,
    p_lease_seconds: leaseSeconds(input.invoice_ids.length, ctx),
  });
  const limit = pLimit(ctx.concurrency);
  const results = await Promise.all(
    claims.map((entry) =>
      entry.action === "skip" ? result(entry) : processClaim(ctx, input.org_id, entry, limit),
    ),
  );
  return { results };
}

/**
 * A claim keeps other calls away until its holder is surely done: every round of the batch may
 * take a query, a submit and its rate-limit retries, each up to the provider timeout.
 */
function leaseSeconds(count: number, ctx: TransmitContext): number {
  const rounds = Math.ceil(count / ctx.concurrency);
  const perInvoice =
    (ctx.providerTimeoutMs / 1000) * (2 + MAX_RATE_LIMIT_RETRIES) +
    MAX_INLINE_RETRY_SECONDS * MAX_RATE_LIMIT_RETRIES;
  return Math.ceil(rounds * perInvoice + 30);
}

type Claimed = Exclude<ClaimEntry, { action: "skip" }>;

/**
 * Only the provider work takes a concurrency slot; recording the outcome happens outside it, so the
 * next invoice's submit does not wait for this one's database write.
 */
async function processClaim(
  ctx: TransmitContext,
  orgId: string,
  entry: Claimed,
  limit: LimitFunction,
): Promise<TransmitResult> {
  const progress: Progress = { submittedWith: null };
  let outcome: RecordedOutcome;
  try {
    outcome = await limit(() => decide(ctx, orgId, entry, progress));
  } catch (error) {
    // Not a provider answer: a bug or an infrastructure failure. Whether anything may have reached
    // the provider decides between "not sent" and "unknown, ask before any resend".
    ctx.log.error("transmit failed unexpectedly", { invoice_id: entry.invoice_id, error });
    outcome =
      progress.submittedWith === null
        ? notSent(entry, "an internal error stopped the transmission before anything was sent")
        : unknownOutcome("an internal error interrupted the transmission", progress.submittedWith);
  }
  try {
    const recorded = await ctx.serviceDb.call("einv_transmit_record", {
      p_org_id: orgId,
      p_invoice_id: entry.invoice_id,
      p_attempt: entry.attempt,
      p_outcome: storable(outcome),
    });
    // A draft released without sending is still an `error` entry for this call.
    return result({ ...recorded, status: recorded.status === "pendiente" ? "error" : recorded.status });
  } catch (error) {
    ctx.log.error("could not record a transmit outcome", { invoice_id: entry.invoice_id, error });
    return {
      invoice_id: entry.invoice_id,
      status: "en_proceso",
      message: "the outcome could not be saved; use /refresh to read it from the authority",
    };
  }
}

/** Whether (and under which attempt's key) a submit may have reached the provider. */
interface Progress {
  submittedWith: number | null;
}

async function decide(
  ctx: TransmitContext,
  orgId: string,
  entry: Claimed,
  progress: Progress,
): Promise<RecordedOutcome> {
  // An invoice that may be at the provider is never judged locally first: it is asked about.
  const mayBeThere = entry.action === "query";
  let adapter: TaxAdapter;
  try {
    adapter = await ctx.providers.taxAdapter(orgId, entry.company_id, entry.environment);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return mayBeThere
      ? unknownOutcome(`could not ask the provider about the earlier attempt: ${error.message}`)
      : notSent(entry, error.message, { stage: "credential" });
  }

  let key = entry.attempt;
  if (mayBeThere) {
    let known: DocumentOutcome | null;
    try {
      known = await adapter.query(entry.invoice_id);
    } catch (error) {
      if (error instanceof ProviderError) {
        return unknownOutcome(
          `could not confirm the earlier attempt (${error.message}); nothing was re-sent`,
        );
      }
      throw error;
    }
    if (known && known.status !== "rejected") return outcomeFromProvider(known);
    // Never received: resend under the key of the submit that may still arrive, so the provider
    // deduplicates it. Definitely rejected: a new attempt, under a new key.
    key = known ? entry.attempt : (entry.submitted_attempt ?? entry.attempt);
  }
  const prepared = prepareInvoice(entry.document, entry.environment);
  if (!prepared.ok) return notSent(entry, prepared.problems.join("; "), { stage: "checks" });
  return submit(ctx, entry, adapter, prepared.request, key, progress);
}

async function submit(
  ctx: TransmitContext,
  entry: Claimed,
  adapter: TaxAdapter,
  request: SubmitDocumentRequest,
  key: number,
  progress: Progress,
): Promise<RecordedOutcome> {
  const sleep = ctx.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  for (let retry = 0; ; retry++) {
    try {
      progress.submittedWith = key;
      return {
        ...outcomeFromProvider(await adapter.submit(request, { attempt: key })),
        submitted_attempt: key,
      };
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      if (error.maybeProcessed) {
        return unknownOutcome(
          `${error.message} The outcome is unknown; it will be confirmed before any resend`,
          key,
        );
      }
      // Refused without processing (rate limited, credential, request): as if never sent.
      progress.submittedWith = null;
      const wait =
        error instanceof ProviderRateLimitedError ? error.retryAfterSeconds : Number.POSITIVE_INFINITY;
      if (wait <= MAX_INLINE_RETRY_SECONDS && retry < MAX_RATE_LIMIT_RETRIES) {
        await sleep(wait * 1000);
        continue;
      }
      return notSent(entry, `the provider refused it: ${error.message}`, { kind: error.kind });
    }
  }
}

/**
 * Nothing reached the provider in this attempt. A draft that was never submitted goes back to
 * `pendiente`, editable, with the reason; one submitted before stays `error`.
 */
function notSent(entry: Claimed, why: string, detail: Record<string, unknown> = {}): RecordedOutcome {
  const status = entry.submitted_attempt === null ? "pendiente" : "error";
  return { status, message: `not sent: ${why}`, detail: { ...detail, outcome: "not_sent" } };
}

/** What a provider's answer about a document means for the invoice. */
export function outcomeFromProvider(outcome: DocumentOutcome): RecordedOutcome {
  const base = { provider_reference: outcome.provider_reference };
  switch (outcome.status) {
    case "accepted":
      return {
        ...base,
        status: "transmitida",
        message: outcome.message,
        authority_code: outcome.authority_code,
        qr_text: outcome.qr_text,
        validated_at: outcome.validated_at,
      };
    case "rejected": {
      const rules = (outcome.errors ?? []).map((e) => `${e.code}: ${e.message}`);
      const message = rules.length > 0 ? `${outcome.message} (${rules.join("; ")})` : outcome.message;
      return { ...base, status: "error", message, detail: { rules: outcome.errors ?? [] } };
    }
    case "pending":
      return { ...base, status: "en_proceso", message: outcome.message };
  }
}

/**
 * Provider text is stored as it came, but PostgreSQL text and jsonb cannot hold NUL: a message with
 * one would make the outcome impossible to record.
 */
export function storable<T>(value: T): T {
  if (typeof value === "string") return value.replaceAll("\0", "") as T;
  if (Array.isArray(value)) return value.map(storable) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [storable(k), storable(v)])) as T;
  }
  return value;
}

/** The public shape of an entry, fields in a fixed order. */
function result(entry: {
  invoice_id: string;
  status: TransmitResult["status"];
  message: string;
}): TransmitResult {
  return { invoice_id: entry.invoice_id, status: entry.status, message: entry.message };
}

function unknownOutcome(message: string, submittedWith?: number): RecordedOutcome {
  return {
    status: "en_proceso",
    message,
    ...(submittedWith === undefined ? {} : { submitted_attempt: submittedWith }),
    detail: { outcome: "unknown" },
  };
}
