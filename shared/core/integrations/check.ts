/**
 * What /integrations/test and /integrations/save share: which url and key to check (the given ones
 * or the saved ones), the URL policy applied before anything is sent — as written, then every
 * address the host resolves to — and the provider's credential check over a connection to a checked
 * address. A provider that cannot be reached, times out or answers garbage is an outcome with a
 * message saying which, never an exception; the key never appears in a message (the transport cuts
 * it out of whatever the provider says).
 */

import { type CredentialIdentity, type SecretBox, SecretBoxError } from "../../crypto/secret-box.ts";
import type { StoredCredential } from "../../db/catalogue.ts";
import { BusinessRuleError, DomainError, RefusedUrlError } from "../../errors.ts";
import { HostResolutionError, reach, UnsafeProviderUrlError } from "../../providers/egress.ts";
import { ProviderError, ProviderUnavailableError, SERVICE_LABEL } from "../../providers/errors.ts";
import { createProviderTransport, type FetchLike } from "../../providers/transport.ts";
import { assertProviderUrl } from "../../providers/url-policy.ts";
import type { CredentialTarget, IntegrationContext } from "./context.ts";

/** The saved url, refused by the policy as it stands now (422: the fix is to save another). */
export class SavedUrlRefusedError extends BusinessRuleError {}

/** The provider says the key does not authenticate (422). */
export class CredentialRejectedError extends DomainError {
  readonly code = "credential_rejected";
  /** The provider's own words about the key, answered beside ours as `provider_message`. */
  readonly providerMessage: string | undefined;

  constructor(message: string, options: { providerMessage?: string | undefined } = {}) {
    super(message);
    this.providerMessage = options.providerMessage;
  }
}

export type Source = "given" | "saved";

export interface CheckOutcome {
  ok: boolean;
  /** Ours, in English. */
  message: string;
  /** The provider's own words (its verdict on the key, or about its failure), when it gave any. */
  providerMessage?: string;
  /**
   * Why there is no verdict: the provider gave no usable answer (timeout, unreachable, garbage, 5xx,
   * 429), or (DIAN mode) the check cannot be made here.
   */
  failure?: DomainError;
}

/**
 * The url to check: the given one, else the saved one; a 422 when there is neither. A saved key is
 * only ever sent to its saved url: without `api_key`, a given url must be the saved one (compared as
 * WHATWG URLs, the form it is stored in), else a 422 saying the key must come with it — nothing is
 * sent, so an admin session cannot make the service hand the saved key to a server of its choosing.
 */
export function urlToCheck(
  target: CredentialTarget,
  given: string | undefined,
  stored: StoredCredential | null,
  keyGiven: boolean,
): { url: string; source: Source } {
  if (given !== undefined) {
    if (!keyGiven && stored?.api_key_ciphertext && !sameUrl(given, stored.url)) {
      throw new BusinessRuleError(
        `The saved API key of the company's ${target.service} credential in ${target.environment} is only sent to its saved url; to use another url, send api_key with it.`,
      );
    }
    return { url: given, source: "given" };
  }
  if (stored?.url) return { url: stored.url, source: "saved" };
  throw new BusinessRuleError(
    `No url was given and none is saved for the company's ${target.service} credential in ${target.environment}; send url.`,
  );
}

/**
 * A url as events record it: scheme, host and path. Never userinfo, a query or a fragment (where
 * tokens get pasted), even of a url the policy refused; null when it is not a url at all.
 */
export function recordedUrl(raw: string): string | null {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return null;
  }
}

/** Whether a given url is the saved one, compared as WHATWG URLs (the form it is stored in). */
export function sameUrl(given: string, saved: string | null): boolean {
  if (!saved) return false;
  try {
    return new URL(given).href === new URL(saved).href;
  } catch {
    return false;
  }
}

/**
 * The saved key, opened; a 422 when none is saved. `{ problem }` when it is saved but cannot be
 * opened: sealed for another row, or by a credentials key this service no longer has.
 */
export async function openSavedKey(
  target: CredentialTarget,
  stored: StoredCredential | null,
  secretBox: SecretBox,
): Promise<{ key: string } | { problem: string }> {
  if (!stored?.api_key_ciphertext) {
    throw new BusinessRuleError(
      `No API key is saved for the company's ${target.service} credential in ${target.environment}; send api_key.`,
    );
  }
  try {
    return { key: await secretBox.open(stored.api_key_ciphertext, identityOf(target)) };
  } catch (error) {
    if (error instanceof SecretBoxError) {
      return {
        problem: `The saved API key cannot be opened (${error.message}); save it again with api_key.`,
      };
    }
    throw error;
  }
}

export function identityOf(target: CredentialTarget): CredentialIdentity {
  return {
    org_id: target.org_id,
    company_id: target.company_id,
    service: target.service,
    environment: target.environment,
  };
}

/**
 * Applies the URL policy to `url` and asks the provider whether `apiKey` authenticates. Throws
 * RefusedUrlError (a given url) or SavedUrlRefusedError (a saved one) when the policy refuses it, before
 * anything is sent; every provider failure is an outcome.
 */
export async function checkWithProvider(
  target: CredentialTarget,
  url: { url: string; source: Source },
  apiKey: string,
  ctx: IntegrationContext,
): Promise<CheckOutcome> {
  const reached = await reachChecked(target, url, ctx);
  if (!("fetch" in reached)) return reached;
  const transport = createProviderTransport(target.service, "integrations", {
    baseUrl: reached.base.href,
    apiKey,
    timeoutMs: ctx.timeoutMs,
    fetch: reached.fetch,
  });
  try {
    const check = await transport.checkCredential();
    return {
      ok: check.ok,
      message: check.message,
      ...(check.providerMessage ? { providerMessage: check.providerMessage } : {}),
    };
  } catch (error) {
    if (error instanceof ProviderError) {
      return {
        ok: false,
        message: error.message,
        failure: error,
        ...(error.providerMessage ? { providerMessage: error.providerMessage } : {}),
      };
    }
    throw error;
  }
}

/**
 * `url` through the URL policy as written, and through `rule` (a further refusal, e.g. DIAN mode's
 * hosts). Throws RefusedUrlError (a given url) or SavedUrlRefusedError (a saved one).
 */
export function checkedUrl(
  url: { url: string; source: Source },
  ctx: Pick<IntegrationContext, "allowPrivateUrls">,
  rule: (url: URL) => string | null = () => null,
): URL {
  let base: URL;
  try {
    base = assertProviderUrl(url.url, { allowPrivate: ctx.allowPrivateUrls });
  } catch (error) {
    if (error instanceof UnsafeProviderUrlError) throw refusal(url.source, error.message);
    throw error;
  }
  const problem = rule(base);
  if (problem) throw refusal(url.source, problem);
  return base;
}

/** A given url refused is the caller's field (400); a saved one is the row's state (422). */
function refusal(source: Source, why: string): RefusedUrlError | SavedUrlRefusedError {
  return source === "given"
    ? new RefusedUrlError(`The url is not allowed: ${why}.`)
    : new SavedUrlRefusedError(`The saved url cannot be used: ${why}; save the credential again with a url.`);
}

/**
 * `checkedUrl`, then its host resolved and every address checked: the fetch that reaches it. Throws
 * as `checkedUrl` does (a name resolving to a private address too); a host that does not resolve is
 * an outcome.
 */
export async function reachChecked(
  target: CredentialTarget,
  url: { url: string; source: Source },
  ctx: IntegrationContext,
  rule?: (url: URL) => string | null,
): Promise<{ base: URL; fetch: FetchLike } | CheckOutcome> {
  const base = checkedUrl(url, ctx, rule);
  try {
    const fetch = await reach(ctx.egress, base, {
      allowPrivate: ctx.allowPrivateUrls,
      timeoutMs: ctx.timeoutMs,
    });
    return { base, fetch };
  } catch (error) {
    if (error instanceof UnsafeProviderUrlError) throw refusal(url.source, error.message);
    if (error instanceof HostResolutionError) {
      const failure = new ProviderUnavailableError(
        `The ${SERVICE_LABEL[target.service]} could not be reached: ${error.message}.`,
        { service: target.service, operation: "check_credential", maybeProcessed: false, cause: error },
      );
      return { ok: false, message: failure.message, failure };
    }
    throw error;
  }
}

/** Whether the policy refused the url (the event's outcome then says so). */
export function isRefusedUrl(error: unknown): boolean {
  return error instanceof RefusedUrlError || error instanceof SavedUrlRefusedError;
}
