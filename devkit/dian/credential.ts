/**
 * Saves a company's DIAN-mode credential the way /integrations/save stores one — the opened key, the
 * certificate and the PIN sealed, through the service-only function — without asking DIAN first.
 * For tests and the local server's demo (scripts/local/dian-demo.ts); it imports nothing of the test
 * harness, so Deno can load it.
 */

import type { AppDeps } from "../../shared/http/context.ts";
import { readPkcs12 } from "../../shared/providers/dian/certificate.ts";
import { dianCredentialPlaintext } from "../../shared/providers/dian/credential.ts";
import { DIAN_URLS } from "../../shared/providers/dian/service.ts";
import { CANARY_SOFTWARE_PIN } from "../canary.ts";
import type { TestCertificates } from "./certificates.ts";
import { SOFTWARE_ID } from "./numbering.ts";

/**
 * Saves the company's adapter-tax credential in DIAN mode with `certs`, sealed as /integrations/save
 * seals it (the opened key, the certificate, the PIN), without asking DIAN first.
 */
export async function saveDianCredential(
  deps: Pick<AppDeps, "db" | "secretBox">,
  tenant: { org: { id: string }; company: { id: string } },
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
