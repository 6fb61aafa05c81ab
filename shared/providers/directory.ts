/**
 * Finds a company's provider clients: reads the stored credential through the service-only
 * database API, opens the sealed key, checks the URL against the SSRF policy — as written, then
 * every address its host resolves to, connecting only to those (../ports/egress/egress.ts) — and builds the
 * client. Clients are cached for the life of one directory (one request), never across tenants. A
 * DIAN-mode adapter-tax credential is opened for the `dianTaxAdapter` hook instead
 * (./dian/connection.ts).
 */

import { type SecretBox, SecretBoxError } from "../crypto/secret-box.ts";
import { BusinessRuleError } from "../kernel/errors.ts";
import type { CredentialRow } from "../kernel/rows.ts";
import { type Clock, systemClock } from "../ports/clock.ts";
import type { DbScope } from "../ports/db/port.ts";
import { type Egress, HostResolutionError, reach } from "../ports/egress/egress.ts";
import type { FetchLike } from "../ports/egress/exchange.ts";
import { assertProviderUrl, UnsafeProviderUrlError } from "../ports/egress/url-policy.ts";
import { isDianMode } from "../ports/providers/credentials.ts";
import type { ProviderDirectory } from "../ports/providers/directory.ts";
import {
  type ProviderOperation,
  type ProviderService,
  ProviderUnavailableError,
  SERVICE_LABEL,
} from "../ports/providers/errors.ts";
import type { Environment } from "../ports/providers/protocol.ts";
import { createDeliveryClient } from "./deliver/client.ts";
import {
  type DianModeCredential,
  type DianTaxAdapterHook,
  openDianModeCredential,
} from "./dian/connection.ts";
import { dianTaxAdapter } from "./dian/wiring.ts";
import { createDocsgenClient } from "./docsgen/client.ts";
import { createTaxClient } from "./tax/client.ts";
import type { ProviderClientOptions } from "./transport.ts";

export interface ProviderDirectoryOptions {
  serviceDb: DbScope;
  secretBox: SecretBox;
  timeoutMs: number;
  allowPrivateUrls: boolean;
  /** Used as is when there is no `egress` (tests that hand in an in-process provider). */
  fetch?: FetchLike;
  /**
   * Resolution and pinned connections: each address the host resolves to must be public, and the
   * calls go to those addresses. Without it only the URL as written is checked (the composition
   * root always passes it).
   */
  egress?: Egress;
  /**
   * Builds the TaxAdapter of a DIAN-mode credential (./dian/connection.ts), which `taxAdapter` calls
   * instead of building a protocol client; default DIAN's own client (./dian/wiring.ts).
   */
  dianTaxAdapter?: DianTaxAdapterHook;
  /** The clock a DIAN-mode adapter signs by (../ports/clock.ts); default the system's. */
  clock?: Clock;
}

/** A stored credential ready for its client: a protocol provider's, or DIAN mode's, opened. */
type Connection = ProviderClientOptions | { dian: DianModeCredential };

export function createProviderDirectory(options: ProviderDirectoryOptions): ProviderDirectory {
  const cache = new Map<string, Promise<Connection | null>>();
  /** Rows handed in by `prime`, not yet opened. */
  const primed = new Map<string, CredentialRow | null>();

  /** The connection settings of a stored credential, or null when there is none. */
  async function load(
    service: ProviderService,
    orgId: string,
    companyId: string,
    environment: Environment,
  ): Promise<Connection | null> {
    const credential = await options.serviceDb.call("einv_credential_get", {
      p_org_id: orgId,
      p_company_id: companyId,
      p_service: service,
      p_environment: environment,
    });
    return settingsOf(service, orgId, companyId, environment, credential);
  }

  /** The connection settings of a credential row (opened, its URL checked), or null. */
  async function settingsOf(
    service: ProviderService,
    orgId: string,
    companyId: string,
    environment: Environment,
    credential: CredentialRow | null,
  ): Promise<Connection | null> {
    if (!credential?.url || !credential.api_key_ciphertext) return null; // see isUsable
    const unusable = (why: string) =>
      new BusinessRuleError(
        `The saved ${service} credential for ${environment} cannot be used: ${why}; save it again.`,
      );
    if (isDianMode(credential.settings)) {
      const dian = await openDianModeCredential(
        { ...credential, url: credential.url, api_key_ciphertext: credential.api_key_ciphertext },
        {
          secretBox: options.secretBox,
          allowPrivateUrls: options.allowPrivateUrls,
          timeoutMs: options.timeoutMs,
          reach: async (url) =>
            options.egress
              ? egressFetch(service, options.egress, url, unusable)
              : (options.fetch ?? ((input, init) => globalThis.fetch(input, init))),
          unusable,
        },
      );
      return { dian };
    }
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
    const fetch = options.egress ? await egressFetch(service, options.egress, url, unusable) : options.fetch;
    return { baseUrl: url.href, apiKey, timeoutMs: options.timeoutMs, ...(fetch ? { fetch } : {}) };
  }

  /**
   * The fetch that reaches `url` through the egress. A name resolving to a private address makes
   * the credential unusable; a name that does not resolve now is a provider that cannot be reached,
   * and nothing was sent to it (so a transmit leaves the document as it was, rather than unknown).
   */
  async function egressFetch(
    service: ProviderService,
    egress: Egress,
    url: URL,
    unusable: (why: string) => Error,
  ): Promise<FetchLike> {
    try {
      return await reach(egress, url, {
        allowPrivate: options.allowPrivateUrls,
        timeoutMs: options.timeoutMs,
      });
    } catch (error) {
      if (error instanceof UnsafeProviderUrlError) throw unusable(error.message);
      if (error instanceof HostResolutionError) {
        throw new ProviderUnavailableError(
          `The ${SERVICE_LABEL[service]} could not be reached: ${error.message}.`,
          {
            service,
            operation: MAIN_OPERATION[service],
            maybeProcessed: false,
            cause: error,
          },
        );
      }
      throw error;
    }
  }

  const keyOf = (service: ProviderService, orgId: string, companyId: string, environment: Environment) =>
    `${service}/${orgId}/${companyId}/${environment}`;

  function connection(service: ProviderService, orgId: string, companyId: string, environment: Environment) {
    const key = keyOf(service, orgId, companyId, environment);
    let found = cache.get(key);
    if (!found) {
      // a primed row is opened (key, URL, egress) only when a client is asked for
      found = primed.has(key)
        ? settingsOf(service, orgId, companyId, environment, primed.get(key) ?? null)
        : load(service, orgId, companyId, environment);
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
    prime: (service, orgId, needed, rows) => {
      for (const { company_id: companyId, environment } of needed) {
        const key = keyOf(service, orgId, companyId, environment);
        if (cache.has(key) || primed.has(key)) continue;
        primed.set(
          key,
          rows.find(
            (r) =>
              r.org_id === orgId &&
              r.company_id === companyId &&
              r.service === service &&
              r.environment === environment,
          ) ?? null,
        );
      }
    },
    taxAdapter: async (...args) => {
      const found = await required("adapter-tax", ...args);
      if (!("dian" in found)) return createTaxClient(found);
      return (options.dianTaxAdapter ?? dianTaxAdapter)(found.dian, options.clock ?? systemClock);
    },
    deliveryChannel: async (...args) =>
      createDeliveryClient(protocolOnly(await required("deliver", ...args))),
    documentGenerator: async (...args) => {
      const settings = await connection("docsgen", ...args);
      return settings ? createDocsgenClient(protocolOnly(settings)) : null;
    },
  };
}

/** DIAN mode is adapter-tax's only (openDianModeCredential refuses it for the others before this). */
function protocolOnly(found: Connection): ProviderClientOptions {
  if ("dian" in found) throw new BusinessRuleError("DIAN mode is for the adapter-tax credential only.");
  return found;
}

/** What each service is called for, named on an error raised before any call. */
const MAIN_OPERATION: Record<ProviderService, ProviderOperation> = {
  "adapter-tax": "submit",
  docsgen: "render",
  deliver: "send",
};
