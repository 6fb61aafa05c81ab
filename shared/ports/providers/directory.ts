/**
 * The port through which the core reaches a company's providers: its adapter-tax (a provider
 * speaking our protocol, or DIAN direct), its docsgen and its deliver clients, for one request. The
 * composition root builds the implementation (shared/providers/directory.ts) from the stored
 * credentials; the core never learns which adapter answered.
 */
import type { CredentialRow } from "../../kernel/rows.ts";
import type { DeliveryChannel } from "./deliver.ts";
import type { DocumentGenerator } from "./docsgen.ts";
import type { ProviderService } from "./errors.ts";
import type { Environment, TaxAdapter } from "./protocol.ts";

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
  /**
   * Hands the directory credentials already read for this request (with a claim or a document, in
   * the same round trip): each `needed` company and environment gets its row from `rows`, or none
   * (no credential), as if read now; a row is opened only when its client is asked for. Only the
   * org's rows count.
   */
  prime(
    service: ProviderService,
    orgId: string,
    needed: { company_id: string; environment: Environment }[],
    rows: CredentialRow[],
  ): void;
}

/** Whether a stored credential has what a client needs (a URL and a sealed key); else it counts as none. */
export function isUsable(credential: CredentialRow): boolean {
  return Boolean(credential.url && credential.api_key_ciphertext);
}
