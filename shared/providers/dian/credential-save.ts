/**
 * saveCredential in DIAN mode (./save.ts hands it over when the effective settings say
 * `provider: "dian"`): every check of ./dian-check.ts first — the certificate opens, is the
 * company's and in force, and DIAN knows the software and its ranges — and only then the sealed form
 * (the opened key, the certificate and the PIN, as `openDianCredential` reads them) is stored in the
 * row's ciphertext column, under the current credentials key, the row's identity as associated
 * data: so `credentials:reseal` re-seals it like any key. A check that fails is 422
 * `credential_rejected`; DIAN not answering is its 502/504; nothing is stored. The answer and the
 * events show the certificate (subject, NIT, serial, expiry), never the password, PIN or key;
 * `api_key_hint` is "" (there is no API key).
 */

import {
  CredentialRejectedError,
  identityOf,
  isRefusedUrl,
  recordedUrl,
} from "../../core/integrations/check.ts";
import { credentialWhere, type IntegrationContext } from "../../core/integrations/context.ts";
import type { SavedCredential, StoredCredential } from "../../ports/db/catalogue.ts";
import {
  type CertificateSummary,
  checkDian,
  type DianCredentialInput,
  type DianOutcome,
  planDian,
} from "./credential-check.ts";

/** A save's answer: in DIAN mode with the certificate it holds. */
export interface SaveCredentialResult extends SavedCredential {
  certificate?: CertificateSummary;
}

export async function saveDianCredential(
  input: DianCredentialInput,
  settings: Record<string, unknown>,
  stored: StoredCredential | null,
  ctx: IntegrationContext,
): Promise<SaveCredentialResult> {
  const plan = planDian(input, settings, stored);
  const refuse = (outcome: "rejected" | "unverified" | "refused_url", message: string) =>
    ctx.serviceDb.call("einv_integration_event", {
      ...credentialWhere(input),
      p_event: "credential_save_refused",
      p_outcome: outcome,
      p_message: message,
      p_url: recordedUrl(plan.url.url),
      p_api_key_hint: "",
      p_key_source: plan.keySource,
      p_actor_id: ctx.actorId,
    });

  let outcome: DianOutcome;
  try {
    outcome = await checkDian(input, plan, ctx);
  } catch (error) {
    if (isRefusedUrl(error)) await refuse("refused_url", (error as Error).message);
    throw error;
  }
  const log = {
    company_id: input.company_id,
    service: input.service,
    environment: input.environment,
    mode: "dian",
  };
  if (outcome.failure) {
    await refuse("unverified", outcome.message);
    ctx.log.info("credential not saved: it could not be checked", log);
    throw outcome.failure;
  }
  if (!outcome.ok || !outcome.plaintext || !outcome.certificate) {
    await refuse("rejected", outcome.message);
    ctx.log.info("credential not saved: a check failed", log);
    throw new CredentialRejectedError(`The credential was not saved: ${outcome.message}`);
  }
  const saved = await ctx.serviceDb.call("einv_integration_save", {
    ...credentialWhere(input),
    p_url: new URL(plan.url.url).href,
    p_settings: plan.settings,
    p_api_key_ciphertext: await ctx.secretBox.seal(outcome.plaintext, identityOf(input)),
    p_api_key_hint: "",
    p_key_id: ctx.secretBox.keyId,
    p_key_source: plan.keySource,
    p_message: outcome.message,
    p_actor_id: ctx.actorId,
  });
  ctx.log.info("credential saved", { ...log, key_source: plan.keySource });
  return {
    company_id: saved.company_id,
    service: saved.service,
    environment: saved.environment,
    url: saved.url,
    settings: saved.settings,
    api_key_hint: saved.api_key_hint,
    verified_at: saved.verified_at,
    certificate: outcome.certificate,
  };
}
