/**
 * A drain: sends the webhook messages the outbox queued whose time has come, and records how each
 * attempt went. Run right after a request that changed something (for its organization only, in the
 * background: ../runtime/background.ts) and by every reconcile run (for every organization).
 *
 * At least once, in order per document: a drain takes deliveries with `for update skip locked` and a
 * lease (supabase/migrations/…_events.sql), each the earliest still pending of its document for its
 * endpoint, so two drains never send one at once and a document's later event waits for its earlier
 * one; an attempt whose outcome cannot be recorded (the database failed after the send) is sent again
 * once its lease runs out, under the same `webhook-id`. Bounded: messages sent at once, a timeout
 * per message, a batch no larger than can end before the drain's deadline (so its lease, which
 * covers the whole batch, holds until each of its messages is sent), and an endpoint that gave no
 * answer once in a drain is not tried again in it (its other messages are recorded as failed, to be
 * retried with the backoff).
 */
import pLimit from "p-limit";
import type { SecretBox } from "../crypto/secret-box.ts";
import type { DocumentEvent } from "../kernel/event.ts";
import type { Logger } from "../kernel/log.ts";
import type { PickedWebhookDelivery } from "../ports/db/catalogue-events.ts";
import type { DbScope } from "../ports/db/port.ts";
import type { Egress } from "../ports/egress/egress.ts";
import { type AttemptResult, sendWebhook } from "./send.ts";
import { signatures, webhookSecretIdentity } from "./signature.ts";

export interface DrainContext {
  serviceDb: DbScope;
  secretBox: SecretBox;
  egress: Egress;
  allowPrivateUrls: boolean;
  /** Per message. */
  timeoutMs: number;
  /** Messages sent at once. */
  concurrency: number;
  log: Logger;
  /** Milliseconds; tests pass a fake. */
  now?: () => number;
}

/** The most deliveries one pick takes, and the longest lease (einv_webhook_pick refuses more). */
export const MAX_PICK = 500;
const MAX_LEASE_SECONDS = 3600;
/** A lease's margin past its last message's timeout: the recording of that message. */
const RECORDING_SECONDS = 30;

export interface DrainOptions {
  /** One organization's deliveries (after its request), or every organization's (null). */
  orgId: string | null;
  /** Deliveries taken at a time (at most MAX_PICK are). */
  batchSize: number;
  /** A batch is taken only as large as its messages can end before this many ms have passed. */
  budgetMs: number;
}

export interface DrainResult {
  delivered: number;
  failed: number;
}

/** Standard Webhooks' body: the event's type and time, and the event itself as `data`. */
export function webhookBody(event: DocumentEvent): string {
  return JSON.stringify({ type: event.type, timestamp: event.occurred_at, data: event });
}

export async function drainWebhooks(ctx: DrainContext, options: DrainOptions): Promise<DrainResult> {
  const now = ctx.now ?? (() => performance.now());
  const deadline = now() + options.budgetMs;
  const limit = pLimit(ctx.concurrency);
  const batchSize = Math.min(options.batchSize, MAX_PICK);
  const down = new Set<string>();
  const result: DrainResult = { delivered: 0, failed: 0 };

  const attempt = async (delivery: PickedWebhookDelivery): Promise<void> => {
    const outcome: AttemptResult = down.has(delivery.webhook_id)
      ? { delivered: false, error: "not sent: the endpoint failed earlier in the same drain" }
      : await send(ctx, delivery);
    if (!outcome.delivered && outcome.status === undefined) down.add(delivery.webhook_id);
    const recorded = await ctx.serviceDb.call("einv_webhook_record", {
      p_delivery_id: delivery.delivery_id,
      p_attempt: delivery.attempt,
      p_outcome: outcome,
    });
    if (outcome.delivered) result.delivered++;
    else result.failed++;
    if (recorded.recorded && recorded.state === "failed") {
      ctx.log.warn("webhook endpoint disabled", { webhook_id: delivery.webhook_id, error: outcome.error });
    }
  };

  for (;;) {
    // A batch's messages go `concurrency` at a time, each within the timeout: only as many are
    // taken as can end before the deadline, and the lease covers the last of them (and its
    // recording), so no other drain takes one while it still waits its turn here.
    const rounds = Math.min(
      Math.floor((deadline - now()) / ctx.timeoutMs),
      Math.floor(((MAX_LEASE_SECONDS - RECORDING_SECONDS) * 1000) / ctx.timeoutMs),
    );
    const take = Math.min(batchSize, rounds * ctx.concurrency);
    if (take < 1) break;
    const leaseSeconds =
      Math.ceil((Math.ceil(take / ctx.concurrency) * ctx.timeoutMs) / 1000) + RECORDING_SECONDS;
    const batch = await ctx.serviceDb.call("einv_webhook_pick", {
      p_org_id: options.orgId,
      p_limit: take,
      p_lease_seconds: leaseSeconds,
    });
    if (batch.length === 0) break;
    const deliveredBefore = result.delivered;
    const settled = await Promise.allSettled(batch.map((delivery) => limit(() => attempt(delivery))));
    for (const outcome of settled) {
      // not recorded: its lease runs out and a later drain sends it again, under the same id
      if (outcome.status === "rejected")
        ctx.log.error("webhook attempt not recorded", { error: outcome.reason });
    }
    // a batch short of full took every due delivery that was not waiting behind an earlier one of
    // its document; those it delivered may have freed the next ones
    if (batch.length < take && result.delivered === deliveredBefore) break;
  }
  return result;
}

/** Signs the event with the endpoint's secrets and sends it once. */
async function send(ctx: DrainContext, delivery: PickedWebhookDelivery): Promise<AttemptResult> {
  const identity = webhookSecretIdentity(delivery.org_id, delivery.webhook_id);
  let secrets: string[];
  try {
    secrets = await Promise.all(delivery.secrets.map((sealed) => ctx.secretBox.open(sealed, identity)));
  } catch {
    return { delivered: false, error: "not sent: the endpoint's secret cannot be opened; rotate it" };
  }
  const body = webhookBody(delivery.event);
  const message = { id: delivery.event.id, timestamp: Math.floor(Date.now() / 1000), body };
  return sendWebhook(
    ctx.egress,
    delivery.url,
    { ...message, signature: await signatures(secrets, message) },
    {
      timeoutMs: ctx.timeoutMs,
      allowPrivateUrls: ctx.allowPrivateUrls,
    },
  );
}
