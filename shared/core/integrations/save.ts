/**
 * saveCredential (/integrations/save): checks the key with the provider first and stores it only if
 * it authenticates — sealed (AES-256-GCM, the org, company, service and environment as associated
 * data) under the current credentials key, whose id the row records. Without `api_key` the saved key
 * is kept and checked at the saved url (422 when none is saved, or when `url` names another one: a
 * saved key is only sent to its saved url); without `url` or `settings` the saved ones are kept. A key the provider refuses is 422 `credential_rejected`; a provider that
 * cannot be reached, times out or answers garbage is its 502/504 (429 when it is rate limiting), and
 * nothing is stored. The row is written whole in one statement, so concurrent saves leave one
 * consistent row. Every outcome is an event without the key. DIAN mode (`settings.provider` "dian",
 * given or saved) is ./dian-save.ts; its fields (`certificate`, `software_pin`) are refused here.
 */
import { keyHint } from "../../crypto/secret-box.ts";
import { BusinessRuleError } from "../../errors.ts";
import { isDianMode } from "../../providers/dian-mode.ts";
import {
  CredentialRejectedError,
  checkWithProvider,
  identityOf,
  isRefusedUrl,
  openSavedKey,
  recordedUrl,
  type Source,
  urlToCheck,
} from "./check.ts";
import { credentialWhere, type IntegrationContext } from "./context.ts";
import { type DianCredentialInput, refuseDianFields } from "./dian-check.ts";
import { type SaveCredentialResult, saveDianCredential } from "./dian-save.ts";

export interface SaveCredentialInput extends DianCredentialInput {
  settings?: Record<string, unknown> | undefined;
}

export async function saveCredential({
  input,
  ctx,
}: {
  input: SaveCredentialInput;
  ctx: IntegrationContext;
}): Promise<SaveCredentialResult> {
  const row = await ctx.serviceDb.call("einv_integration_get", credentialWhere(input));
  const settings = input.settings ?? row?.settings ?? {};
  if (isDianMode(settings)) return saveDianCredential(input, settings, row, ctx);
  refuseDianFields(input);
  // a DIAN-mode row's sealed certificate is no API key, nor its url a provider's
  const stored = row && !isDianMode(row.settings) ? row : null;
  const url = urlToCheck(input, input.url, stored, input.api_key !== undefined);
  const keySource: Source = input.api_key === undefined ? "saved" : "given";
  let apiKey: string;
  if (input.api_key === undefined) {
    const opened = await openSavedKey(input, stored, ctx.secretBox);
    if (!("key" in opened)) throw new BusinessRuleError(opened.problem);
    apiKey = opened.key;
  } else {
    apiKey = input.api_key;
  }
  const hint = keyHint(apiKey);
  const refuse = (outcome: "rejected" | "unverified" | "refused_url", message: string) =>
    ctx.serviceDb.call("einv_integration_event", {
      ...credentialWhere(input),
      p_event: "credential_save_refused",
      p_outcome: outcome,
      p_message: message,
      p_url: recordedUrl(url.url),
      p_api_key_hint: hint,
      p_key_source: keySource,
      p_actor_id: ctx.actorId,
    });

  let outcome: Awaited<ReturnType<typeof checkWithProvider>>;
  try {
    outcome = await checkWithProvider(input, url, apiKey, ctx);
  } catch (error) {
    if (isRefusedUrl(error)) await refuse("refused_url", (error as Error).message);
    throw error;
  }
  const log = { company_id: input.company_id, service: input.service, environment: input.environment };
  if (outcome.failure) {
    await refuse("unverified", outcome.message);
    ctx.log.info("credential not saved: the provider could not check it", log);
    throw outcome.failure;
  }
  if (!outcome.ok) {
    await refuse("rejected", outcome.message);
    ctx.log.info("credential not saved: the provider rejected it", log);
    throw new CredentialRejectedError(`The key was not saved: ${outcome.message}`, {
      providerMessage: outcome.providerMessage,
    });
  }
  const saved = await ctx.serviceDb.call("einv_integration_save", {
    ...credentialWhere(input),
    // the url as the policy read it (WHATWG-normalised), so what is stored is what was checked
    p_url: new URL(url.url).href,
    p_settings: settings,
    p_api_key_ciphertext: await ctx.secretBox.seal(apiKey, identityOf(input)),
    p_api_key_hint: hint,
    p_key_id: ctx.secretBox.keyId,
    p_key_source: keySource,
    p_message: outcome.message,
    p_actor_id: ctx.actorId,
  });
  ctx.log.info("credential saved", { ...log, key_source: keySource });
  // in the order the contract lists them (the database's JSON orders keys its own way)
  return {
    company_id: saved.company_id,
    service: saved.service,
    environment: saved.environment,
    url: saved.url,
    settings: saved.settings,
    api_key_hint: saved.api_key_hint,
    verified_at: saved.verified_at,
  };
}
