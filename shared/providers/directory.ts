/**
 * Finds a company's provider clients: reads the stored credential through the service-only
 * database API, opens the sealed key, checks the URL against the SSRF policy, and builds the
 * client. Clients are cached for the life of one directory (one request), never across tenants.
 */
import { type SecretBox, SecretBoxError } from "../crypto/secret-box.ts";
import type { DbScope } from "../db/port.ts";
import { BusinessRuleError } from "../errors.ts";
import type { DeliveryChannel } from "./deliver.ts";
import { createDeliveryClient } from "./deliver-client.ts";
import type { DocumentGenerator } from "./docsgen.ts";
import { createDocsgenClient } from "./docsgen-client.ts";
import type { ProviderService } from "./errors.ts";
import type { Environment, TaxAdapter } from "./protocol.ts";
import { createTaxClient } from "./tax-client.ts";
import type { FetchLike, ProviderClientOptions } from "./transport.ts";
import { assertProviderUrl, UnsafeProviderUrlError } from "./url-policy.ts";

export interface ProviderDirectory {
  /** The company's adapter-tax client; a BusinessRuleError when none is usable. */
  taxAdapter(orgId: string, companyId: string, environment: Environment): Promise<TaxAdapter>;
  /** The company's docsgen client, or null when it has none (the built-in renderer is used). */
  documentGenerator(
    orgId: string,
    companyId: string,
    environment: Environment,
  ): Promise<DocumentGenerator | null>;
  /** The company's deliver client; a BusinessRuleError when none is usable. */
  deliveryChannel(orgId: string, companyId: string, environment: Environment): Promise<DeliveryChannel>;
}

export interface ProviderDirectoryOptions {
  serviceDb: DbScope;
  secretBox: SecretBox;
  timeoutMs: number;
  allowPrivateUrls: boolean;
  fetch?: FetchLike;
}

export function createProviderDirectory(options: ProviderDirectoryOptions): ProviderDirectory {
  const cache = new Map<string, Promise<ProviderClientOptions | null>>();

  /** The connection settings of a stored credential, or null when there is none. */
  async function load(
    service: ProviderService,
    orgId: string,
    companyId: string,
    environment: Environment,
  ): Promise<ProviderClientOptions | null> {
    const credential = await options.serviceDb.call("einv_credential_get", {
      p_org_id: orgId,
      p_company_id: companyId,
      p_service: service,
      p_environment: environment,
    });
    if (!credential?.url || !credential.api_key_ciphertext) return null;
    const unusable = (why: string) =>
      new BusinessRuleError(
        `The saved ${service} credential for ${environment} cannot be used: ${why}; save it again.`,
      );
    let url: URL;
    try {
      url = assertProviderUrl(credential.url, { allowPrivate: options.allowPrivateUrls });
    } catch (error) {
      if (error instanceof UnsafeProviderUrlError) throw unusable(error.message);
      throw error;
    }
    let apiKey: string;
    try {
      apiKey = await options.secretBox.open(credential.api_key_ciphertext, {
        org_id: orgId,
        company_id: companyId,
        service,
        environment,
      });
    } catch (error) {
      if (error instanceof SecretBoxError) throw unusable(error.message);
      throw error;
    }
    return {
      baseUrl: url.href,
      apiKey,
      timeoutMs: options.timeoutMs,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    };
  }

  function connection(service: ProviderService, orgId: string, companyId: string, environment: Environment) {
    const key = `${service}/${orgId}/${companyId}/${environment}`;
    let found = cache.get(key);
    if (!found) {
      found = load(service, orgId, companyId, environment);
      cache.set(key, found);
      found.catch(() => cache.delete(key));
    }
    return found;
  }

  async function required(
    service: ProviderService,
    orgId: string,
    companyId: string,
    environment: Environment,
  ) {
    const settings = await connection(service, orgId, companyId, environment);
    if (!settings) {
      throw new BusinessRuleError(
        `The company has no ${service} credential for ${environment}; save one with /integrations/save.`,
      );
    }
    return settings;
  }

  return {
    taxAdapter: async (...args) => createTaxClient(await required("adapter-tax", ...args)),
    deliveryChannel: async (...args) => createDeliveryClient(await required("deliver", ...args)),
    documentGenerator: async (...args) => {
      const settings = await connection("docsgen", ...args);
      return settings ? createDocsgenClient(settings) : null;
    },
  };
}
