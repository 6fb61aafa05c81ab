/**
 * Seals provider API keys with AES-256-GCM (WebCrypto, so it runs on Deno and Node). The associated
 * data binds a ciphertext to its row — org, company, service, environment — so a ciphertext copied
 * into another row fails to open. Format: `v1:<iv, base64url>:<ciphertext and tag, base64url>`.
 *
 * Rotation: a box seals with its current key and opens with the current key or any previous one
 * (EINV_CREDENTIALS_PREVIOUS_KEYS). Each key has an id — the first 16 hex digits of a SHA-256 of
 * the key under a label, which says nothing about the key — that rows record beside their
 * ciphertext, so `npm run credentials:reseal` knows what is left to re-seal.
 */

export interface CredentialIdentity {
  org_id: string;
  company_id: string;
  service: string;
  environment: string;
}

export interface SecretBox {
  /** The id of the key `seal` uses. */
  readonly keyId: string;
  seal(plaintext: string, identity: CredentialIdentity): Promise<string>;
  /**
   * Opens with the current key or a previous one. Rejects with SecretBoxError when the ciphertext
   * was tampered with, belongs to another row, or was sealed by a key this box does not hold.
   */
  open(sealed: string, identity: CredentialIdentity): Promise<string>;
  /** `open`, and the id of the key that opened it (what a re-seal trusts, not a recorded id). */
  openWithKeyId(sealed: string, identity: CredentialIdentity): Promise<{ plaintext: string; keyId: string }>;
}

export class SecretBoxError extends Error {
  override name = "SecretBoxError";
}

const VERSION = "v1";

/**
 * `keyBase64` is 32 random bytes in base64 (standard or url-safe), e.g. `openssl rand -base64 32`;
 * `previousKeys` are keys it replaced, still accepted to open what they sealed.
 */
export async function createSecretBox(
  keyBase64: string,
  previousKeys: readonly string[] = [],
): Promise<SecretBox> {
  const current = await importKey(keyBase64);
  const all = [current, ...(await Promise.all(previousKeys.map(importKey)))];

  const openWithKeyId: SecretBox["openWithKeyId"] = async (sealed, identity) => {
    const [version, iv, ciphertext] = sealed.split(":");
    if (version !== VERSION || !iv || !ciphertext) throw new SecretBoxError("unrecognised ciphertext format");
    for (const { key, id } of all) {
      try {
        const plaintext = await crypto.subtle.decrypt(
          { name: "AES-GCM", iv: fromBase64(iv), additionalData: associatedData(identity) },
          key,
          fromBase64(ciphertext),
        );
        return { plaintext: new TextDecoder().decode(plaintext), keyId: id };
      } catch {
        // not this key (or not this row): the tag check fails; try the next one
      }
    }
    throw new SecretBoxError("the stored credential cannot be decrypted for this company and service");
  };

  return {
    keyId: current.id,
    async seal(plaintext, identity) {
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const ciphertext = await crypto.subtle.encrypt(
        { name: "AES-GCM", iv, additionalData: associatedData(identity) },
        current.key,
        new TextEncoder().encode(plaintext),
      );
      return `${VERSION}:${toBase64Url(iv)}:${toBase64Url(new Uint8Array(ciphertext))}`;
    },
    async open(sealed, identity) {
      return (await openWithKeyId(sealed, identity)).plaintext;
    },
    openWithKeyId,
  };
}

/** The id a key is recorded under (16 hex digits); the same for every encoding of the same bytes. */
export async function credentialsKeyId(keyBase64: string): Promise<string> {
  return (await importKey(keyBase64)).id;
}

async function importKey(keyBase64: string): Promise<{ id: string; key: CryptoKey }> {
  const raw = fromBase64(keyBase64);
  if (raw.byteLength !== 32) throw new SecretBoxError("the credentials key must be 32 bytes, base64-encoded");
  const label = new TextEncoder().encode("einvoicing-credentials-key-id|");
  const labelled = new Uint8Array(label.length + raw.length);
  labelled.set(label);
  labelled.set(raw, label.length);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", labelled));
  const id = Array.from(digest.subarray(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
  return { id, key: await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]) };
}

/** The last four characters, for showing which key is stored without showing the key. */
export function keyHint(apiKey: string): string {
  return apiKey.length >= 8 ? apiKey.slice(-4) : "";
}

function associatedData(id: CredentialIdentity): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(
    `einvoicing-credential|${id.org_id}|${id.company_id}|${id.service}|${id.environment}`,
  );
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const normal = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(normal + "=".repeat((4 - (normal.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
