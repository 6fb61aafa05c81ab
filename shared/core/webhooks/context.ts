/**
 * What the webhook operations take — the service's database scope (endpoints are service-only), the
 * SecretBox their secrets are sealed with, the egress their messages leave through, the url policy's
 * setting, the timeout, who is acting and a logger — picked out of an operation's context.
 */
import type { SecretBox } from "../../crypto/secret-box.ts";
import { RefusedUrlError } from "../../kernel/errors.ts";
import type { Logger } from "../../kernel/log.ts";
import type { DbScope } from "../../ports/db/port.ts";
import type { Egress } from "../../ports/egress/egress.ts";
import { HostResolutionError, reach, UnsafeProviderUrlError } from "../../ports/egress/egress.ts";
import { assertProviderUrl } from "../../ports/egress/url-policy.ts";

export interface WebhookContext {
  serviceDb: DbScope;
  secretBox: SecretBox;
  egress: Egress;
  allowPrivateUrls: boolean;
  timeoutMs: number;
  actorId: string;
  log: Logger;
}

interface OperationParts {
  serviceDb: DbScope;
  actorId: string;
  log: Logger;
  deps: {
    secretBox: SecretBox;
    egress: Egress;
    config: { providers: { allowPrivateUrls: boolean }; webhooks: { timeoutMs: number } };
  };
}

export function webhookContext(op: OperationParts): WebhookContext {
  return {
    serviceDb: op.serviceDb,
    secretBox: op.deps.secretBox,
    egress: op.deps.egress,
    allowPrivateUrls: op.deps.config.providers.allowPrivateUrls,
    timeoutMs: op.deps.config.webhooks.timeoutMs,
    actorId: op.actorId,
    log: op.log,
  };
}

/**
 * The url as the policy reads it (WHATWG-normalised), once its host resolved to public addresses
 * only; a RefusedUrlError (400 naming `url`) otherwise. The same check runs again before every
 * message, on the address it is sent to: a name may resolve elsewhere later.
 */
export async function checkedWebhookUrl(ctx: WebhookContext, raw: string): Promise<string> {
  try {
    const url = assertProviderUrl(raw, { allowPrivate: ctx.allowPrivateUrls, noun: "webhook" });
    await reach(ctx.egress, url, {
      allowPrivate: ctx.allowPrivateUrls,
      timeoutMs: ctx.timeoutMs,
      noun: "webhook",
    });
    return url.href;
  } catch (error) {
    if (error instanceof UnsafeProviderUrlError || error instanceof HostResolutionError) {
      throw new RefusedUrlError(`The url is not allowed: ${error.message}.`);
    }
    throw error;
  }
}
