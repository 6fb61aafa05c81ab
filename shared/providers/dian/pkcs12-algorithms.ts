/**
 * Which password-based algorithms a PKCS#12 may use here, and what each costs to open. An allow-list
 * of what certificate authorities' tools actually write — OpenSSL 3's defaults (PBES2: PBKDF2 with
 * HMAC-SHA-256 and AES-256-CBC, a SHA-256 MAC), its `-legacy` ones and Windows' "TripleDES-SHA1"
 * (pbeWithSHAAnd3-KeyTripleDES-CBC, pbeWithSHAAnd40BitRC2-CBC, a SHA-1 MAC), Windows' "AES256-SHA256"
 * and Java's keytool (PBES2 with HMAC-SHA-256 and AES-256) — plus the digests and ciphers those
 * tools offer as options. Anything else is refused by name before any of its work runs: an
 * algorithm nobody writes is only ever an attacker's, and node-forge even runs one of them wrongly
 * (`hmacWithSHA224` as SHA-512/224, which costs like SHA-512 and opens no genuine file).
 *
 * The cost of one derivation is its iterations × the hash-length blocks it derives × the weight of
 * one iteration of one block. Weights are about microseconds of CPU on the development machine
 * (two shared cores), measured with node-forge 1.4.3 under Deno and Node (bench/pkcs12-timing.ts
 * reports the figures): PBKDF2 runs natively (./pbkdf2.ts), 0.2–0.8 µs an iteration whatever the
 * hash; the PKCS#12 key derivation (RFC 7292 Appendix B: legacy ciphers and every MAC) runs in
 * forge's JavaScript, 1–3 µs with SHA-1 or SHA-256 and 3.5–8 µs with SHA-384 or SHA-512, whose
 * 64-bit words JavaScript emulates.
 */

export type Hash = "sha1" | "sha256" | "sha384" | "sha512";
/** PBKDF2 (RFC 8018 §5.2), or the PKCS#12 key derivation (RFC 7292 Appendix B). */
export type Kdf = "pbkdf2" | "pkcs12";

const HASH_BYTES: Record<Hash, number> = { sha1: 20, sha256: 32, sha384: 48, sha512: 64 };

/** One iteration of one block, in work units (about a microsecond each here). */
export const WEIGHTS: Record<Kdf, Record<Hash, number>> = {
  pbkdf2: { sha1: 1, sha256: 1, sha384: 1, sha512: 1 },
  pkcs12: { sha1: 3, sha256: 3, sha384: 12, sha512: 12 },
};

/** The blocks of `hash`'s length that deriving `bytes` takes. */
export function blocks(bytes: number, hash: Hash): number {
  return Math.ceil(bytes / HASH_BYTES[hash]);
}

/** The MAC's digests (MacData.mac.digestAlgorithm, RFC 7292 §4): OpenSSL's `-macalg` choices. */
export const MAC_DIGESTS: Readonly<Record<string, Hash>> = {
  "1.3.14.3.2.26": "sha1",
  "2.16.840.1.101.3.4.2.1": "sha256",
  "2.16.840.1.101.3.4.2.2": "sha384",
  "2.16.840.1.101.3.4.2.3": "sha512",
};

/** PBKDF2's PRFs (RFC 8018 Appendix B.1); absent means hmacWithSHA1. */
export const PBKDF2_PRFS: Readonly<Record<string, Hash>> = {
  "1.2.840.113549.2.7": "sha1",
  "1.2.840.113549.2.9": "sha256",
  "1.2.840.113549.2.10": "sha384",
  "1.2.840.113549.2.11": "sha512",
};

/** PBES2's encryption schemes (RFC 8018 Appendix B.2) and the key each needs. */
export const PBES2_CIPHERS: Readonly<Record<string, { name: string; keyBytes: number }>> = {
  "2.16.840.1.101.3.4.1.2": { name: "AES-128-CBC", keyBytes: 16 },
  "2.16.840.1.101.3.4.1.22": { name: "AES-192-CBC", keyBytes: 24 },
  "2.16.840.1.101.3.4.1.42": { name: "AES-256-CBC", keyBytes: 32 },
  "1.2.840.113549.3.7": { name: "DES-EDE3-CBC", keyBytes: 24 },
};

/**
 * PKCS#12's own password-based encryptions (RFC 7292 Appendix C), always with SHA-1 here (node-forge
 * reads no other): a key and an IV are each derived, so both count.
 */
export const PKCS12_PBES: Readonly<Record<string, { name: string; keyBytes: number; ivBytes: number }>> = {
  "1.2.840.113549.1.12.1.3": { name: "pbeWithSHAAnd3-KeyTripleDES-CBC", keyBytes: 24, ivBytes: 8 },
  "1.2.840.113549.1.12.1.6": { name: "pbeWithSHAAnd40BitRC2-CBC", keyBytes: 5, ivBytes: 8 },
};

export const PBES2 = "1.2.840.113549.1.5.13";
export const PBKDF2 = "1.2.840.113549.1.5.12";

/** Names of algorithms that are refused, so that the refusal can say which. */
const REFUSED_NAMES: Readonly<Record<string, string>> = {
  "1.2.840.113549.2.5": "MD5",
  "2.16.840.1.101.3.4.2.4": "SHA-224",
  "2.16.840.1.101.3.4.2.5": "SHA-512/224",
  "2.16.840.1.101.3.4.2.6": "SHA-512/256",
  "1.2.840.113549.2.8": "hmacWithSHA224",
  "1.2.840.113549.2.12": "hmacWithSHA512-224",
  "1.2.840.113549.2.13": "hmacWithSHA512-256",
  "1.3.14.3.2.7": "DES-CBC",
  "1.2.840.113549.3.2": "RC2-CBC",
  "1.2.840.113549.1.12.1.1": "pbeWithSHAAnd128BitRC4",
  "1.2.840.113549.1.12.1.2": "pbeWithSHAAnd40BitRC4",
  "1.2.840.113549.1.12.1.4": "pbeWithSHAAnd2-KeyTripleDES-CBC",
  "1.2.840.113549.1.12.1.5": "pbeWithSHAAnd128BitRC2-CBC",
  "1.2.840.113549.1.5.1": "pbeWithMD2AndDES-CBC",
  "1.2.840.113549.1.5.3": "pbeWithMD5AndDES-CBC",
  "1.2.840.113549.1.5.4": "pbeWithMD2AndRC2-CBC",
  "1.2.840.113549.1.5.6": "pbeWithMD5AndRC2-CBC",
  "1.2.840.113549.1.5.10": "pbeWithSHA1AndDES-CBC",
  "1.2.840.113549.1.5.11": "pbeWithSHA1AndRC2-CBC",
  "1.3.6.1.4.1.11591.4.11": "scrypt",
};

/** An algorithm as a refusal names it: its name when known, and its OID. */
export function algorithmName(oid: string): string {
  const name = REFUSED_NAMES[oid];
  return name ? `${name} (${oid})` : oid;
}

/** What the refusals list as accepted. */
export const ACCEPTED =
  "PBES2 (PBKDF2 with HMAC-SHA-1, -256, -384 or -512; AES-128, -192 or -256-CBC or DES-EDE3-CBC), " +
  "pbeWithSHAAnd3-KeyTripleDES-CBC, pbeWithSHAAnd40BitRC2-CBC, and a MAC with SHA-1, -256, -384 or -512";
