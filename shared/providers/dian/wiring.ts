/**
 * DIAN direct, wired: the TaxAdapter of a DIAN-mode credential and the GetNumberingRange its check
 * asks, both on DIAN's web-service client (./service.ts). The composition root hands these to
 * the provider directory and the integration operations; tests may hand in others. The DIAN modules
 * (XML, certificates, SOAP) load on first use only, so a deployment that never meets a DIAN-mode
 * credential never pays for them at cold start (ADR 0007).
 */

import type { DianModeCredential, DianTaxAdapterHook } from "./connection.ts";
import type { DianNumbering } from "./numbering-query.ts";

/** The client of one company's certificate at one endpoint. */
async function serviceFor(target: Pick<DianModeCredential, "url" | "signer" | "fetch" | "timeoutMs">) {
  const { createDianService } = await import("./service.ts");
  return createDianService({
    url: target.url.href,
    signer: target.signer,
    fetch: target.fetch,
    timeoutMs: target.timeoutMs,
  });
}

/** The DIAN TaxAdapter of an opened DIAN-mode credential: test set batches in habilitación only. */
export const dianTaxAdapter: DianTaxAdapterHook = async (credential, clock) => {
  const { createDianAdapter } = await import("./adapter.ts");
  const { settings } = credential;
  return createDianAdapter({
    service: await serviceFor(credential),
    signer: credential.signer,
    software: {
      id: settings.software_id,
      pin: credential.softwarePin,
      ...(settings.software_provider_nit ? { provider_nit: settings.software_provider_nit } : {}),
    },
    testSetId: credential.environment === "uat" ? (settings.test_set_id ?? null) : null,
    now: () => clock.now(),
  });
};

/** GetNumberingRange through the same client. */
export const dianNumbering: DianNumbering = {
  async getNumberingRange(query) {
    const service = await serviceFor(query);
    return service.getNumberingRange({
      accountCode: query.accountCode,
      accountCodeT: query.accountCodeT,
      softwareCode: query.softwareCode,
    });
  },
};
