/**
 * resealWebhookSecrets (`npm run credentials:reseal`, beside the provider keys): after
 * EINV_CREDENTIALS_KEY is rotated, re-seals every endpoint's signing secret — and the one a rotation
 * replaced, while it still signs — under the current key, so the previous keys can be dropped without
 * an endpoint's messages becoming unsignable. A secret already under the current key is left alone (a
 * second run changes nothing); one is replaced only if it still holds the ciphertext that was opened.
 * The report holds counts and the endpoints no key opens, never a secret.
 */
import { type SecretBox, SecretBoxError } from "../../crypto/secret-box.ts";
import { webhookSecretIdentity } from "../../events/signature.ts";
import type { SealedWebhookSecrets } from "../../ports/db/catalogue-events.ts";
import type { DbScope } from "../../ports/db/port.ts";

export interface WebhookResealReport {
  /** Sealed secrets looked at (an endpoint has one, or two after a rotation). */
  checked: number;
  resealed: number;
  current: number;
  changed_meanwhile: number;
  /** Secrets no key this service holds opens: untouched, listed. */
  unopenable: { webhook_id: string; org_id: string; which: "current" | "previous" }[];
}

export async function resealWebhookSecrets({
  serviceDb,
  secretBox,
  pageSize = 100,
}: {
  serviceDb: DbScope;
  secretBox: SecretBox;
  pageSize?: number;
}): Promise<WebhookResealReport> {
  const report: WebhookResealReport = {
    checked: 0,
    resealed: 0,
    current: 0,
    changed_meanwhile: 0,
    unopenable: [],
  };
  let after: string | null = null;
  for (;;) {
    const page: SealedWebhookSecrets[] = await serviceDb.call("einv_webhook_secret_list", {
      p_after: after,
      p_limit: pageSize,
    });
    for (const row of page) {
      const identity = webhookSecretIdentity(row.org_id, row.id);
      const sealed: ["current" | "previous", string | null, string | null][] = [
        ["current", row.secret_ciphertext, row.key_id],
        ["previous", row.previous_secret_ciphertext, row.previous_key_id],
      ];
      for (const [which, ciphertext, keyId] of sealed) {
        if (!ciphertext) continue;
        report.checked++;
        let plaintext: string;
        try {
          // which key opens it decides, not the recorded id
          const opened = await secretBox.openWithKeyId(ciphertext, identity);
          if (opened.keyId === secretBox.keyId && keyId === secretBox.keyId) {
            report.current++;
            continue;
          }
          plaintext = opened.plaintext;
        } catch (error) {
          if (!(error instanceof SecretBoxError)) throw error;
          report.unopenable.push({ webhook_id: row.id, org_id: row.org_id, which });
          continue;
        }
        const swapped = await serviceDb.call("einv_webhook_secret_reseal", {
          p_id: row.id,
          p_previous: which === "previous",
          p_expected_ciphertext: ciphertext,
          p_ciphertext: await secretBox.seal(plaintext, identity),
          p_key_id: secretBox.keyId,
        });
        if (swapped) report.resealed++;
        else report.changed_meanwhile++;
      }
    }
    const last = page.at(-1);
    if (!last || page.length < pageSize) return report;
    after = last.id;
  }
}
