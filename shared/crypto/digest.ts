/** Hex digests with WebCrypto (Node 20 and Deno alike). */

/** The lowercase hex digest of `text`'s UTF-8 bytes: SHA-256 for fingerprints, SHA-384 for CUFE/CUDE. */
export async function hexDigest(algorithm: "SHA-256" | "SHA-384", text: string): Promise<string> {
  const digest = await crypto.subtle.digest(algorithm, new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}
