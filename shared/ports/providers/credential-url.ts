/**
 * A credential's url on its way to a check: through the URL policy as written (and a mode's own rule,
 * e.g. DIAN mode's hosts), then its host resolved and every address checked, so the check reaches a
 * checked address only (../egress/egress.ts). Shared by both modes' checks and the core's flows; a
 * refusal happens before anything is opened or sent.
 */
import { RefusedUrlError, SavedUrlRefusedError } from "../../kernel/errors.ts";
import { HostResolutionError, reach, UnsafeProviderUrlError } from "../egress/egress.ts";
import type { FetchLike } from "../egress/exchange.ts";
import { assertProviderUrl } from "../egress/url-policy.ts";
import type { CheckOutcome, CredentialTarget, IntegrationContext, Source } from "./credentials.ts";
import { ProviderUnavailableError, SERVICE_LABEL } from "./errors.ts";

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

/**
 * `checkedUrl`, then its host resolved and every address checked: the fetch that reaches it. Throws
 * as `checkedUrl` does (a name resolving to a private address too); a host that does not resolve is
 * an outcome.
 */
export async function reachChecked(
  target: CredentialTarget,
  url: { url: string; source: Source },
  ctx: Pick<IntegrationContext, "allowPrivateUrls" | "egress" | "timeoutMs">,
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

/** A given url refused is the caller's field (400); a saved one is the row's state (422). */
function refusal(source: Source, why: string): RefusedUrlError | SavedUrlRefusedError {
  return source === "given"
    ? new RefusedUrlError(`The url is not allowed: ${why}.`)
    : new SavedUrlRefusedError(`The saved url cannot be used: ${why}; save the credential again with a url.`);
}

/** Whether the policy refused the url (the event's outcome then says so). */
export function isRefusedUrl(error: unknown): boolean {
  return error instanceof RefusedUrlError || error instanceof SavedUrlRefusedError;
}
