/**
 * A SecretBox that remembers what it opened: AES-GCM through WebCrypto costs about 0.1–0.2 ms a call
 * on Deno (a thread hop), and every provider call opens its credential's key again. An opened key is
 * kept for `ttlMs` under its whole identity *and its ciphertext*, so a key saved again (a new
 * ciphertext) is opened afresh, and one org's entry can never answer for another's. At most `max`
 * entries; failures are not kept. The process holds the sealing key anyway, which opens every
 * ciphertext: keeping opened keys a few minutes adds nothing it could not already read.
 */
import type { CredentialIdentity, SecretBox } from "./secret-box.ts";

export function rememberOpened(box: SecretBox, options: { max?: number; ttlMs?: number } = {}): SecretBox {
  const max = options.max ?? 256;
  const ttlMs = options.ttlMs ?? 5 * 60_000;
  const opened = new Map<string, { plaintext: string; until: number }>();
  const keyOf = (sealed: string, id: CredentialIdentity) =>
    JSON.stringify([id.org_id, id.company_id, id.service, id.environment, sealed]);
  return {
    keyId: box.keyId,
    seal: (plaintext, identity) => box.seal(plaintext, identity),
    openWithKeyId: (sealed, identity) => box.openWithKeyId(sealed, identity),
    async open(sealed, identity) {
      const key = keyOf(sealed, identity);
      const known = opened.get(key);
      if (known && known.until > Date.now()) return known.plaintext;
      opened.delete(key);
      const plaintext = await box.open(sealed, identity);
      if (opened.size >= max) opened.delete(opened.keys().next().value as string);
      opened.set(key, { plaintext, until: Date.now() + ttlMs });
      return plaintext;
    },
  };
}
