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
  const perInvoice = (ctx.providerTimeoutMs / 1000) * (2 + MAX_RATE_LIMIT_RETRIES) + MAX_INLINE_RETRY_SECONDS;
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
  let outcome: RecordedOutcome;
  try {
    outcome = await limit(() => decide(ctx, orgId, entry));
  } catch (error) {
    // Not a provider answer: a bug or an infrastructure failure. Nothing is known to have been sent
    // unless the provider was reached, so the invoice stays claimable for a reissue that queries first.
    ctx.log.error("transmit failed unexpectedly", { invoice_id: entry.invoice_id, error });
    outcome = unknownOutcome("an internal error interrupted the transmission");
  }
  try {
    const recorded = await ctx.serviceDb.call("einv_transmit_record", {
      p_org_id: orgId,
      p_invoice_id: entry.invoice_id,
      p_attempt: entry.attempt,
      p_outcome: outcome,
    });
    return result(recorded);
  } catch (error) {
    ctx.log.error("could not record a transmit outcome", { invoice_id: entry.invoice_id, error });
    return {
      invoice_id: entry.invoice_id,
      status: "en_proceso",
      message: "the outcome could not be saved; use /refresh to read it from the authority",
    };
  }
}

async function decide(ctx: TransmitContext, orgId: string, entry: Claimed): Promise<RecordedOutcome> {
  const prepared = prepareInvoice(entry.document, entry.environment);
  if (!prepared.ok) {
    return {
      status: "error",
      message: `not sent: ${prepared.problems.join("; ")}`,
      detail: { stage: "checks" },
    };
  }
  let adapter: TaxAdapter;
  try {
    adapter = await ctx.providers.taxAdapter(orgId, entry.company_id, entry.environment);
  } catch (error) {
    if (error instanceof DomainError) return { status: "error", message: `not sent: ${error.message}` };
    throw error;
  }

  // The previous attempt may have reached the provider: ask before sending anything.
  let attemptKey = entry.attempt;
  if (entry.action === "query") {
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
    // Never received: resend under the earlier attempt's key, so a late arrival deduplicates.
    if (!known) attemptKey = Math.max(1, entry.attempt - 1);
  }
  return submit(ctx, adapter, prepared.request, attemptKey);
}

async function submit(
  ctx: TransmitContext,
  adapter: TaxAdapter,
  request: SubmitDocumentRequest,
  attempt: number,
): Promise<RecordedOutcome> {
  const sleep = ctx.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  for (let retry = 0; ; retry++) {
    try {
      return outcomeFromProvider(await adapter.submit(request, { attempt }));
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      const wait =
        error instanceof ProviderRateLimitedError ? error.retryAfterSeconds : Number.POSITIVE_INFINITY;
      if (wait <= MAX_INLINE_RETRY_SECONDS && retry < MAX_RATE_LIMIT_RETRIES) {
        await sleep(wait * 1000);
        continue;
      }
      if (error.maybeProcessed) {
        return unknownOutcome(
          `${error.message} The outcome is unknown; it will be confirmed before any resend`,
        );
      }
      return {
        status: "error",
        message: `not accepted by the provider: ${error.message}`,
        detail: { kind: error.kind },
      };
    }
  }
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

/** The public shape of an entry, fields in a fixed order. */
function result(entry: {
  invoice_id: string;
  status: TransmitResult["status"];
  message: string;
}): TransmitResult {
  return { invoice_id: entry.invoice_id, status: entry.status, message: entry.message };
}

function unknownOutcome(message: string): RecordedOutcome {
  return { status: "en_proceso", message, detail: { outcome: "unknown" } };
}
