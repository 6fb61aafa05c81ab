/**
 * testCredential in DIAN mode (./test.ts hands it over when the effective settings — given, else
 * saved — say `provider: "dian"`): the checks of ./dian-check.ts with the given certificate and PIN,
 * or the saved ones for what is not given (only at the saved url). Like a key's test, the answer is
 * an outcome whether the credential works or not, with the certificate when it opened and a warning
 * when the PIN is one a CUDE gives away, and an event records who tested what and how it went — never
 * the password, the PIN or the key.
 */
import type { StoredCredential } from "../../db/catalogue.ts";
import { isRefusedUrl, recordedUrl } from "./check.ts";
import { credentialWhere, type IntegrationContext } from "./context.ts";
import { checkDian, type DianCredentialInput, type DianOutcome, planDian } from "./dian-check.ts";

export async function testDianCredential(
  input: DianCredentialInput,
  settings: Record<string, unknown>,
  stored: StoredCredential | null,
  ctx: IntegrationContext,
): Promise<Pick<DianOutcome, "ok" | "message" | "certificate" | "warnings" | "providerMessage">> {
  const plan = planDian(input, settings, stored);
  const record = (outcome: "ok" | "failed" | "refused_url", message: string) =>
    ctx.serviceDb.call("einv_integration_event", {
      ...credentialWhere(input),
      p_event: "credential_tested",
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
    if (isRefusedUrl(error)) await record("refused_url", (error as Error).message);
    throw error;
  }
  await record(outcome.ok ? "ok" : "failed", outcome.message);
  ctx.log.info("credential tested", {
    company_id: input.company_id,
    service: input.service,
    environment: input.environment,
    mode: "dian",
    ok: outcome.ok,
    key_source: plan.keySource,
  });
  return {
    ok: outcome.ok,
    message: outcome.message,
    ...(outcome.certificate ? { certificate: outcome.certificate } : {}),
    ...(outcome.warnings ? { warnings: outcome.warnings } : {}),
    ...(outcome.providerMessage ? { providerMessage: outcome.providerMessage } : {}),
  };
}
