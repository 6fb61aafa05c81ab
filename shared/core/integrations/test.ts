/**
 * testCredential (/integrations/test): does this key work? The given key and url, or what is saved
 * for whatever is not given, checked with the provider's credential check (the saved key only at the
 * saved url). The answer is an outcome
 * whether the key works or not — a provider that cannot be reached, times out or answers garbage is
 * `ok: false` with a message saying which — and an event records who tested what, and how it went.
 * Only a url the policy refuses (400, nothing sent), an unknown company (404) or nothing to test
 * (422) are errors. DIAN mode (`settings.provider` "dian", given or saved) is ./dian-test.ts; its
 * fields (`certificate`, `software_pin`) are refused here.
 */
import { keyHint } from "../../crypto/secret-box.ts";
import { isDianMode } from "../../providers/dian-mode.ts";
import type { ProviderService } from "../../providers/errors.ts";
import type { Environment } from "../../providers/protocol.ts";
import {
  checkWithProvider,
  isRefusedUrl,
  openSavedKey,
  recordedUrl,
  type Source,
  urlToCheck,
} from "./check.ts";
import { credentialWhere, type IntegrationContext } from "./context.ts";
import {
  type CertificateSummary,
  type CredentialWarning,
  type DianCredentialInput,
  refuseDianFields,
} from "./dian-check.ts";
import { testDianCredential } from "./dian-test.ts";

export interface TestCredentialInput extends DianCredentialInput {
  /** The settings to test with (DIAN mode's decide what is checked); left out, the saved ones. */
  settings?: Record<string, unknown> | undefined;
}

export interface TestCredentialResult {
  ok: boolean;
  company_id: string;
  service: ProviderService;
  environment: Environment;
  message: string;
  checked_at: string;
  /** DIAN mode: the certificate tested, once it opened. */
  certificate?: CertificateSummary;
  /** DIAN mode: what to fix whatever the verdict (a PIN a CUDE gives away). */
  warnings?: CredentialWarning[];
  /** The provider's (or DIAN's) own words about the key or its failure, beside our `message`. */
  provider_message?: string;
}

export async function testCredential({
  input,
  ctx,
}: {
  input: TestCredentialInput;
  ctx: IntegrationContext;
}): Promise<TestCredentialResult> {
  const row = await ctx.serviceDb.call("einv_integration_get", credentialWhere(input));
  const settings = input.settings ?? row?.settings ?? {};
  if (isDianMode(settings)) {
    const outcome = await testDianCredential(input, settings, row, ctx);
    const { certificate, warnings, providerMessage, ...verdict } = outcome;
    return {
      ...verdict,
      ...answerOf(input, ctx),
      ...(certificate ? { certificate } : {}),
      ...(warnings ? { warnings } : {}),
      ...(providerMessage ? { provider_message: providerMessage } : {}),
    };
  }
  refuseDianFields(input);
  // a DIAN-mode row's sealed certificate is no API key, nor its url a provider's
  const stored = row && !isDianMode(row.settings) ? row : null;
  const url = urlToCheck(input, input.url, stored, input.api_key !== undefined);
  const keySource: Source = input.api_key === undefined ? "saved" : "given";
  const hint = input.api_key === undefined ? (stored?.api_key_hint ?? null) : keyHint(input.api_key);
  const record = (outcome: "ok" | "failed" | "refused_url", message: string) =>
    ctx.serviceDb.call("einv_integration_event", {
      ...credentialWhere(input),
      p_event: "credential_tested",
      p_outcome: outcome,
      p_message: message,
      p_url: recordedUrl(url.url),
      p_api_key_hint: hint,
      p_key_source: keySource,
      p_actor_id: ctx.actorId,
    });

  const key =
    input.api_key === undefined ? await openSavedKey(input, stored, ctx.secretBox) : { key: input.api_key };
  let outcome: { ok: boolean; message: string; providerMessage?: string };
  try {
    outcome =
      "key" in key ? await checkWithProvider(input, url, key.key, ctx) : { ok: false, message: key.problem };
  } catch (error) {
    if (isRefusedUrl(error)) await record("refused_url", (error as Error).message);
    throw error;
  }
  await record(outcome.ok ? "ok" : "failed", outcome.message);
  ctx.log.info("credential tested", {
    company_id: input.company_id,
    service: input.service,
    environment: input.environment,
    ok: outcome.ok,
    key_source: keySource,
  });
  return {
    ok: outcome.ok,
    message: outcome.message,
    ...answerOf(input, ctx),
    ...(outcome.providerMessage ? { provider_message: outcome.providerMessage } : {}),
  };
}

/** The answer's fields besides the verdict, in the order the contract lists them. */
function answerOf(input: TestCredentialInput, ctx: IntegrationContext) {
  return {
    company_id: input.company_id,
    service: input.service,
    environment: input.environment,
    checked_at: (ctx.now?.() ?? new Date()).toISOString(),
  };
}
