/**
 * reconcile: one run of the scheduled job that settles documents left `en_proceso` (a provider
 * timed out, a call died midway, the authority was still deciding). It picks them in small batches,
 * leased to the run (supabase/migrations/…_reconcile.sql), asks the provider about each — never a
 * blind resend — and records the answer, or gives the document back for the next run when the
 * provider cannot answer. Then it settles the deliveries left `pendiente` past the grace period
 * (their outcome was never recorded) by asking the deliver provider about their reference — never
 * a resend — and retries the deliveries whose retry is due (the provider failed them, or never
 * received them; supabase/migrations/…_delivery_retries.sql), each under its first try's provider
 * reference. Then it sends the webhook messages still due, of every organization (its own
 * settlements' among them: ../../events/drain.ts), and prunes the outbox of events older than a week.
 * It stops inside its time budget: work is only started when it can end before the deadline (each
 * document, open delivery and retry, not only each batch), and what is left is reported. A run the
 * platform kills anyway loses nothing: what it took is held by leases that run out.
 */

import pLimit from "p-limit";
import type { SoftwareMaker } from "../../co/software.ts";
import { type DrainContext, drainWebhooks } from "../../events/drain.ts";
import { DomainError } from "../../kernel/errors.ts";
import type { Logger } from "../../kernel/log.ts";
import type { DocumentKind, Environment, RecordedOutcome } from "../../kernel/rows.ts";
import type { DbScope } from "../../ports/db/port.ts";
import type { ProviderDirectory } from "../../ports/providers/directory.ts";
import { ProviderError, ProviderRateLimitedError } from "../../ports/providers/errors.ts";
import type { DocumentStore } from "../../ports/storage.ts";
import { DELIVERY_STEPS, deliverDocument } from "../documents/deliver.ts";
import { lookupOf } from "../documents/lookup.ts";
import { neverReceived, outcomeFromProvider, storable } from "../documents/outcome.ts";
import { kindSpec } from "../kinds.ts";

/**
 * The most provider calls one query of a document makes: DIAN direct asks a test-set batch by its
 * ZipKey (GetStatusZip) and then by the document's key (GetStatus).
 */
const QUERY_CALLS = 2;

export interface ReconcileContext {
  serviceDb: DbScope;
  providers: ProviderDirectory;
  /** Where PDFs and AttachedDocuments are kept: a delivery retry reads them from there. */
  documents: DocumentStore;
  /** The software printed on a PDF a delivery retry renders (config `software`). */
  software?: SoftwareMaker;
  log: Logger;
  /** Milliseconds; tests pass a fake. */
  now?: () => number;
  /** How webhook messages are sent; absent, the run sends none (and prunes nothing). */
  webhooks?: Omit<DrainContext, "serviceDb" | "log" | "now">;
}

/** Events are kept this many days: past the 3 days a webhook message is retried. */
export const EVENTS_KEPT_DAYS = 7;
/** Events a run prunes at most: a run's worth of a busy week, not a backlog's. */
const PRUNE_LIMIT = 50_000;

export interface ReconcileOptions {
  budgetMs: number;
  batchSize: number;
  graceSeconds: number;
  /** Provider queries at once. */
  concurrency: number;
  providerTimeoutMs: number;
}

export interface ReconcileResult {
  run_id: string;
  picked: number;
  settled: number;
  still_open: number;
  deliveries_retried: number;
  /** Webhook messages this run delivered, and the attempts that failed (each retried later). */
  webhooks_delivered: number;
  webhooks_failed: number;
  took_ms: number;
}

/** A delivery left `pendiente`, as picked: the provider that was asked, and the reference it was sent under. */
interface OpenDelivery {
  delivery_id: string;
  org_id: string;
  document_type: DocumentKind;
  document_id: string;
  send_id: string;
  company_id: string;
  environment: Environment | null;
}

interface Picked {
  kind: DocumentKind;
  document_id: string;
  org_id: string;
  company_id: string;
  environment: Environment | null;
}

export async function reconcile({
  ctx,
  options,
}: {
  ctx: ReconcileContext;
  options: ReconcileOptions;
}): Promise<ReconcileResult> {
  const now = ctx.now ?? (() => performance.now());
  const started = now();
  const deadline = started + options.budgetMs;
  const db = ctx.serviceDb;
  const { run_id: runId } = await db.call("einv_reconcile_begin", {});
  let settled = 0;
  const errors: { kind: string; document_id: string; error: string }[] = [];
  /** Providers that asked us to slow down (429): not asked again in this run. */
  const slowDown = new Set<string>();
  const limit = pLimit(options.concurrency);
  // the lease outlives the run's budget and the last query's timeout, so no other run takes a
  // document back while this one may still be asking about it
  const leaseSeconds = Math.ceil((options.budgetMs + 2 * options.providerTimeoutMs) / 1000) + 30;

  const settle = async (doc: Picked): Promise<void> => {
    const kind = kindSpec(doc.kind);
    const release = () =>
      db.call("einv_reconcile_release", {
        p_run_id: runId,
        p_org_id: doc.org_id,
        p_kind: doc.kind,
        p_document_id: doc.document_id,
      });
    const provider = `${doc.org_id}/${doc.company_id}/${doc.environment}`;
    if (
      !doc.environment ||
      slowDown.has(provider) ||
      now() + QUERY_CALLS * options.providerTimeoutMs > deadline
    ) {
      await release();
      return;
    }
    let outcome: Partial<RecordedOutcome>;
    try {
      const adapter = await ctx.providers.taxAdapter(doc.org_id, doc.company_id, doc.environment);
      const known = await adapter.query(doc.document_id, async () => {
        // read only by an adapter that finds documents by their content (DIAN: by CUFE/CUDE)
        const record = await db.call("einv_document_get", {
          p_org_id: doc.org_id,
          p_kind: doc.kind,
          p_document_id: doc.document_id,
        });
        const environment = doc.environment as Environment; // checked above
        return lookupOf(kind, record.document, environment, record.fiscal.provider_reference)();
      });
      outcome = known ? outcomeFromProvider(kind, known) : neverReceived(kind);
    } catch (error) {
      if (error instanceof ProviderRateLimitedError) slowDown.add(provider);
      if (!(error instanceof ProviderError) && !(error instanceof DomainError)) throw error;
      errors.push({ kind: doc.kind, document_id: doc.document_id, error: error.message });
      await release();
      return;
    }
    const recorded = await db.call("einv_reconcile_record", {
      p_run_id: runId,
      p_org_id: doc.org_id,
      p_kind: doc.kind,
      p_document_id: doc.document_id,
      p_outcome: storable(outcome),
    });
    if (recorded.recorded && recorded.status !== "en_proceso") settled++;
  };

  // A batch is picked only when there is time to ask about it.
  while (now() + QUERY_CALLS * options.providerTimeoutMs <= deadline) {
    const picked = (await db.call("einv_reconcile_pick", {
      p_run_id: runId,
      p_limit: options.batchSize,
      p_grace_seconds: options.graceSeconds,
      p_lease_seconds: leaseSeconds,
    })) as Picked[];
    if (picked.length === 0) break;
    const results = await Promise.allSettled(picked.map((doc) => limit(() => settle(doc))));
    for (const [i, result] of results.entries()) {
      if (result.status === "rejected") {
        const doc = picked[i] as Picked;
        ctx.log.error("reconcile could not settle a document", {
          kind: doc.kind,
          document_id: doc.document_id,
          error: result.reason,
        });
        errors.push({ kind: doc.kind, document_id: doc.document_id, error: "internal error" });
      }
    }
    // a batch short of full: nothing more is open
    if (picked.length < options.batchSize) break;
  }

  // Then the deliveries left open: what the provider says becomes their outcome; one it never
  // received is failed and retried below, under the same reference and key.
  const settleDelivery = async (open: OpenDelivery): Promise<void> => {
    // waiting its turn may have eaten the time: it stays leased, and a run after the lease asks
    if (now() + options.providerTimeoutMs > deadline) return;
    const record = (status: "enviada" | "error", message: string, reference: string | null) =>
      db.call("einv_delivery_record", {
        p_org_id: open.org_id,
        p_delivery_id: open.delivery_id,
        p_status: status,
        p_message: storable(message),
        p_provider_reference: reference,
      });
    try {
      if (!open.environment) throw new Error(`a delivery of a ${open.document_type} without an environment`);
      const channel = await ctx.providers.deliveryChannel(open.org_id, open.company_id, open.environment);
      const known = await channel.query(open.send_id);
      if (known) {
        await record(known.status === "sent" ? "enviada" : "error", known.message, known.provider_reference);
      } else {
        await record(
          "error",
          "Not sent: the delivery provider never received this message; it is tried again.",
          null,
        );
        await db.call("einv_delivery_retry_later", {
          p_org_id: open.org_id,
          p_delivery_id: open.delivery_id,
          p_send_id: open.send_id,
        });
      }
      deliveriesSettled++;
    } catch (error) {
      // the delivery stays open; its lease runs out and a later run asks again
      if (!(error instanceof ProviderError) && !(error instanceof DomainError)) {
        ctx.log.error("reconcile could not settle a delivery", { delivery_id: open.delivery_id, error });
      }
      const message = error instanceof DomainError ? error.message : "internal error";
      errors.push({ kind: "delivery", document_id: open.document_id, error: message });
    }
  };
  let deliveriesSettled = 0;
  while (now() + options.providerTimeoutMs <= deadline) {
    const open = await db.call("einv_reconcile_pick_open_deliveries", {
      p_run_id: runId,
      p_limit: options.batchSize,
      p_grace_seconds: options.graceSeconds,
      p_lease_seconds: leaseSeconds,
    });
    if (open.length === 0) break;
    await Promise.all(open.map((delivery) => limit(() => settleDelivery(delivery))));
    if (open.length < options.batchSize) break;
  }
  if (deliveriesSettled > 0) ctx.log.info("reconcile settled open deliveries", { count: deliveriesSettled });

  // Then the deliveries whose retry is due, if a retry (each of its steps: the render, the XML, the
  // e-mail…) can end in time.
  const retryMs = DELIVERY_STEPS * options.providerTimeoutMs;
  let deliveriesRetried = 0;
  while (now() + retryMs <= deadline) {
    const due = await db.call("einv_reconcile_pick_deliveries", {
      p_run_id: runId,
      p_limit: options.batchSize,
    });
    if (due.length === 0) break;
    await Promise.all(
      due.map((delivery) =>
        limit(async () => {
          // its steps no longer fit: taken, it is due again once the hold ends
          // (einv_reconcile_pick_deliveries)
          if (now() + retryMs > deadline) return;
          deliveriesRetried++;
          try {
            await deliverDocument({
              ctx: {
                serviceDb: db,
                providers: ctx.providers,
                documents: ctx.documents,
                software: ctx.software,
                actorId: delivery.created_by,
                limits: null,
                providerTimeoutMs: options.providerTimeoutMs,
                retry: { of: delivery.delivery_id, sendId: delivery.send_id },
              },
              kind: kindSpec(delivery.document_type),
              input: { org_id: delivery.org_id, document_id: delivery.document_id, to: delivery.to },
            });
          } catch (error) {
            // Recorded on the new delivery (and scheduled again when the provider failed), once one
            // was begun. A retry that failed before it began (its document or its provider could not
            // be read) would otherwise be lost, taken off the schedule: the failed delivery is
            // scheduled again instead (a no-op once a retry of it was begun).
            await db
              .call("einv_delivery_retry_later", {
                p_org_id: delivery.org_id,
                p_delivery_id: delivery.delivery_id,
                p_send_id: delivery.send_id,
              })
              .catch(() => {});
            const message = error instanceof Error ? error.message : "internal error";
            errors.push({ kind: "delivery", document_id: delivery.document_id, error: message });
          }
        }),
      ),
    );
    if (due.length < options.batchSize) break;
  }

  // Then the webhook messages due, every organization's, within what is left of the budget.
  const webhooks = ctx.webhooks
    ? await drainWebhooks(
        { ...ctx.webhooks, serviceDb: db, log: ctx.log, now },
        { orgId: null, batchSize: options.batchSize * 4, budgetMs: deadline - now() },
      )
    : { delivered: 0, failed: 0 };
  if (ctx.webhooks)
    await db.call("einv_events_prune", { p_keep_days: EVENTS_KEPT_DAYS, p_limit: PRUNE_LIMIT });

  const finished = await db.call("einv_reconcile_finish", {
    p_run_id: runId,
    p_settled: settled,
    p_deliveries_retried: deliveriesRetried,
    p_errors: storable(errors),
    p_took_ms: Math.round(now() - started),
  });
  const { took_ms, ...counts } = finished;
  return { ...counts, webhooks_delivered: webhooks.delivered, webhooks_failed: webhooks.failed, took_ms };
}
