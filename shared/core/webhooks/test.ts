/**
 * testWebhook (/webhooks/test): sends one `ping` to an endpoint of the organization, signed with its
 * secrets and through the same egress, policy and bounds as every message, and answers what the
 * endpoint did: `{ ok, status, message }`, HTTP 200 whether it worked or not. A disabled endpoint
 * can be tested too (before enabling it again). A ping is not an event: it is neither stored nor
 * retried.
 */
import { SecretBoxError } from "../../crypto/secret-box.ts";
import { sendWebhook } from "../../events/send.ts";
import { signatures, webhookSecretIdentity } from "../../events/signature.ts";
import { BusinessRuleError } from "../../kernel/errors.ts";
import type { WebhookContext } from "./context.ts";

export interface WebhookTestResult {
  ok: boolean;
  /** The endpoint's HTTP status; null when none came. */
  status: number | null;
  message: string;
}

export async function testWebhook({
  input,
  ctx,
}: {
  input: { org_id: string; webhook_id: string };
  ctx: WebhookContext;
}): Promise<WebhookTestResult> {
  const endpoint = await ctx.serviceDb.call("einv_webhook_get", {
    p_org_id: input.org_id,
    p_webhook_id: input.webhook_id,
  });
  const identity = webhookSecretIdentity(input.org_id, input.webhook_id);
  const secrets = await Promise.all(
    endpoint.secrets.map((sealed) => ctx.secretBox.open(sealed, identity)),
  ).catch((error: unknown) => {
    if (!(error instanceof SecretBoxError)) throw error;
    throw new BusinessRuleError(
      `The endpoint's secret cannot be opened (${error.message}); save it with rotate_secret: true for a new one.`,
    );
  });
  const body = JSON.stringify({
    type: "ping",
    timestamp: new Date().toISOString(),
    data: { webhook_id: endpoint.webhook_id, org_id: input.org_id },
  });
  const message = {
    id: `ping_${crypto.randomUUID().replaceAll("-", "")}`,
    timestamp: Math.floor(Date.now() / 1000),
    body,
  };
  const result = await sendWebhook(
    ctx.egress,
    endpoint.url,
    { ...message, signature: await signatures(secrets, message) },
    {
      timeoutMs: ctx.timeoutMs,
      allowPrivateUrls: ctx.allowPrivateUrls,
    },
  );
  return {
    ok: result.delivered,
    status: result.status ?? null,
    message: result.delivered
      ? `The endpoint took the ping (HTTP ${result.status}).`
      : `The ping was not taken: ${result.error ?? "unknown failure"}.`,
  };
}
