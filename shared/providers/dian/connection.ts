/**
 * A saved DIAN-mode credential, opened for the DIAN TaxAdapter: what the provider directory hands
 * the `dianTaxAdapter` hook instead of building a protocol client. The row's url is checked again
 * (the URL policy and DIAN mode's hosts, as they stand now), its settings parsed, its sealed form
 * opened (`openDianCredential`: the key and certificate, no password derivation) — each failure makes
 * the credential unusable until it is saved again, like a protocol credential's.
 */
import { type SecretBox, SecretBoxError } from "../../crypto/secret-box.ts";
import type { CredentialRow } from "../../kernel/rows.ts";
import type { Clock } from "../../ports/clock.ts";
import type { FetchLike } from "../../ports/egress/exchange.ts";
import { assertProviderUrl, UnsafeProviderUrlError } from "../../ports/egress/url-policy.ts";
import type { Environment, TaxAdapter } from "../../ports/providers/protocol.ts";
import type { Signer } from "./certificate.ts";
import { DianCredentialError, openDianCredential } from "./credential.ts";
import { DianSettings, dianUrlProblem } from "./mode.ts";

/** A company's DIAN-mode credential, opened: everything the DIAN TaxAdapter needs for one request. */
export interface DianModeCredential {
  orgId: string;
  companyId: string;
  environment: Environment;
  /** DIAN's endpoint (or the local stand-in), checked. */
  url: URL;
  /** Reaches `url` at its checked addresses (the egress). */
  fetch: FetchLike;
  timeoutMs: number;
  settings: DianSettings;
  /** The company's certificate and key (not extractable). */
  signer: Signer;
  /** The software's PIN: a secret (SoftwareSecurityCode, CUDE). */
  softwarePin: string;
}

/**
 * Builds the DIAN TaxAdapter of one opened credential (wired by the integrator); `clock` says when a
 * document is signed (its SigningTime: DESIGN §12).
 */
export type DianTaxAdapterHook = (
  credential: DianModeCredential,
  clock: Clock,
) => TaxAdapter | Promise<TaxAdapter>;

/**
 * `credential` (DIAN mode, with a url and a sealed form) opened. `reach` gives the fetch for a
 * checked url; `unusable` makes the error for a credential that cannot be used as saved.
 */
export async function openDianModeCredential(
  credential: CredentialRow & { url: string; api_key_ciphertext: string },
  options: {
    secretBox: SecretBox;
    allowPrivateUrls: boolean;
    timeoutMs: number;
    reach: (url: URL) => Promise<FetchLike>;
    unusable: (why: string) => Error;
  },
): Promise<DianModeCredential> {
  const { environment } = credential;
  const { unusable } = options;
  if (credential.service !== "adapter-tax")
    throw unusable("DIAN mode is for the adapter-tax credential only");
  const settings = DianSettings.safeParse(credential.settings);
  if (!settings.success) throw unusable("its DIAN-mode settings are not valid");
  let url: URL;
  try {
    url = assertProviderUrl(credential.url, { allowPrivate: options.allowPrivateUrls });
  } catch (error) {
    if (error instanceof UnsafeProviderUrlError) throw unusable(error.message);
    throw error;
  }
  const problem = dianUrlProblem(url, environment, options.allowPrivateUrls);
  if (problem) throw unusable(problem);
  let opened: Awaited<ReturnType<typeof openDianCredential>>;
  try {
    const plaintext = await options.secretBox.open(credential.api_key_ciphertext, {
      org_id: credential.org_id,
      company_id: credential.company_id,
      service: credential.service,
      environment,
    });
    opened = await openDianCredential(plaintext);
  } catch (error) {
    if (error instanceof SecretBoxError || error instanceof DianCredentialError)
      throw unusable(error.message);
    throw error;
  }
  return {
    orgId: credential.org_id,
    companyId: credential.company_id,
    environment,
    url,
    fetch: await options.reach(url),
    timeoutMs: options.timeoutMs,
    settings: settings.data,
    signer: opened.signer,
    softwarePin: opened.softwarePin,
  };
}
