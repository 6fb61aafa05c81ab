/**
 * What /integrations/test and /integrations/save share: the plan of a check, in either mode. A
 * protocol provider's is planned here — which url and key to check (the given ones, or the saved ones
 * for what is not given: a saved key only at its saved url) — and its check asked of the adapter
 * (`ctx.checks.protocolKey`) over a connection to a checked address; DIAN mode's plan is the DIAN
 * adapter's (`ctx.checks.dian`). A provider that cannot be reached, times out or answers garbage is
 * an outcome with a message saying which, never an exception.
 */
import { keyHint, type SecretBox, SecretBoxError } from "../../crypto/secret-box.ts";
import { BusinessRuleError, FieldError } from "../../kernel/errors.ts";
import type { StoredCredential } from "../../ports/db/catalogue.ts";
import { reachChecked } from "../../ports/providers/credential-url.ts";
import {
  type CredentialInput,
  type CredentialTarget,
  type IntegrationContext,
  identityOf,
  isDianMode,
  type PlannedCheck,
  type Source,
  sameUrl,
} from "../../ports/providers/credentials.ts";
import { ProviderError } from "../../ports/providers/errors.ts";

/**
 * The check of `input`: DIAN mode's when the effective settings (given, else saved) say so, else a
 * protocol provider's. For a save, a saved key that cannot be opened is a 422 here; for a test it is
 * the outcome.
 */
export async function planCheck(
  input: CredentialInput,
  stored: StoredCredential | null,
  ctx: IntegrationContext,
  purpose: "test" | "save",
): Promise<PlannedCheck> {
  const settings = input.settings ?? stored?.settings ?? {};
  if (isDianMode(settings)) return ctx.checks.dian(input, settings, stored, ctx);
  refuseDianFields(input);
  // a DIAN-mode row's sealed certificate is no API key, nor its url a provider's
  const saved = stored && !isDianMode(stored.settings) ? stored : null;
  const url = urlToCheck(input, input.url, saved, input.api_key !== undefined);
  const keySource: Source = input.api_key === undefined ? "saved" : "given";
  const key =
    input.api_key === undefined ? await openSavedKey(input, saved, ctx.secretBox) : { key: input.api_key };
  if (!("key" in key) && purpose === "save") throw new BusinessRuleError(key.problem);
  return {
    mode: "protocol",
    url,
    keySource,
    hint: "key" in key ? keyHint(key.key) : (saved?.api_key_hint ?? ""),
    settings,
    run: async () => {
      if (!("key" in key)) return { ok: false, message: key.problem };
      const reached = await reachChecked(input, url, ctx);
      if (!("fetch" in reached)) return reached;
      try {
        const call = { base: reached.base, fetch: reached.fetch, apiKey: key.key, timeoutMs: ctx.timeoutMs };
        return { ...(await ctx.checks.protocolKey(input, call)), secret: key.key };
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
    },
  };
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

/**
 * The saved key, opened; a 422 when none is saved. `{ problem }` when it is saved but cannot be
 * opened: sealed for another row, or by a credentials key this service no longer has.
 */
async function openSavedKey(
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

/** Outside DIAN mode its fields are refused, naming them (400). */
function refuseDianFields(input: { certificate?: unknown; software_pin?: unknown }): void {
  for (const field of ["certificate", "software_pin"] as const) {
    if (input[field] !== undefined) {
      throw new FieldError(field, 'is taken only in DIAN mode (settings.provider "dian")');
    }
  }
}
