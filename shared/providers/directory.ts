/**
 * Finds the provider adapter for a company: reads its stored credential through the service-only
 * database API, opens the sealed key, checks the URL against the SSRF policy, and builds the
 * client. Adapters are cached for the life of one directory (one request), never across tenants.
 */

import { type SecretBox, SecretBoxError } from "../crypto/secret-box.ts";
import type { DbScope } from "../db/port.ts";
import { BusinessRuleError } from "../errors.ts";
import type { Environment, TaxAdapter } from "./protocol.ts";
import { createTaxClient, type FetchLike } from "./tax-client.ts";
import { assertProviderUrl, UnsafeProviderUrlError } from "./url-policy.ts";

export interface ProviderDirectory {
  /** The company's adapter-tax client in `environment`; a BusinessRuleError when none is usable. */
  taxAdapter(orgId: string, companyId: string, environment: Environment): Promise<TaxAdapter>;
}

export interface ProviderDirectoryOptions {
  serviceDb: DbScope;
  secretBox: SecretBox;
  timeoutMs: number;
  allowPrivateUrls: boolean;
  fetch?: FetchLike;
}

export function createProviderDirectory(options: ProviderDirectoryOptions): ProviderDirectory {
  const cache = new Map<string, Promise<TaxAdapter>>();

  async function build(orgId: string, companyId: string, environment: Environment): Promise<TaxAdapter> {
    const identity = { org_id: orgId, company_id: companyId, service: "adapter-tax", environment };
    const credential = await options.serviceDb.call("einv_credential_get", {
      p_org_id: orgId,
      p_company_id: companyId,
      p_service: "adapter-tax",
      p_environment: environment,
    });
    if (!credential?.url || !credential.api_key_ciphertext) {
      throw new BusinessRuleError(
        `The company has no adapter-tax credential for ${environment}; save one with /integrations/save.`,
      );
    }
    let url: URL;
    try {
      url = assertProviderUrl(credential.url, { allowPrivate: options.allowPrivateUrls });
    } catch (error) {
      if (error instanceof UnsafeProviderUrlError) {
        throw new BusinessRuleError(
          `The saved adapter-tax url for ${environment} is not allowed: ${error.message}.`,
        );
      }
      throw error;
    }
    let apiKey: string;
    try {
      apiKey = await options.secretBox.open(credential.api_key_ciphertext, identity);
    } catch (error) {
      if (error instanceof SecretBoxError) {
        throw new BusinessRuleError(
          `The saved adapter-tax key for ${environment} cannot be used: ${error.message}; save it again.`,
        );
      }
      throw error;
    }
    return createTaxClient({
      baseUrl: url.href,
      apiKey,
      timeoutMs: options.timeoutMs,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  }

  return {
    taxAdapter(orgId, companyId, environment) {
      const key = `${orgId}/${companyId}/${environment}`;
      let adapter = cache.get(key);
      if (!adapter) {
        adapter = build(orgId, companyId, environment);
        cache.set(key, adapter);
        adapter.catch(() => cache.delete(key));
      }
      return adapter;
    },
  };
}
