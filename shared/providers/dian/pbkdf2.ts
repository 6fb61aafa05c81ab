/**
 * PBKDF2 for node-forge's PKCS#12 reader, run by the runtime's own crypto (node:crypto's
 * `pbkdf2Sync`: OpenSSL under Node, Rust under Deno) instead of forge's JavaScript.
 *
 * Why: node-forge derives a PBES2 key with `forge.pkcs5.pbkdf2(password, salt, count, dkLen, md)`
 * and a message-digest object, which keeps the derivation in JavaScript (forge takes its own native
 * path only for a digest given by name). Measured on the development machine, one iteration of
 * HMAC-SHA-256 costs forge about 7 µs and the runtime about 0.3–0.7 µs; an OpenSSL 3 file (three
 * PBKDF2 derivations of 2,048 iterations here) then opens in a few milliseconds rather than about
 * 50, and the work a hostile file can ask for within the cap (./pkcs12-cost.ts) is ten times smaller.
 *
 * The password is given to PBKDF2 as UTF-8, as OpenSSL does (RFC 8018 §3 leaves the encoding to the
 * application and names UTF-8): forge's own passes each character's low byte, so a file OpenSSL
 * exported with a password such as `contraseña` did not open at all.
 *
 * Installed once, on the shared `forge.pkcs5` namespace, by ./pkcs12-cost.ts (every PKCS#12 this
 * service opens goes through it); a digest other than the four PBES2 files use, or a call with a
 * callback, is left to forge's own implementation.
 */
import { pbkdf2Sync } from "node:crypto";
import forgeModule from "node-forge";

type Pbkdf2 = (
  password: string,
  salt: string,
  iterations: number,
  keyLength: number,
  md?: unknown,
  callback?: unknown,
) => string;

const forge = forgeModule as unknown as { pkcs5: { pbkdf2: Pbkdf2 & { native?: true } } };

/** forge's digest objects' `algorithm` names, and node:crypto's for the same hash. */
const DIGESTS: Record<string, string> = {
  sha1: "sha1",
  sha256: "sha256",
  sha384: "sha384",
  sha512: "sha512",
};

/** PBKDF2 of `password` (UTF-8) and `salt` (forge's binary string), as forge's binary string. */
export function nativePbkdf2(
  password: string,
  salt: string,
  iterations: number,
  keyLength: number,
  digest: string,
): string {
  const saltBytes = Uint8Array.from(salt, (c) => c.charCodeAt(0) & 0xff);
  const key = pbkdf2Sync(new TextEncoder().encode(password), saltBytes, iterations, keyLength, digest);
  let out = "";
  for (const byte of key) out += String.fromCharCode(byte);
  return out;
}

/** Routes node-forge's PBKDF2 through `nativePbkdf2` (idempotent). */
export function useNativePbkdf2(): void {
  if (forge.pkcs5.pbkdf2.native) return;
  const own = forge.pkcs5.pbkdf2;
  const routed: Pbkdf2 = (password, salt, iterations, keyLength, md, callback) => {
    const digest =
      md !== null && typeof md === "object"
        ? DIGESTS[(md as { algorithm?: string }).algorithm ?? ""]
        : undefined;
    if (digest === undefined || callback !== undefined) {
      return own(password, salt, iterations, keyLength, md, callback);
    }
    return nativePbkdf2(password, salt, iterations, keyLength, digest);
  };
  forge.pkcs5.pbkdf2 = Object.assign(routed, { native: true as const });
}
