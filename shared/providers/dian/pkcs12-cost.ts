/**
 * What opening a PKCS#12 will cost, read before any of it is paid. Every password-based step of a
 * PKCS#12 — the MAC key, each encrypted SafeContents, each shrouded private key — derives a key from
 * the password with as many iterations as the file itself declares (RFC 7292 §4 MacData.iterations,
 * Appendix C pkcs-12PbeParams; RFC 8018 PBKDF2-params.iterationCount), and node-forge runs those
 * derivations in JavaScript, synchronously. A file that declares a billion iterations would hold the
 * process for hours, so the counts are read from the ASN.1 first and the file is refused when their
 * sum is over a cap.
 *
 * The counts of the MAC, of the encrypted SafeContents and of the shrouded keys in plain SafeContents
 * are in view without the password. A shrouded key inside an encrypted SafeContents is not: those
 * SafeContents are decrypted here first (their cost is within the cap by then), their keys' counts
 * read, and only then does node-forge open the file (deriving those SafeContents' keys a second time,
 * which the sum counts). OpenSSL, Windows and Java put the key in plain SafeContents and the
 * certificates in encrypted ones, so the second pass costs a few milliseconds.
 */
import forgeModule from "node-forge";

/**
 * The most key-derivation iterations opening one file may cost, all steps summed (the second pass
 * included). Files in the wild: OpenSSL 3 writes 2,048 per step (8,192 summed here for its layout;
 * it opens in about 25 ms on Deno, 45 ms on Node), Windows 2,000, Java's keytool 10,000. Measured
 * on the development machine (node-forge 1.4.3): an OpenSSL AES file of 49,000 iterations a step,
 * 196,000 summed, opens in about 0.5 s on Deno and 0.7 s on Node; that is what the cap allows.
 * Iterations of SHA-384/512 count twice (below), so a file at the cap costs about that whatever its hash.
 */
export const MAX_PKCS12_ITERATIONS = 200_000;

/** The file declares more key-derivation work than the cap: refused before any of it ran. */
export class Pkcs12CostError extends Error {
  override name = "Pkcs12CostError";
  constructor(
    readonly iterations: number,
    readonly limit: number,
  ) {
    const asked = Number.isFinite(iterations) ? iterations.toLocaleString("en-US") : "more than 2^53";
    super(
      `the certificate file asks for ${asked} password key-derivation iterations ` +
        `to open; at most ${limit.toLocaleString("en-US")} are accepted (export it again with fewer, e.g. ` +
        "`openssl pkcs12 -export -iter 2048`)",
    );
  }
}

/** The structure cannot be read as a PKCS#12 this service opens (the message says what). */
export class Pkcs12StructureError extends Error {
  override name = "Pkcs12StructureError";
}

/** The encrypted SafeContents do not decrypt with the password. */
export class Pkcs12PasswordError extends Error {
  override name = "Pkcs12PasswordError";
}

/** The parts of node-forge used here, typed here (see ./certificate.ts for why). */
interface Asn1 {
  tagClass: number;
  type: number;
  constructed: boolean;
  value: string | Asn1[];
}
interface ForgeCipher {
  update(data: unknown): void;
  finish(): boolean;
  output: { getBytes(): string };
}
interface Forge {
  asn1: {
    fromDer(bytes: unknown, options?: boolean | { strict?: boolean }): Asn1;
    derToOid(bytes: string): string;
  };
  util: { createBuffer(binary: string): unknown };
  pki: { pbe: { getCipher(oid: string, params: Asn1, password: string): ForgeCipher } };
}
const forge = forgeModule as unknown as Forge;

const SEQUENCE = 16;
const OCTET_STRING = 4;
const INTEGER = 2;
const OID = 6;
const CONTEXT = 0x80;

const DATA = "1.2.840.113549.1.7.1";
const ENCRYPTED_DATA = "1.2.840.113549.1.7.6";
const SHROUDED_KEY_BAG = "1.2.840.113549.1.12.10.1.2";
const PBES2 = "1.2.840.113549.1.5.13";
const PBKDF2 = "1.2.840.113549.1.5.12";
/** pkcs-12PbeIds (RFC 7292 Appendix C) and PKCS#5 v1.5 PBES1: params are { salt, iterations }. */
const SALT_AND_COUNT = /^1\.2\.840\.113549\.1\.(12\.1\.[1-6]|5\.(1|3|4|6|10|11))$/;

/**
 * SHA-384 and SHA-512 run on 64-bit words, which JavaScript emulates: an iteration of either costs
 * node-forge about twice one of SHA-1 or SHA-256 (measured at the cap: 1.24 s against 0.65 s on Node),
 * so it counts twice. hmacWithSHA384/512 (RFC 8018 B.1.2) as PBKDF2's PRF; SHA-384/512 as the MAC's digest.
 */
const DOUBLE_COST = new Set([
  "1.2.840.113549.2.10",
  "1.2.840.113549.2.11",
  "2.16.840.1.101.3.4.2.2",
  "2.16.840.1.101.3.4.2.3",
]);
const weight = (oid: string | undefined) => (oid && DOUBLE_COST.has(oid) ? 2 : 1);

/** One password-based step of opening the file; `iterations` weighted by the hash's cost. */
export interface Pkcs12Derivation {
  step: "mac" | "encrypted contents" | "private key";
  iterations: number;
}

/**
 * The derivations opening `p12` costs, checked against `limit` before node-forge runs any of them
 * (the only ones run here are those of encrypted SafeContents, once their sum is known to be within
 * it). Throws Pkcs12CostError over the cap, Pkcs12StructureError for what is not a PKCS#12 this
 * reads, Pkcs12PasswordError when encrypted contents do not decrypt.
 */
export function checkPkcs12Cost(
  p12: Uint8Array,
  password: string,
  limit = MAX_PKCS12_ITERATIONS,
): Pkcs12Derivation[] {
  const pfx = parse(binaryString(p12), false);
  const [version, authSafe, macData] = children(pfx, "the file");
  if (version?.type !== INTEGER || version.value !== "\x03" || !authSafe) {
    throw structure("the file is not a PKCS#12 (PFX version 3)");
  }
  if (oidOf(child(authSafe, 0)) !== DATA) {
    throw structure("the PKCS#12 is signed with a public key rather than a password, which is not supported");
  }
  const derivations: Pkcs12Derivation[] = [];
  if (macData) {
    // MacData { mac DigestInfo { digestAlgorithm, digest }, macSalt, iterations DEFAULT 1 }
    const [mac, , count] = children(macData, "the MAC");
    const digest = mac ? oidOf(child(child(mac, 0), 0)) : undefined;
    derivations.push({ step: "mac", iterations: (count ? integer(count) : 1) * weight(digest) });
  }
  const encrypted: { algorithm: Asn1; content: string }[] = [];
  const authenticatedSafe = parse(octets(explicit(authSafe)), false);
  for (const contentInfo of children(authenticatedSafe, "the contents")) {
    const type = oidOf(child(contentInfo, 0));
    const content = explicit(contentInfo);
    if (type === DATA) {
      derivations.push(...keyDerivations(octets(content)));
    } else if (type === ENCRYPTED_DATA) {
      // EncryptedData { version, EncryptedContentInfo { contentType, algorithm, [0] IMPLICIT content } }
      const info = child(content, 1);
      const algorithm = child(info, 1);
      const body = child(info, 2);
      const iterations = iterationsOf(algorithm);
      // counted twice: decrypted here to look inside, then again by node-forge
      derivations.push(
        { step: "encrypted contents", iterations },
        { step: "encrypted contents", iterations },
      );
      encrypted.push({ algorithm, content: typeof body.value === "string" ? body.value : joined(body) });
    } else {
      throw structure("the PKCS#12 holds contents encrypted with a public key, which is not supported");
    }
  }
  assertWithin(derivations, limit);
  for (const { algorithm, content } of encrypted) {
    derivations.push(...keyDerivations(decrypt(algorithm, content, password)));
    assertWithin(derivations, limit);
  }
  return derivations;
}

function assertWithin(derivations: Pkcs12Derivation[], limit: number): void {
  const total = derivations.reduce((sum, d) => sum + d.iterations, 0);
  if (total > limit) throw new Pkcs12CostError(total, limit);
}

/** The shrouded keys' derivations in one SafeContents (DER bytes). */
function keyDerivations(safeContents: string): Pkcs12Derivation[] {
  if (safeContents.length === 0) return [];
  return children(parse(safeContents, false), "the contents")
    .filter((bag) => oidOf(child(bag, 0)) === SHROUDED_KEY_BAG)
    .map((bag) => ({
      step: "private key" as const,
      // EncryptedPrivateKeyInfo { encryptionAlgorithm, encryptedData }
      iterations: iterationsOf(child(explicit(bag), 0)),
    }));
}

/** The iteration count of a password-based encryption's AlgorithmIdentifier. */
function iterationsOf(algorithm: Asn1): number {
  const oid = oidOf(child(algorithm, 0));
  const params = child(algorithm, 1);
  if (oid === PBES2) {
    const kdf = child(params, 0);
    if (oidOf(child(kdf, 0)) !== PBKDF2)
      throw structure("the PKCS#12 uses a key derivation other than PBKDF2");
    // PBKDF2-params { salt, iterationCount, keyLength OPTIONAL, prf DEFAULT hmacWithSHA1 }
    const pbkdf2 = child(kdf, 1);
    const prf = Array.isArray(pbkdf2.value)
      ? pbkdf2.value.slice(2).find((part) => part.type === SEQUENCE)
      : undefined;
    return integer(child(pbkdf2, 1)) * weight(prf ? oidOf(child(prf, 0)) : undefined);
  }
  if (SALT_AND_COUNT.test(oid)) return integer(child(params, 1));
  throw structure(`the PKCS#12 uses an encryption this service cannot read (${oid})`);
}

function decrypt(algorithm: Asn1, content: string, password: string): string {
  let cipher: ForgeCipher;
  try {
    cipher = forge.pki.pbe.getCipher(oidOf(child(algorithm, 0)), child(algorithm, 1), password);
  } catch {
    throw structure("the PKCS#12 uses an encryption this service cannot read");
  }
  cipher.update(forge.util.createBuffer(content));
  if (!cipher.finish()) throw new Pkcs12PasswordError("the encrypted contents do not decrypt");
  return cipher.output.getBytes();
}

function parse(bytes: string, strict: boolean): Asn1 {
  try {
    return forge.asn1.fromDer(forge.util.createBuffer(bytes), { strict });
  } catch {
    throw structure("the file is not a PKCS#12 certificate");
  }
}

function children(node: Asn1 | undefined, what: string): Asn1[] {
  if (node?.tagClass !== 0 || node.type !== SEQUENCE || !Array.isArray(node.value)) {
    throw structure(`${what} is not a PKCS#12 structure`);
  }
  return node.value;
}

function child(node: Asn1 | undefined, index: number): Asn1 {
  const found = Array.isArray(node?.value) ? node.value[index] : undefined;
  if (!found) throw structure("the file is not a PKCS#12 certificate");
  return found;
}

/** The value of a ContentInfo's or SafeBag's `[0] EXPLICIT` field. */
function explicit(node: Asn1): Asn1 {
  const tagged = child(node, 1);
  if (tagged.tagClass !== CONTEXT || tagged.type !== 0)
    throw structure("the file is not a PKCS#12 certificate");
  return child(tagged, 0);
}

/** An OCTET STRING's bytes, its BER chunks joined. */
function octets(node: Asn1): string {
  if (node.tagClass !== 0 || node.type !== OCTET_STRING)
    throw structure("the file is not a PKCS#12 certificate");
  return typeof node.value === "string" ? node.value : joined(node);
}

function joined(node: Asn1): string {
  return (node.value as Asn1[])
    .map((chunk) => (typeof chunk.value === "string" ? chunk.value : joined(chunk)))
    .join("");
}

function oidOf(node: Asn1): string {
  if (node.type !== OID || typeof node.value !== "string")
    throw structure("the file is not a PKCS#12 certificate");
  return forge.asn1.derToOid(node.value);
}

/**
 * A non-negative INTEGER, as a number; past 2^53 it is Infinity, which is over any cap. A negative
 * or empty one is not a count.
 */
function integer(node: Asn1): number {
  const bytes = node.value;
  if (
    node.type !== INTEGER ||
    typeof bytes !== "string" ||
    bytes.length === 0 ||
    bytes.charCodeAt(0) & 0x80
  ) {
    throw structure("the PKCS#12 declares an iteration count that is not a positive number");
  }
  let n = 0;
  for (let i = 0; i < bytes.length; i++) n = n * 256 + bytes.charCodeAt(i);
  if (n < 1) throw structure("the PKCS#12 declares an iteration count that is not a positive number");
  return Number.isSafeInteger(n) ? n : Number.POSITIVE_INFINITY;
}

function structure(message: string): Pkcs12StructureError {
  return new Pkcs12StructureError(message);
}

function binaryString(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 0x8000) out += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return out;
}
