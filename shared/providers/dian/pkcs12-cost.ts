/**
 * What opening a PKCS#12 will cost, read before any of it is paid. Every password-based step of a
 * PKCS#12 — the MAC key, each encrypted SafeContents, each shrouded private key — derives a key from
 * the password with as many iterations as the file itself declares (RFC 7292 §4 MacData.iterations,
 * Appendix C pkcs-12PbeParams; RFC 8018 PBKDF2-params.iterationCount), synchronously, on the thread
 * that serves every tenant. So the algorithms are read from the ASN.1 first and held to an
 * allow-list (./pkcs12-algorithms.ts), the work each step asks for is counted as it will really be
 * done — iterations × the blocks derived × the hash's weight — and the file is refused when the sum
 * is over a cap, before any derivation runs.
 *
 * The steps in view without the password are the MAC, the encrypted SafeContents and the shrouded
 * keys in plain SafeContents. A shrouded key inside an encrypted SafeContents is not: those
 * SafeContents are decrypted here first (their cost is within the cap by then), their keys read, and
 * only then does node-forge open the file (deriving those SafeContents' keys a second time, which
 * the sum counts). OpenSSL, Windows and Java put the key in plain SafeContents and the certificates
 * in encrypted ones.
 *
 * The structure is read no more loosely than node-forge reads it (every tag and class checked, the
 * PBKDF2 parameters in RFC 8018's order only), so what is counted here is what forge will derive.
 */
import forgeModule from "node-forge";
import { useNativePbkdf2 } from "./pbkdf2.ts";
import {
  ACCEPTED,
  algorithmName,
  blocks,
  type Hash,
  type Kdf,
  MAC_DIGESTS,
  PBES2,
  PBES2_CIPHERS,
  PBKDF2,
  PBKDF2_PRFS,
  PKCS12_PBES,
  WEIGHTS,
} from "./pkcs12-algorithms.ts";

// every PKCS#12 this service opens is checked here first: from then on forge's PBKDF2 is native
useNativePbkdf2();

/**
 * The most key-derivation work opening one file may cost, every step summed (the second pass
 * included), in ./pkcs12-algorithms.ts's units (about a microsecond each on the development
 * machine). Sized so that the costliest file the rules accept (16 KiB at most: the route's bound)
 * opens in under 200 ms of CPU even on a worker's first request, the limit designed for
 * (docs/deploying.md, "CPU per request"; bench/pkcs12-timing.ts measures it), and so that what tools
 * write at their defaults is accepted: OpenSSL 3's 12,288 here, its `-legacy` 49,152, 3DES
 * throughout 61,440 (Windows' TripleDES-SHA1, at 2,000 iterations, 60,000), Java's keytool (10,000
 * iterations of PBES2) 60,000.
 * BouncyCastle's 51,200 iterations of 3DES are refused, with a message saying how to export again.
 */
export const MAX_PKCS12_WORK = 64_000;

/**
 * The most password-protected parts (the MAC, each encrypted SafeContents, each shrouded key) a file
 * may have. Each costs a fixed setup besides its counted work (tens of microseconds, more with a
 * long password), and an encrypted SafeContents is decrypted twice: 254 of them at one iteration
 * each stayed under the work cap yet took 300 ms of CPU. OpenSSL, Windows and Java write three.
 */
export const MAX_PKCS12_PARTS = 6;

/** The file is refused before any of its work ran; the message says why (a 400 for the caller). */
export class Pkcs12RefusedError extends Error {
  override name = "Pkcs12RefusedError";
}

/** The file declares more key-derivation work than the cap. */
export class Pkcs12CostError extends Pkcs12RefusedError {
  override name = "Pkcs12CostError";
  constructor(
    readonly work: number,
    readonly limit: number,
  ) {
    const asked = Number.isFinite(work) ? Math.ceil(work).toLocaleString("en-US") : "more than 2^53";
    super(
      `the certificate file asks for ${asked} units of password key-derivation work to open ` +
        `(iterations × blocks × each hash's weight; OpenSSL's defaults cost 12,288); at most ` +
        `${limit.toLocaleString("en-US")} are accepted (export it again with fewer iterations, e.g. ` +
        "`openssl pkcs12 -export -iter 2048`)",
    );
  }
}

/** The file uses an algorithm or a mode this service does not accept (named in the message). */
export class Pkcs12UnsupportedError extends Pkcs12RefusedError {
  override name = "Pkcs12UnsupportedError";
}

/** The structure cannot be read as a PKCS#12 (the message says what). */
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
const UNIVERSAL = 0;
const CONTEXT = 0x80;

const DATA = "1.2.840.113549.1.7.1";
const ENCRYPTED_DATA = "1.2.840.113549.1.7.6";
const SHROUDED_KEY_BAG = "1.2.840.113549.1.12.10.1.2";

type Step = "mac" | "encrypted contents" | "private key";

/** One password-based key derivation opening the file runs, as node-forge will run it. */
export interface Pkcs12Derivation {
  step: Step;
  kdf: Kdf;
  hash: Hash;
  iterations: number;
  /** Hash-length blocks derived: PBKDF2's ⌈key length ÷ hash length⌉; PKCS#12's key's and IV's. */
  blocks: number;
  /** iterations × blocks × the weight of one (./pkcs12-algorithms.ts). */
  work: number;
}

/**
 * The derivations opening `p12` costs, checked against `limit` before node-forge runs any of them
 * (the only ones run here are those of encrypted SafeContents, once their sum is known to be within
 * it). Throws Pkcs12UnsupportedError for an algorithm or mode not accepted, Pkcs12CostError over the
 * cap, Pkcs12StructureError for what is not a PKCS#12, Pkcs12PasswordError when encrypted contents
 * do not decrypt.
 */
export function checkPkcs12Cost(
  p12: Uint8Array,
  password: string,
  limit = MAX_PKCS12_WORK,
): Pkcs12Derivation[] {
  const pfx = parse(binaryString(p12));
  const [version, authSafe, macData] = children(pfx, "the file");
  if (!isUniversal(version, INTEGER) || version.value !== "\x03" || !authSafe) {
    throw structure("the file is not a PKCS#12 (PFX version 3)");
  }
  if (oidOf(child(authSafe, 0)) !== DATA) {
    throw unsupported("the PKCS#12 is signed with a public key rather than a password");
  }
  const derivations: Pkcs12Derivation[] = [];
  if (macData) derivations.push(macDerivation(macData));
  const encrypted: { algorithm: Asn1; content: string }[] = [];
  const authenticatedSafe = parse(octets(explicit(authSafe)));
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
      const derivation = derivationOf("encrypted contents", algorithm);
      // counted twice: decrypted here to look inside, then again by node-forge
      derivations.push(derivation, derivation);
      encrypted.push({ algorithm, content: typeof body.value === "string" ? body.value : joined(body) });
    } else {
      throw unsupported("the PKCS#12 holds contents encrypted with a public key");
    }
  }
  assertWithin(derivations, limit, encrypted.length);
  for (const { algorithm, content } of encrypted) {
    derivations.push(...keyDerivations(decrypt(algorithm, content, password)));
    assertWithin(derivations, limit, encrypted.length);
  }
  return derivations;
}

/** `derivations` hold to the parts' count and the work cap; each encrypted SafeContents is in them twice. */
function assertWithin(derivations: Pkcs12Derivation[], limit: number, encryptedContents: number): void {
  const parts = derivations.length - encryptedContents;
  if (parts > MAX_PKCS12_PARTS) {
    throw new Pkcs12UnsupportedError(
      `the certificate file has ${parts} password-protected parts (its MAC, encrypted contents and ` +
        `keys); at most ${MAX_PKCS12_PARTS} are accepted, and OpenSSL, Windows and Java write three ` +
        "(export it again, e.g. `openssl pkcs12 -export`)",
    );
  }
  const total = derivations.reduce((sum, d) => sum + d.work, 0);
  if (total > limit) throw new Pkcs12CostError(total, limit);
}

/** MacData { mac DigestInfo { digestAlgorithm, digest }, macSalt, iterations DEFAULT 1 }: one block. */
function macDerivation(macData: Asn1): Pkcs12Derivation {
  const [mac, , count] = children(macData, "the MAC");
  const oid = oidOf(child(child(mac, 0), 0));
  const hash = MAC_DIGESTS[oid];
  if (!hash) throw unsupported(`its MAC uses ${algorithmName(oid)}`);
  return derivation("mac", "pkcs12", hash, count ? integer(count) : 1, 1);
}

/** The shrouded keys' derivations in one SafeContents (DER bytes). */
function keyDerivations(safeContents: string): Pkcs12Derivation[] {
  if (safeContents.length === 0) return [];
  return children(parse(safeContents), "the contents")
    .filter((bag) => oidOf(child(bag, 0)) === SHROUDED_KEY_BAG)
    .map((bag) => derivationOf("private key", child(explicit(bag), 0)));
}

/**
 * The derivation a password-based encryption's AlgorithmIdentifier asks for: PBES2 with PBKDF2 and
 * an accepted PRF and cipher, or one of PKCS#12's own accepted encryptions.
 */
function derivationOf(step: Step, algorithm: Asn1): Pkcs12Derivation {
  const oid = oidOf(child(algorithm, 0));
  const params = child(algorithm, 1);
  const what = `its ${step}`;
  if (oid === PBES2) {
    // PBES2-params { keyDerivationFunc, encryptionScheme }
    const [kdf, scheme] = children(params, "the PBES2 parameters");
    const kdfOid = oidOf(children(kdf, "the key derivation")[0]);
    if (kdfOid !== PBKDF2) throw unsupported(`${what} derives its key with ${algorithmName(kdfOid)}`);
    const cipherOid = oidOf(children(scheme, "the encryption scheme")[0]);
    const cipher = PBES2_CIPHERS[cipherOid];
    if (!cipher) throw unsupported(`${what} is encrypted with ${algorithmName(cipherOid)}`);
    // PBKDF2-params { salt OCTET STRING, iterationCount, keyLength OPTIONAL, prf DEFAULT hmacWithSHA1 };
    // node-forge derives the cipher's key length whatever keyLength says, and so does the count here
    const [salt, count, ...rest] = children(child(kdf, 1), "the PBKDF2 parameters");
    if (isUniversal(rest[0], INTEGER)) rest.shift();
    const prf = rest.shift();
    if (!isUniversal(salt, OCTET_STRING) || typeof salt.value !== "string" || rest.length > 0) {
      throw structure("the PKCS#12's PBKDF2 parameters are not in RFC 8018's form");
    }
    let hash: Hash = "sha1";
    if (prf !== undefined) {
      const prfOid = oidOf(children(prf, "the PBKDF2 PRF")[0]);
      const named = PBKDF2_PRFS[prfOid];
      if (!named) throw unsupported(`${what} derives its key with PBKDF2 and ${algorithmName(prfOid)}`);
      hash = named;
    }
    return derivation(step, "pbkdf2", hash, integer(count), blocks(cipher.keyBytes, hash));
  }
  const pbe = PKCS12_PBES[oid];
  if (!pbe) throw unsupported(`${what} is encrypted with ${algorithmName(oid)}`);
  // pkcs-12PbeParams { salt OCTET STRING, iterations INTEGER }
  const [salt, count] = children(params, "the encryption's parameters");
  if (!isUniversal(salt, OCTET_STRING) || typeof salt.value !== "string") {
    throw structure("the PKCS#12's encryption parameters are not in RFC 7292's form");
  }
  const derived = blocks(pbe.keyBytes, "sha1") + blocks(pbe.ivBytes, "sha1");
  return derivation(step, "pkcs12", "sha1", integer(count), derived);
}

function derivation(step: Step, kdf: Kdf, hash: Hash, iterations: number, derived: number): Pkcs12Derivation {
  return { step, kdf, hash, iterations, blocks: derived, work: iterations * derived * WEIGHTS[kdf][hash] };
}

function decrypt(algorithm: Asn1, content: string, password: string): string {
  let cipher: ForgeCipher;
  try {
    cipher = forge.pki.pbe.getCipher(oidOf(child(algorithm, 0)), child(algorithm, 1), password);
  } catch {
    throw structure("the PKCS#12's encrypted contents cannot be read");
  }
  cipher.update(forge.util.createBuffer(content));
  if (!cipher.finish()) throw new Pkcs12PasswordError("the encrypted contents do not decrypt");
  return cipher.output.getBytes();
}

/** BER, as node-forge reads a PKCS#12's inner parts (`strict: false`). */
function parse(bytes: string): Asn1 {
  try {
    return forge.asn1.fromDer(forge.util.createBuffer(bytes), { strict: false });
  } catch {
    throw structure("the file is not a PKCS#12 certificate");
  }
}

function isUniversal(node: Asn1 | undefined, type: number): node is Asn1 {
  return node?.tagClass === UNIVERSAL && node.type === type;
}

function children(node: Asn1 | undefined, what: string): Asn1[] {
  if (!isUniversal(node, SEQUENCE) || !Array.isArray(node.value)) {
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
  if (!isUniversal(node, OCTET_STRING)) throw structure("the file is not a PKCS#12 certificate");
  return typeof node.value === "string" ? node.value : joined(node);
}

function joined(node: Asn1): string {
  return (node.value as Asn1[])
    .map((chunk) => (typeof chunk.value === "string" ? chunk.value : joined(chunk)))
    .join("");
}

function oidOf(node: Asn1 | undefined): string {
  if (!isUniversal(node, OID) || typeof node.value !== "string")
    throw structure("the file is not a PKCS#12 certificate");
  return forge.asn1.derToOid(node.value);
}

/**
 * A non-negative INTEGER, as a number; past 2^53 it is Infinity, which is over any cap. A negative
 * or empty one is not a count.
 */
function integer(node: Asn1 | undefined): number {
  const bytes = node?.value;
  if (
    !isUniversal(node, INTEGER) ||
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

function unsupported(what: string): Pkcs12UnsupportedError {
  return new Pkcs12UnsupportedError(
    `the certificate file is not supported: ${what}; accepted are ${ACCEPTED}, as OpenSSL, Windows and ` +
      "Java write them (export it again, e.g. `openssl pkcs12 -export`)",
  );
}

function binaryString(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 0x8000) out += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return out;
}
