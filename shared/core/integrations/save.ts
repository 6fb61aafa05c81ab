/**
 * saveCredential (/integrations/save): checks the credential first (the mode's adapter, as
 * /integrations/test does) and stores it only if every check passed — its secret (an API key, or DIAN
 * mode's key, certificate and PIN) sealed (AES-256-GCM, the org, company, service and environment as
 * associated data) under the current credentials key, whose id the row records. What is not given is
 * the saved one (a saved secret only at its saved url; 422 when none is saved); without `url` or
 * `settings` the saved ones are kept. A credential the provider or DIAN refuses is 422
 * `credential_rejected`; a provider that cannot be reached, times out or answers garbage is its
 * 502/504 (429 when it is rate limiting), and nothing is stored. The row is written whole in one
 * statement, so concurrent saves leave one consistent row. Every outcome is an event without a
 * secret.
 */
import { CredentialRejectedError } from "../../kernel/errors.ts";
import type { SavedCredential } from "../../ports/db/catalogue.ts";
import { isRefusedUrl } from "../../ports/providers/credential-url.ts";
import {
  type CertificateSummary,
  type CheckResult,
  type CredentialInput,
  type IntegrationContext,
  identityOf,
} from "../../ports/providers/credentials.ts";
import { planCheck, recordedUrl } from "./check.ts";
import { credentialWhere } from "./context.ts";

export type SaveCredentialInput = CredentialInput;

/** A save's answer: in DIAN mode with the certificate it holds. */
export interface SaveCredentialResult extends SavedCredential {
  certificate?: CertificateSummary;
}

export async function saveCredential({
  input,
  ctx,
}: {
  input: SaveCredentialInput;
  ctx: IntegrationContext;
}): Promise<SaveCredentialResult> {
  const row = await ctx.serviceDb.call("einv_integration_get", credentialWhere(input));
  const plan = await planCheck(input, row, ctx, "save");
  const refuse = (outcome: "rejected" | "unverified" | "refused_url", message: string) =>
    ctx.serviceDb.call("einv_integration_event", {
      ...credentialWhere(input),
      p_event: "credential_save_refused",
      p_outcome: outcome,
      p_message: message,
      p_url: recordedUrl(plan.url.url),
      p_api_key_hint: plan.hint,
      p_key_source: plan.keySource,
      p_actor_id: ctx.actorId,
    });

  let outcome: CheckResult;
  try {
    outcome = await plan.run();
  } catch (error) {
    if (isRefusedUrl(error)) await refuse("refused_url", (error as Error).message);
    throw error;
  }
  const log = {
    company_id: input.company_id,
    service: input.service,
    environment: input.environment,
    mode: plan.mode,
  };
  if (outcome.failure) {
    await refuse("unverified", outcome.message);
    ctx.log.info(
      plan.mode === "dian"
        ? "credential not saved: it could not be checked"
        : "credential not saved: the provider could not check it",
      log,
    );
    throw outcome.failure;
  }
  if (!outcome.ok || outcome.secret === undefined) {
    await refuse("rejected", outcome.message);
    ctx.log.info(
      plan.mode === "dian"
        ? "credential not saved: a check failed"
        : "credential not saved: the provider rejected it",
      log,
    );
    const what = plan.mode === "dian" ? "credential" : "key";
    throw new CredentialRejectedError(`The ${what} was not saved: ${outcome.message}`, {
      providerMessage: outcome.providerMessage,
    });
  }
  const saved = await ctx.serviceDb.call("einv_integration_save", {
    ...credentialWhere(input),
    // the url as the policy read it (WHATWG-normalised), so what is stored is what was checked
    p_url: new URL(plan.url.url).href,
    p_settings: plan.settings,
    p_api_key_ciphertext: await ctx.secretBox.seal(outcome.secret, identityOf(input)),
    p_api_key_hint: plan.hint,
    p_key_id: ctx.secretBox.keyId,
    p_key_source: plan.keySource,
    p_message: outcome.message,
    p_actor_id: ctx.actorId,
  });
  ctx.log.info("credential saved", { ...log, key_source: plan.keySource });
  // in the order the contract lists them (the database's JSON orders keys its own way)
  return {
    company_id: saved.company_id,
    service: saved.service,
    environment: saved.environment,
    url: saved.url,
    settings: saved.settings,
    api_key_hint: saved.api_key_hint,
    verified_at: saved.verified_at,
    ...(outcome.certificate ? { certificate: outcome.certificate } : {}),
  };
}
