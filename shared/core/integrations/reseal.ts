/**
 * resealCredentials (`npm run credentials:reseal`): after EINV_CREDENTIALS_KEY is rotated (the old
 * key moved to EINV_CREDENTIALS_PREVIOUS_KEYS), re-seals every stored provider key under the current
 * key, so the previous ones can then be dropped. A row already recorded under the current key is
 * left alone, so a second run changes nothing; a row is replaced only if it still holds the
 * ciphertext that was opened (a save meanwhile wins, and is sealed under the current key anyway).
 * The report holds counts and the rows that no key opens, never a key.
 */
import { type SecretBox, SecretBoxError } from "../../crypto/secret-box.ts";
import type { SealedCredential } from "../../ports/db/catalogue.ts";
import type { DbScope } from "../../ports/db/port.ts";

export interface ResealReport {
  /** The id of the key everything is now sealed under (an id, not the key). */
  key_id: string;
  /** Stored keys looked at. */
  checked: number;
  /** Re-sealed under the current key by this run. */
  resealed: number;
  /** Already recorded under the current key: untouched. */
  current: number;
  /** Saved again while this run worked on them: untouched (the save sealed them with the current key). */
  changed_meanwhile: number;
  /** Rows no key this service holds opens: untouched, listed (without their ciphertext). */
  unopenable: Omit<SealedCredential, "api_key_ciphertext" | "key_id">[];
}

export async function resealCredentials({
  serviceDb,
  secretBox,
  pageSize = 100,
}: {
  serviceDb: DbScope;
  secretBox: SecretBox;
  pageSize?: number;
}): Promise<ResealReport> {
  const report: ResealReport = {
    key_id: secretBox.keyId,
    checked: 0,
    resealed: 0,
    current: 0,
    changed_meanwhile: 0,
    unopenable: [],
  };
  let after: string | null = null;
  for (;;) {
    const page: SealedCredential[] = await serviceDb.call("einv_credential_list", {
      p_after: after,
      p_limit: pageSize,
    });
    for (const row of page) {
      report.checked++;
      const identity = {
        org_id: row.org_id,
        company_id: row.company_id,
        service: row.service,
        environment: row.environment,
      };
      // which key opens it decides, not the recorded id (a writer may have replaced the ciphertext)
      let plaintext: string;
      try {
        const opened = await secretBox.openWithKeyId(row.api_key_ciphertext, identity);
        if (opened.keyId === secretBox.keyId && row.key_id === secretBox.keyId) {
          report.current++;
          continue;
        }
        plaintext = opened.plaintext;
      } catch (error) {
        if (!(error instanceof SecretBoxError)) throw error;
        report.unopenable.push({ id: row.id, ...identity });
        continue;
      }
      const swapped = await serviceDb.call("einv_credential_reseal", {
        p_id: row.id,
        p_expected_ciphertext: row.api_key_ciphertext,
        p_api_key_ciphertext: await secretBox.seal(plaintext, identity),
        p_key_id: secretBox.keyId,
      });
      if (swapped) report.resealed++;
      else report.changed_meanwhile++;
    }
    const last = page.at(-1);
    if (!last || page.length < pageSize) return report;
    after = last.id;
  }
}
