/** Saves provider credentials the way the service does: sealed, through the service-only function. */
import { keyHint } from "../shared/crypto/secret-box.ts";
import type { AppDeps } from "../shared/http/context.ts";
import type { ProviderService } from "../shared/ports/providers/errors.ts";
import { CANARY_PROVIDER_KEY } from "./canary.ts";
import type { Tenant } from "./factories.ts";

export const SANDBOX_URL = "https://sandbox.provider.test";
/** A canary (devkit/canary.ts): the final scan fails if it appears outside its ciphertext. */
export const SANDBOX_KEY = CANARY_PROVIDER_KEY;

/**
 * Saves the company's credential for `service` (default adapter-tax) in `environment` (default uat),
 * as a save through /integrations stores it, without asking the provider first.
 */
export async function saveCredential(
  deps: Pick<AppDeps, "db" | "secretBox">,
  tenant: Pick<Tenant, "org" | "company">,
  options: { url?: string; apiKey?: string; environment?: "uat" | "prd"; service?: ProviderService } = {},
): Promise<void> {
  const environment = options.environment ?? "uat";
  const service = options.service ?? "adapter-tax";
  const apiKey = options.apiKey ?? SANDBOX_KEY;
  const identity = { org_id: tenant.org.id, company_id: tenant.company.id, service, environment };
  await deps.db.asService().call("einv_integration_save", {
    p_org_id: tenant.org.id,
    p_company_id: tenant.company.id,
    p_service: service,
    p_environment: environment,
    p_url: options.url ?? SANDBOX_URL,
    p_settings: {},
    p_api_key_ciphertext: await deps.secretBox.seal(apiKey, identity),
    p_api_key_hint: keyHint(apiKey),
    p_key_id: deps.secretBox.keyId,
    p_key_source: "given",
    p_message: "Saved by the test harness.",
    p_actor_id: null,
  });
}

export { saveDianCredential } from "./dian/credential.ts";
