/**
 * A delivery's bookkeeping, for any kind of document: what a delivery that was begun
 * (`einv_delivery_begin`) is recorded under, how it ends — sent and recorded, or closed as failed
 * before anything was sent — and which failures the reconcile job retries: a provider's (nothing
 * says the buyer got it), under the same provider reference.
 */

import { BusinessRuleError, DomainError } from "../../kernel/errors.ts";
import type { ApiFunctions, DbScope } from "../../ports/db/port.ts";
import {
  type DeliveryChannel,
  type DeliveryMessage,
  type DeliveryOutcome,
  deliveryIdempotencyKey,
} from "../../ports/providers/deliver.ts";
import { ProviderError, ProviderRequestError } from "../../ports/providers/errors.ts";
import { storable } from "./outcome.ts";

interface RecordingContext {
  serviceDb: DbScope;
}

/** The delivery as recorded once sent (or refused by the provider). */
export type DeliveryRecorded = ApiFunctions["einv_delivery_record"]["result"];

/** A delivery begun: what its outcome is recorded under. */
export interface OpenDelivery {
  orgId: string;
  deliveryId: string;
  /** The provider's reference and idempotency key. */
  sendId: string;
}

/**
 * Sends the message and records the outcome. A provider failure is recorded as failed, to be
 * retried, and thrown: the caller still learns that the provider failed (502/504).
 */
export async function sendAndRecord(
  ctx: RecordingContext,
  delivery: OpenDelivery,
  channel: DeliveryChannel,
  message: DeliveryMessage,
): Promise<DeliveryRecorded> {
  let outcome: DeliveryOutcome | ProviderError;
  try {
    outcome = await channel.send(message, { idempotencyKey: deliveryIdempotencyKey(delivery.sendId) });
  } catch (error) {
    if (error instanceof ProviderError) {
      outcome = error;
    } else if (error instanceof ProviderRequestError) {
      // Refused before sending (nothing reached the provider): the stored data breaks the protocol,
      // e.g. a buyer address that is not one. The delivery is closed as failed, the caller told why.
      const problems = error.details.map((d) => `${d.field}: ${d.message}`).join("; ");
      const why = `The e-mail could not be sent: the message is not valid (${problems}).`;
      await recordFailure(ctx, delivery, why);
      throw new BusinessRuleError(why, { cause: error });
    } else {
      // Never leave the delivery `pendiente` behind an unexpected failure.
      await recordFailure(ctx, delivery, "The e-mail could not be sent: internal error.").catch(() => {});
      throw error;
    }
  }
  const sent = !(outcome instanceof ProviderError) && outcome.status === "sent";
  const recorded = await ctx.serviceDb.call("einv_delivery_record", {
    p_org_id: delivery.orgId,
    p_delivery_id: delivery.deliveryId,
    p_status: sent ? "enviada" : "error",
    p_message: storable(outcome.message),
    p_provider_reference: outcome instanceof ProviderError ? null : outcome.provider_reference,
  });
  if (outcome instanceof ProviderError) {
    await retryLater(ctx, delivery);
    throw outcome;
  }
  return recorded;
}

/**
 * A step before sending. When it fails the delivery is closed as failed, unsent, with `notSent`'s
 * words — and after a provider failure left for the reconcile job to retry — and the error goes on.
 */
export async function beforeSending<T>(
  ctx: RecordingContext,
  delivery: OpenDelivery,
  step: Promise<T>,
  notSent: (error: unknown) => string,
): Promise<T> {
  try {
    return await step;
  } catch (error) {
    await recordFailure(ctx, delivery, notSent(error)).catch(() => {});
    if (error instanceof ProviderError) await retryLater(ctx, delivery);
    throw error;
  }
}

/** A failure's reason, when it is one the caller may read. */
export function domainReason(error: unknown): string {
  return error instanceof DomainError ? ` ${error.message}` : "";
}

async function recordFailure(ctx: RecordingContext, delivery: OpenDelivery, message: string) {
  await ctx.serviceDb.call("einv_delivery_record", {
    p_org_id: delivery.orgId,
    p_delivery_id: delivery.deliveryId,
    p_status: "error",
    p_message: message,
    p_provider_reference: null,
  });
}

/** A provider failure (nothing says the buyer got it) is tried again later by the reconcile job. */
async function retryLater(ctx: RecordingContext, delivery: OpenDelivery) {
  await ctx.serviceDb
    .call("einv_delivery_retry_later", {
      p_org_id: delivery.orgId,
      p_delivery_id: delivery.deliveryId,
      p_send_id: delivery.sendId,
    })
    .catch(() => {});
}
