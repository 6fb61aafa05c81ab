/**
 * transmitDocuments: sends a batch of fiscal documents of one kind to the tax authority, each
 * exactly once.
 *
 * One SQL call claims the whole batch (row locks, a lease, `en_proceso`) and reads the credentials
 * it is sent with; each claimed document is then checked, sent with bounded concurrency, and its outcome recorded by the claim's holder. A
 * document that may have reached the provider before is queried first and re-sent only when the
 * provider never got it or definitely rejected it. One document's failure never touches another.
 */
import pLimit, { type LimitFunction } from "p-limit";
import { colombianDate } from "../../co/time.ts";
import { DomainError } from "../../kernel/errors.ts";
import type { Logger } from "../../kernel/log.ts";
import type { AuthorityRule, TransmissionCode } from "../../kernel/result-codes.ts";
import type { ClaimEntry, DocumentKind, FiscalStatus, RecordedOutcome } from "../../kernel/rows.ts";
import { isoTimeWithOffset } from "../../pdf/format.ts";
import type { Clock } from "../../ports/clock.ts";
import { callAuthorized, type DbScope } from "../../ports/db/port.ts";
import type { ProviderDirectory } from "../../ports/providers/directory.ts";
import {
  ProviderError,
  ProviderRateLimitedError,
  ProviderUnauthorizedError,
  ProviderUnavailableError,
} from "../../ports/providers/errors.ts";
import type { DocumentOutcome, SubmitDocumentRequest, TaxAdapter } from "../../ports/providers/protocol.ts";
import type { DocumentKindSpec } from "./kind.ts";
import { lookupOf } from "./lookup.ts";
import { outcomeFromProvider, storable } from "./outcome.ts";

export interface TransmitInput {
  org_id: string;
  document_ids: string[];
  reissue: boolean;
}

export interface TransmitResult {
  document_id: string;
  status: FiscalStatus;
  code: TransmissionCode;
  message: string;
  /** The authority's own message and rules, when it answered in this call. */
  authority_message?: string;
  authority_rules?: AuthorityRule[];
  /** A provider's own words about its failure in this call (never stored, never in `message`). */
  provider_message?: string;
}

/** An outcome to record, and the provider's own words about a failure, which are answered, not stored. */
type Decided = RecordedOutcome & { provider_message?: string };

export interface TransmitContext {
  serviceDb: DbScope;
  providers: ProviderDirectory;
  actorId: string;
  concurrency: number;
  /** The per-call provider timeout, which sizes the claim's lease. */
  providerTimeoutMs: number;
  /** When a document this call sends afresh is issued (the claim stamps it in Colombia's time). */
  clock: Clock;
  log: Logger;
  /** Waits before retrying a rate-limited submit; tests pass a fake. */
  sleep?: (ms: number) => Promise<void>;
  /** Told whether the claim and each record left webhook deliveries waiting (undefined: not said). */
  webhooksWaiting?: (waiting: boolean | undefined) => void;
}

/** Longest Retry-After honoured inside a call; beyond it the document is reported and left to a reissue. */
const MAX_INLINE_RETRY_SECONDS = 5;
const MAX_RATE_LIMIT_RETRIES = 2;

/** Sends the documents of `kind`; one result per requested id, in request order. */
export async function transmitDocuments<K extends DocumentKind>({
  ctx,
  kind,
  input,
}: {
  ctx: TransmitContext;
  kind: DocumentKindSpec<K>;
  input: TransmitInput;
}): Promise<TransmitResult[]> {
  // The claim and the adapter-tax credentials of what it sends, in one round trip; behind a
  // request's gate, the caller's membership is checked in the same one.
  const { entries, credentials, webhooks_due } = await callAuthorized(
    ctx.serviceDb,
    "einv_document_claim_sending_authorized",
    {
      p_org_id: input.org_id,
      p_kind: kind.kind,
      p_document_ids: input.document_ids,
      p_reissue: input.reissue,
      p_actor_id: ctx.actorId,
      p_lease_seconds: leaseSeconds(input.document_ids.length, ctx),
      p_issued_at: ctx.clock.now().toISOString(),
      p_service: "adapter-tax",
    },
  );
  ctx.webhooksWaiting?.(webhooks_due);
  const claims = entries as ClaimEntry<K>[];
  ctx.providers.prime(
    "adapter-tax",
    input.org_id,
    claims.flatMap((c) => (c.action === "skip" ? [] : [c])),
    credentials,
  );
  return sendClaimed({ ctx, kind, orgId: input.org_id, claims });
}

/**
 * The rest of a transmission, for documents already claimed (by `einv_document_claim`, or by a
 * kind's own create-and-claim): each is checked, sent or queried, and its outcome recorded.
 */
export function sendClaimed<K extends DocumentKind>({
  ctx,
  kind,
  orgId,
  claims,
}: {
  ctx: TransmitContext;
  kind: DocumentKindSpec<K>;
  orgId: string;
  claims: ClaimEntry<K>[];
}): Promise<TransmitResult[]> {
  const limit = pLimit(ctx.concurrency);
  return Promise.all(
    claims.map((entry) =>
      entry.action === "skip" ? skipped(kind, entry) : processClaim(ctx, kind, orgId, entry, limit),
    ),
  );
}

/** Why a document was left as it was, in the kind's words. */
function skipped(kind: DocumentKindSpec, entry: Extract<ClaimEntry, { action: "skip" }>): TransmitResult {
  const { words } = kind;
  const [code, message] = (
    {
      accepted: ["already_transmitted", words.alreadyAccepted],
      // the stored outcome says why (the document's last_code, last_message, authority_rules)
      failed: ["reissue_required", `the last transmission ended in error; ${words.howToResend}`],
      in_progress: ["in_progress", `transmission in progress; ${words.whileInProgress}`],
      not_found: ["not_found", `${words.noun} not found`],
      // a draft of habilitación's test set while its company is in production: never sent there
      test_set_in_production: [
        "check_failed",
        "not sent: this invoice belongs to habilitación's test set, which is sent only in uat, never in production; set the company's active environment to uat to finish the set (/integrations/test-set)",
      ],
    } as const
  )[entry.reason];
  return { document_id: entry.document_id, status: entry.status, code, message };
}

/**
 * A claim keeps other calls away until its holder is surely done: every round of the batch may
 * take a query, a submit and its rate-limit retries, each up to the provider timeout.
 */
export function leaseSeconds(
  count: number,
  ctx: Pick<TransmitContext, "concurrency" | "providerTimeoutMs">,
): number {
  const rounds = Math.ceil(count / ctx.concurrency);
  const perDocument =
    (ctx.providerTimeoutMs / 1000) * (2 + MAX_RATE_LIMIT_RETRIES) +
    MAX_INLINE_RETRY_SECONDS * MAX_RATE_LIMIT_RETRIES;
  return Math.ceil(rounds * perDocument + 30);
}

type Claimed<K extends DocumentKind = DocumentKind> = Exclude<ClaimEntry<K>, { action: "skip" }>;

/**
 * Only the provider work takes a concurrency slot; recording the outcome happens outside it, so the
 * next document's submit does not wait for this one's database write.
 */
async function processClaim<K extends DocumentKind>(
  ctx: TransmitContext,
  kind: DocumentKindSpec<K>,
  orgId: string,
  entry: Claimed<K>,
  limit: LimitFunction,
): Promise<TransmitResult> {
  const progress: Progress = { submittedWith: null };
  let outcome: Decided;
  try {
    outcome = await limit(() => decide(ctx, kind, orgId, entry, progress));
  } catch (error) {
    // Not a provider answer: a bug or an infrastructure failure. Whether anything may have reached
    // the provider decides between "not sent" and "unknown, ask before any resend".
    ctx.log.error("transmit failed unexpectedly", { kind: kind.kind, document_id: entry.document_id, error });
    outcome =
      progress.submittedWith === null
        ? notSent(
            kind,
            entry,
            "not_sent_retry",
            "an internal error stopped the transmission before anything was sent",
          )
        : unknownOutcome("an internal error interrupted the transmission", progress.submittedWith);
  }
  outcome = restamped(entry, outcome);
  const { provider_message, ...toRecord } = outcome;
  try {
    const recorded = await ctx.serviceDb.call("einv_document_record", {
      p_org_id: orgId,
      p_kind: kind.kind,
      p_document_id: entry.document_id,
      p_attempt: entry.attempt,
      p_outcome: storable(toRecord),
    });
    ctx.webhooksWaiting?.(recorded.webhooks_queued);
    // A draft released without sending is still an `error` entry for this call.
    const { code, message, authority_message, authority_rules } = recorded;
    return {
      document_id: recorded.document_id,
      status: recorded.status === "pendiente" ? "error" : recorded.status,
      code: code as TransmissionCode,
      message,
      ...(authority_message === null ? {} : { authority_message }),
      ...(authority_rules?.length ? { authority_rules } : {}),
      ...(provider_message ? { provider_message } : {}),
    };
  } catch (error) {
    ctx.webhooksWaiting?.(undefined); // whatever it did, it did not say
    ctx.log.error("could not record a transmit outcome", {
      kind: kind.kind,
      document_id: entry.document_id,
      error,
    });
    return {
      document_id: entry.document_id,
      status: "en_proceso",
      code: "outcome_unknown",
      message: "the outcome could not be saved; use /refresh to read it from the authority",
    };
  }
}

/**
 * A document the claim issued anew (sent afresh on a later day than its stamp, with nothing of it at
 * the provider that could still be accepted: DESIGN §12) says so in its message, whatever came of it.
 */
function restamped(entry: Claimed, outcome: RecordedOutcome): RecordedOutcome {
  const before = entry.restamped_from;
  if (!before) return outcome;
  const { issue_date, issue_time } = entry.document;
  const now = `${issue_date} ${isoTimeWithOffset(issue_time)}`;
  return {
    ...outcome,
    message:
      `${outcome.message}; issued anew on ${now}: it was dated ${before.issue_date}, a day it can no ` +
      "longer be signed on, and nothing of it at the authority could still be accepted",
    detail: { ...outcome.detail, restamped_from: before },
  };
}

/** Whether (and under which attempt's key) a submit may have reached the provider. */
interface Progress {
  submittedWith: number | null;
}

async function decide<K extends DocumentKind>(
  ctx: TransmitContext,
  kind: DocumentKindSpec<K>,
  orgId: string,
  entry: Claimed<K>,
  progress: Progress,
): Promise<Decided> {
  // A document that may be at the provider is never judged locally first: it is asked about.
  const mayBeThere = entry.action === "query";
  let adapter: TaxAdapter;
  try {
    adapter = await ctx.providers.taxAdapter(orgId, entry.company_id, entry.environment);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return withWords(
      error,
      mayBeThere
        ? unknownOutcome(`could not ask the provider about the earlier attempt: ${error.message}`)
        : notSent(kind, entry, credentialCode(error), error.message, { stage: "credential" }),
    );
  }

  let key = entry.attempt;
  if (mayBeThere) {
    let known: DocumentOutcome | null;
    try {
      known = await adapter.query(entry.document_id, lookupOf(kind, entry.document, entry.environment, null));
    } catch (error) {
      if (error instanceof ProviderError || error instanceof DomainError) {
        return withWords(
          error,
          unknownOutcome(`could not confirm the earlier attempt (${error.message}); nothing was re-sent`),
        );
      }
      throw error;
    }
    if (known && known.status !== "rejected") return outcomeFromProvider(kind, known);
    // Never received, or rejected: resend under the key of the submit in doubt. A query answers by
    // reference, so "rejected" may be an earlier attempt's answer while this key is still on its
    // way; under the same key the provider answers from its store what it decided for it, or
    // decides it now, and the late copy is deduplicated. A new key is taken only once the provider
    // has answered a submit of this one (the claim then sends afresh).
    key = entry.submitted_attempt ?? entry.attempt;
  }
  const prepared = await kind.prepare(entry.document, entry.environment);
  if (!prepared.ok) {
    const rules = prepared.rules ?? [];
    const ids = [...new Set(rules.map((r) => r.rule))];
    const which =
      ids.length > 0 ? `; the authority would reject it (${ids.join(", ")}; see authority_rules)` : "";
    const outcome = notSent(kind, entry, "check_failed", prepared.problems.join("; ") + which, {
      stage: "checks",
    });
    return rules.length > 0 ? { ...outcome, authority_rules: rules } : outcome;
  }
  const problem = adapter.precheck?.(prepared.request);
  if (problem) return notSent(kind, entry, "check_failed", problem, { stage: "checks" });
  // Issued at the claim, signed at the send: a day that ends in between (a claim just before
  // midnight in Colombia, its turn in the batch just after) would be signed on another day than its
  // issue date, which DIAN refuses (FAD09e). A fresh send is held back instead, definitely unsent, so
  // the next /transmit issues it on the new day. (What may be at the provider keeps its stamp.)
  const today = colombianDate(ctx.clock.now());
  if (entry.action === "send" && entry.document.issue_date !== today) {
    return notSent(
      kind,
      entry,
      "not_sent_retry",
      `it was issued on ${entry.document.issue_date} in Colombia and that day ended before it could be ` +
        "signed, which DIAN refuses (FAD09e); send it again: it will be issued today",
      { stage: "issue_date" },
    );
  }
  return submit(ctx, kind, entry, adapter, prepared.request, key, progress);
}

async function submit(
  ctx: TransmitContext,
  kind: DocumentKindSpec,
  entry: Claimed,
  adapter: TaxAdapter,
  request: SubmitDocumentRequest,
  key: number,
  progress: Progress,
): Promise<Decided> {
  const sleep = ctx.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  for (let retry = 0; ; retry++) {
    try {
      progress.submittedWith = key;
      const answer = await adapter.submit(request, { attempt: key });
      // the provider's answer to this very key: a rejection settles it (nothing under it can be accepted)
      return {
        ...outcomeFromProvider(kind, answer),
        submitted_attempt: key,
        ...(answer.status === "rejected" ? { definite: true } : {}),
      };
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      if (error.maybeProcessed) {
        return withWords(
          error,
          unknownOutcome(
            `${error.message} The outcome is unknown; it will be confirmed before any resend`,
            key,
          ),
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
      return withWords(
        error,
        notSent(kind, entry, refusalCode(error), `the provider refused it: ${error.message}`, {
          kind: error.kind,
        }),
      );
    }
  }
}

/**
 * Nothing reached the provider in this attempt. A document that was never submitted takes its
 * kind's unsent status (an invoice: `pendiente`, editable again), with the reason; one submitted
 * before stays `error`. A fresh send (the claim found nothing in doubt) refused before it left is
 * `definite`: nothing of the document is at the provider. After a query, an earlier submit may
 * still arrive, and the record keeps it in doubt.
 */
function notSent(
  kind: DocumentKindSpec,
  entry: Claimed,
  code: "check_failed" | "credential_required" | "not_sent_retry" | "provider_refused",
  why: string,
  detail: Record<string, unknown> = {},
): RecordedOutcome {
  return {
    status: entry.submitted_attempt === null ? kind.unsent : "error",
    code,
    message: `not sent: ${why}`,
    // a fresh send (nothing earlier in doubt) refused before it left: nothing of it is at the provider
    ...(entry.action === "send" ? { definite: true } : {}),
    detail: { ...detail, outcome: "not_sent" },
  };
}

/** No usable credential (none, one that cannot be opened), or a provider that cannot be reached now. */
function credentialCode(error: DomainError): "credential_required" | "not_sent_retry" {
  return error instanceof ProviderUnavailableError ? "not_sent_retry" : "credential_required";
}

/** A provider's refusal without processing: its credential, its rate limit, or the request itself. */
function refusalCode(error: ProviderError): "credential_required" | "not_sent_retry" | "provider_refused" {
  if (error instanceof ProviderUnauthorizedError) return "credential_required";
  if (error.kind === "rejected" || error.kind === "malformed") return "provider_refused";
  return "not_sent_retry";
}

/** `outcome`, with the provider's own words about `error` beside it, when it gave any. */
function withWords(error: Error, outcome: RecordedOutcome): Decided {
  const words = error instanceof ProviderError ? error.providerMessage : undefined;
  return words ? { ...outcome, provider_message: words } : outcome;
}

function unknownOutcome(message: string, submittedWith?: number): RecordedOutcome {
  return {
    status: "en_proceso",
    code: "outcome_unknown",
    message,
    ...(submittedWith === undefined ? {} : { submitted_attempt: submittedWith }),
    detail: { outcome: "unknown" },
  };
}
