/**
 * Hex digests with `node:crypto` (Node 20, Deno and the Edge Runtime alike): synchronous and native.
 * WebCrypto's `crypto.subtle.digest` gives the same bytes, but under Deno each call is a promise
 * round trip through its worker pool — ten times the cost of the hash itself, on every request.
 */
import { createHash, createHmac } from "node:crypto";

/** The lowercase hex digest of `text`'s UTF-8 bytes: SHA-256 for fingerprints, SHA-384 for CUFE/CUDE. */
export async function hexDigest(algorithm: "SHA-256" | "SHA-384", text: string): Promise<string> {
  return createHash(algorithm === "SHA-256" ? "sha256" : "sha384")
    .update(text, "utf8")
    .digest("hex");
}

/** The lowercase hex HMAC-SHA-256 of `text` under `secret`: a digest no one without it can test guesses against. */
export async function hmacHex(secret: string, text: string): Promise<string> {
  return createHmac("sha256", secret).update(text, "utf8").digest("hex");
}
