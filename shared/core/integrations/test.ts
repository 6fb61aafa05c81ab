/**
 * testCredential (/integrations/test): does this credential work? The given key and url (or, in DIAN
 * mode, certificate and PIN), or what is saved for whatever is not given, checked by the mode's
 * adapter (the saved secrets only at the saved url). The answer is an outcome whether the credential
 * works or not — a provider that cannot be reached, times out or answers garbage is `ok: false` with
 * a message saying which — and an event records who tested what, and how it went, never a secret.
 * Only a url the policy refuses (400, nothing sent), a field the mode does not take (400), an unknown
 * company (404) or nothing to test (422) are errors.
 */
import { isRefusedUrl } from "../../ports/providers/credential-url.ts";
import type {
  CertificateSummary,
  CheckResult,
  CredentialInput,
  CredentialWarning,
  IntegrationContext,
} from "../../ports/providers/credentials.ts";
import type { ProviderService } from "../../ports/providers/errors.ts";
import type { Environment } from "../../ports/providers/protocol.ts";
import { planCheck, recordedUrl } from "./check.ts";
import { credentialWhere } from "./context.ts";

export type TestCredentialInput = CredentialInput;

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
  const plan = await planCheck(input, row, ctx, "test");
  const record = (outcome: "ok" | "failed" | "refused_url", message: string) =>
    ctx.serviceDb.call("einv_integration_event", {
      ...credentialWhere(input),
      p_event: "credential_tested",
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
    if (isRefusedUrl(error)) await record("refused_url", (error as Error).message);
    throw error;
  }
  await record(outcome.ok ? "ok" : "failed", outcome.message);
  ctx.log.info("credential tested", {
    company_id: input.company_id,
    service: input.service,
    environment: input.environment,
    mode: plan.mode,
    ok: outcome.ok,
    key_source: plan.keySource,
  });
  // in the order the contract lists them
  return {
    ok: outcome.ok,
    company_id: input.company_id,
    service: input.service,
    environment: input.environment,
    message: outcome.message,
    checked_at: (ctx.now?.() ?? new Date()).toISOString(),
    ...(outcome.certificate ? { certificate: outcome.certificate } : {}),
    ...(outcome.warnings ? { warnings: outcome.warnings } : {}),
    ...(outcome.providerMessage ? { provider_message: outcome.providerMessage } : {}),
  };
}
