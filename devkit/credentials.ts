/** Saves provider credentials the way the service does: sealed, through the service-only function. */
import { keyHint } from "../shared/crypto/secret-box.ts";
import { readPkcs12 } from "../shared/fiscal/co/dian/certificate.ts";
import { dianCredentialPlaintext } from "../shared/fiscal/co/dian/credential.ts";
import { DIAN_URLS } from "../shared/fiscal/co/dian/service.ts";
import type { AppDeps } from "../shared/http/context.ts";
import type { ProviderService } from "../shared/providers/errors.ts";
import { CANARY_PROVIDER_KEY, CANARY_SOFTWARE_PIN } from "./canary.ts";
import type { TestCertificates } from "./dian/certificates.ts";
import { SOFTWARE_ID } from "./dian/numbering.ts";
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

/**
 * Saves the company's adapter-tax credential in DIAN mode with `certs`, sealed as /integrations/save
 * seals it (the opened key, the certificate, the PIN), without asking DIAN first.
 */
export async function saveDianCredential(
  deps: Pick<AppDeps, "db" | "secretBox">,
  tenant: Pick<Tenant, "org" | "company">,
  certs: Pick<TestCertificates, "p12" | "password">,
  options: {
    url?: string;
    environment?: "uat" | "prd";
    settings?: Record<string, unknown>;
    pin?: string;
  } = {},
): Promise<void> {
  const environment = options.environment ?? "uat";
  const identity = {
    org_id: tenant.org.id,
    company_id: tenant.company.id,
    service: "adapter-tax",
    environment,
  };
  const opened = readPkcs12(certs.p12, certs.password);
  const plaintext = dianCredentialPlaintext({
    pkcs8: opened.pkcs8,
    certificate: opened.certificate.base64,
    softwarePin: options.pin ?? CANARY_SOFTWARE_PIN,
  });
  await deps.db.asService().call("einv_integration_save", {
    p_org_id: tenant.org.id,
    p_company_id: tenant.company.id,
    p_service: "adapter-tax",
    p_environment: environment,
    p_url: options.url ?? DIAN_URLS[environment],
    p_settings: options.settings ?? { provider: "dian", software_id: SOFTWARE_ID },
    p_api_key_ciphertext: await deps.secretBox.seal(plaintext, identity),
    p_api_key_hint: "",
    p_key_id: deps.secretBox.keyId,
    p_key_source: "given",
    p_message: "Saved by the test harness.",
    p_actor_id: null,
  });
}
