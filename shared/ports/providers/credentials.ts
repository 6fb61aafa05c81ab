/**
 * The port through which /integrations checks a company's credential: the words the core and the
 * adapters share (which credential, where its url and secrets come from, a check's outcome, the
 * certificate as the answers show it) and the checks each adapter provides — a protocol provider's
 * key check (shared/providers/credential-check.ts) and DIAN mode's certificate, PIN and numbering
 * checks (shared/providers/dian/credential-check.ts). The core's test and save flows
 * (shared/core/integrations/) read and record; they never learn how a mode checks.
 */
import type { CredentialIdentity, SecretBox } from "../../crypto/secret-box.ts";
import type { DomainError } from "../../kernel/errors.ts";
import type { Logger } from "../../kernel/log.ts";
import type { StoredCredential } from "../db/catalogue.ts";
import type { DbScope } from "../db/port.ts";
import type { Egress } from "../egress/egress.ts";
import type { FetchLike } from "../egress/exchange.ts";
import type { ProviderService } from "./errors.ts";
import type { Environment } from "./protocol.ts";

/** One credential: a company's key for one provider service in one environment. */
export interface CredentialTarget {
  org_id: string;
  company_id: string;
  service: ProviderService;
  environment: Environment;
}

/** The request's fields that carry a credential, in either mode. */
export interface CredentialInput extends CredentialTarget {
  api_key?: string | undefined;
  url?: string | undefined;
  /** DIAN mode only. */
  certificate?: { p12: Uint8Array; password: string } | undefined;
  /** DIAN mode only. */
  software_pin?: string | undefined;
  /** The settings to check with; left out, the saved ones. */
  settings?: Record<string, unknown> | undefined;
}

export type Source = "given" | "saved";

/** The certificate as the answers show it: never the key. */
export interface CertificateSummary {
  subject: string;
  nit: string | null;
  /** Decimal. */
  serial: string;
  not_after: string;
}

export interface CheckOutcome {
  ok: boolean;
  /** Ours, in English. */
  message: string;
  /** The provider's own words (its verdict on the key, or about its failure), when it gave any. */
  providerMessage?: string;
  /**
   * Why there is no verdict: the provider gave no usable answer (timeout, unreachable, garbage, 5xx,
   * 429), or (DIAN mode) the check cannot be made here.
   */
  failure?: DomainError;
}

/** A check's outcome, and what a save keeps when it passed. */
export interface CheckResult extends CheckOutcome {
  /** The plaintext to seal (an API key, or DIAN mode's key, certificate and PIN), when it passed. */
  secret?: string;
  /** DIAN mode: the certificate checked, once it opened. */
  certificate?: CertificateSummary;
  /** DIAN mode: what to fix whatever the verdict (a PIN a CUDE gives away). */
  warnings?: CredentialWarning[];
}

/** Something the admin should fix although the check may pass. */
export interface CredentialWarning {
  code: "software_pin_guessable";
  message: string;
}

/** A credential check, planned from the request and the saved row: what it will check, and the check. */
export interface PlannedCheck {
  mode: "protocol" | "dian";
  /** The url to check (given, or saved), as events record it. */
  url: { url: string; source: Source };
  /** Whether the secret checked was sent or is the saved one. */
  keySource: Source;
  /** The API key's hint as events and answers show it ("" in DIAN mode: there is no key). */
  hint: string;
  /** The settings a save stores. */
  settings: Record<string, unknown>;
  /** Runs the checks: throws only for a url the policy refuses, or a field it cannot take. */
  run(): Promise<CheckResult>;
}

/** What the integration operations take (`integrationContext` picks them out of a route's context). */
export interface IntegrationContext {
  /** Credentials are service-only. */
  serviceDb: DbScope;
  secretBox: SecretBox;
  egress: Egress;
  timeoutMs: number;
  allowPrivateUrls: boolean;
  /** How each mode checks a credential (the composition root's adapters). */
  checks: CredentialChecks;
  /** The admin acting, for events. */
  actorId: string;
  log: Logger;
  now?: () => Date;
}

/** The adapters' checks, as the integration operations call them. */
export interface CredentialChecks {
  /**
   * Our protocol's credential check: does `apiKey` authenticate at `base`, reached through `fetch`?
   * Resolves with the verdict; rejects with a ProviderError when the provider gives none.
   */
  protocolKey(
    target: CredentialTarget,
    call: { base: URL; fetch: FetchLike; apiKey: string; timeoutMs: number },
  ): Promise<{ ok: boolean; message: string }>;
  /**
   * DIAN mode's plan, from the request, the effective settings (given, else saved) and the saved
   * row. Throws FieldError (400) for a field or setting the mode refuses, BusinessRuleError (422)
   * when a secret is neither given nor saved.
   */
  dian(
    input: CredentialInput,
    settings: Record<string, unknown>,
    stored: StoredCredential | null,
    ctx: IntegrationContext,
  ): Promise<PlannedCheck>;
}

/** Whether these settings put the credential in DIAN mode (DESIGN §10: `settings.provider` "dian"). */
export function isDianMode(settings: Record<string, unknown> | null | undefined): boolean {
  return settings?.provider === "dian";
}

/** The identity a credential's secret is sealed with (the SecretBox's associated data). */
export function identityOf(target: CredentialTarget): CredentialIdentity {
  return {
    org_id: target.org_id,
    company_id: target.company_id,
    service: target.service,
    environment: target.environment,
  };
}

/** Whether a given url is the saved one, compared as WHATWG URLs (the form it is stored in). */
export function sameUrl(given: string, saved: string | null): boolean {
  if (!saved) return false;
  try {
    return new URL(given).href === new URL(saved).href;
  } catch {
    return false;
  }
}
