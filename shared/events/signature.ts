/**
 * Standard Webhooks' symmetric scheme (standard-webhooks/standard-webhooks, spec/standard-webhooks.md
 * at 03f5f8c, "Signature scheme" and "Webhook headers"): a secret of random bytes shown as `whsec_`
 * + base64; each message signed with HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`,
 * keyed with the secret's bytes (its base64 part decoded), and sent as `v1,<base64 signature>` — one
 * per secret that signs, space-separated, so a receiver can move to a rotated secret without a gap.
 * WebCrypto only, so it runs on Deno and Node.
 */
import type { CredentialIdentity } from "../crypto/secret-box.ts";

export const SECRET_PREFIX = "whsec_";
/** The spec asks for 24 to 64 bytes: 32, the size of an HMAC-SHA256 output. */
const SECRET_BYTES = 32;

/** A new signing secret, `whsec_` + 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

/** The `webhook-signature` header's value: one `v1,<base64>` per secret, current secret first. */
export async function signatures(
  secrets: readonly string[],
  message: { id: string; timestamp: number; body: string },
): Promise<string> {
  const content = new TextEncoder().encode(`${message.id}.${message.timestamp}.${message.body}`);
  const signed = await Promise.all(
    secrets.map(async (secret) => {
      const key = await crypto.subtle.importKey(
        "raw",
        secretBytes(secret),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"],
      );
      return `v1,${toBase64(new Uint8Array(await crypto.subtle.sign("HMAC", key, content)))}`;
    }),
  );
  return signed.join(" ");
}

/**
 * What an endpoint's secret is sealed under (shared/crypto/secret-box.ts): its org and its id, under
 * a service name no provider credential has, so a ciphertext moved to another endpoint, or to a
 * credential, does not open.
 */
export function webhookSecretIdentity(orgId: string, webhookId: string): CredentialIdentity {
  return { org_id: orgId, company_id: webhookId, service: "webhook", environment: "signing" };
}

function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  if (!secret.startsWith(SECRET_PREFIX)) throw new TypeError("a webhook secret starts with whsec_");
  const binary = atob(secret.slice(SECRET_PREFIX.length));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}
