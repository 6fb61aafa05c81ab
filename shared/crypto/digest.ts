/** Hex digests with WebCrypto (Node 20 and Deno alike). */

/** The lowercase hex digest of `text`'s UTF-8 bytes: SHA-256 for fingerprints, SHA-384 for CUFE/CUDE. */
export async function hexDigest(algorithm: "SHA-256" | "SHA-384", text: string): Promise<string> {
  const digest = await crypto.subtle.digest(algorithm, new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The lowercase hex HMAC-SHA-256 of `text` under `secret`: a digest no one without it can test guesses against. */
export async function hmacHex(secret: string, text: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(text));
  return Array.from(new Uint8Array(mac), (byte) => byte.toString(16).padStart(2, "0")).join("");
}
