/**
 * saveWebhook (/webhooks/save): creates an endpoint of the organization, or changes one. Its url
 * goes through the provider URL policy first (https, no userinfo, query or fragment, a host that
 * resolves to public addresses only, unless local development allows private ones); a new endpoint
 * gets a signing secret, `whsec_` + 32 random bytes, and so does one whose rotation is asked for
 * (`rotate_secret`); the old secret then signs beside the new one for 24 hours, so receivers can
 * switch without missing a message. A secret is sealed like a provider key (AES-256-GCM, the org and
 * the endpoint as associated data) and answered once, never again. An organization has at most
 * `MAX_WEBHOOKS_PER_ORG` endpoints.
 */

import { newWebhookSecret, webhookSecretIdentity } from "../../events/signature.ts";
import type { EventType } from "../../kernel/event.ts";
import type { WebhookEndpointRow } from "../../ports/db/catalogue-events.ts";
import { checkedWebhookUrl, type WebhookContext } from "./context.ts";

export const MAX_WEBHOOKS_PER_ORG = 10;

export interface SaveWebhookInput {
  org_id: string;
  /** Absent: a new endpoint. */
  webhook_id?: string | undefined;
  /** Required for a new endpoint. */
  url?: string | undefined;
  /** null: every type; absent: every type for a new endpoint, unchanged for another. */
  events?: EventType[] | null | undefined;
  enabled?: boolean | undefined;
  rotate_secret?: boolean | undefined;
}

export type SavedWebhook = WebhookEndpointRow & { secret?: string };

export async function saveWebhook({
  input,
  ctx,
}: {
  input: SaveWebhookInput;
  ctx: WebhookContext;
}): Promise<SavedWebhook> {
  const create = input.webhook_id === undefined;
  const webhookId = input.webhook_id ?? crypto.randomUUID();
  const url = input.url === undefined ? null : await checkedWebhookUrl(ctx, input.url);
  const secret = create || input.rotate_secret ? newWebhookSecret() : undefined;
  const saved = await ctx.serviceDb.call("einv_webhook_save", {
    p_org_id: input.org_id,
    p_webhook_id: webhookId,
    p_create: create,
    p_url: url,
    p_events: input.events ?? null,
    p_events_given: input.events !== undefined,
    p_enabled: input.enabled ?? null,
    p_secret_ciphertext: secret
      ? await ctx.secretBox.seal(secret, webhookSecretIdentity(input.org_id, webhookId))
      : null,
    p_secret_key_id: secret ? ctx.secretBox.keyId : null,
    p_actor_id: ctx.actorId,
    p_max_endpoints: MAX_WEBHOOKS_PER_ORG,
  });
  ctx.log.info(create ? "webhook endpoint created" : "webhook endpoint saved", {
    webhook_id: saved.webhook_id,
    rotated: Boolean(secret) && !create,
  });
  // in the order the contract lists them
  return {
    webhook_id: saved.webhook_id,
    url: saved.url,
    events: saved.events,
    enabled: saved.enabled,
    disabled_reason: saved.disabled_reason,
    ...(secret ? { secret } : {}),
  };
}
