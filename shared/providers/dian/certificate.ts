/**
 * The company's signing certificate, opened from the PKCS#12 file its certification authority
 * issued, with its password. node-forge reads the PKCS#12 (pure JavaScript: the AES/PBES2 files
 * OpenSSL 3 writes and the RC2-40 and 3DES files older tools and Windows write, which WebCrypto
 * cannot decrypt); the private key then goes into WebCrypto, which signs. Opening costs the
 * password's key derivations (milliseconds to a hundred): open once per credential, sign many times —
 * or keep the opened key (`readPkcs12`'s PKCS#8) sealed and rebuild the signer from it (`signerFromParts`).
 * The file's algorithms and declared key-derivation work are checked before any of it runs
 * (./pkcs12-cost.ts), and its PBKDF2 runs natively (./pbkdf2.ts).
 */
import { createHash } from "node:crypto";
import forgeModule from "node-forge";
import { checkPkcs12Cost, Pkcs12PasswordError, Pkcs12StructureError } from "./pkcs12-cost.ts";

/**
 * The part of node-forge used here, typed here: the deploy bundler resolves `npm:` packages without
 * package.json, so @types/node-forge is not there, and this module must type-check the same anyway.
 */
interface ForgeBuffer {
  getBytes(): string;
}
interface BigNumber {
  equals(other: BigNumber): boolean;
  bitLength(): number;
}
interface RsaKey {
  n?: BigNumber;
  e?: BigNumber;
}
interface NameAttribute {
  type?: string;
  value?: unknown;
}
interface ForgeCertificate {
  publicKey: unknown;
  serialNumber: string;
  issuer: { attributes: NameAttribute[] };
  subject: { attributes: NameAttribute[] };
  validity: { notBefore: Date; notAfter: Date };
}
interface Pkcs12 {
  getBags(filter: {
    bagType: string;
  }): Record<string, { key?: unknown; cert?: ForgeCertificate | null }[] | undefined>;
}
interface Forge {
  asn1: { fromDer(bytes: ForgeBuffer): unknown; toDer(asn1: unknown): ForgeBuffer };
  util: {
    createBuffer(binary: string): ForgeBuffer;
    encode64(binary: string): string;
    decode64(base64: string): string;
  };
  pkcs12: { pkcs12FromAsn1(asn1: unknown, strict: boolean, password: string): Pkcs12 };
  pki: {
    privateKeyToAsn1(key: unknown): unknown;
    wrapRsaPrivateKey(asn1: unknown): unknown;
    certificateToAsn1(cert: ForgeCertificate): unknown;
    certificateFromAsn1(asn1: unknown): ForgeCertificate;
  };
}
const forge = forgeModule as unknown as Forge;

/** The subject attributes DIAN reads the holder's NIT from, in its order ([D] CertificateValidator). */
const NIT_ATTRIBUTES = ["1.3.6.1.4.1.23267.2.3", "2.5.4.5", "2.5.4.97"] as const;

/** PKCS#12 bag types (RFC 7292 §4.2). */
const KEY_BAG = "1.2.840.113549.1.12.10.1.1";
const SHROUDED_KEY_BAG = "1.2.840.113549.1.12.10.1.2";
const CERT_BAG = "1.2.840.113549.1.12.10.1.3";

/** RFC 4514 short names of the attributes a certificate name commonly has. */
const SHORT_NAMES: Record<string, string> = {
  "2.5.4.3": "CN",
  "2.5.4.5": "SERIALNUMBER",
  "2.5.4.6": "C",
  "2.5.4.7": "L",
  "2.5.4.8": "ST",
  "2.5.4.9": "STREET",
  "2.5.4.10": "O",
  "2.5.4.11": "OU",
  "2.5.4.12": "T",
  "1.2.840.113549.1.9.1": "E",
  "0.9.2342.19200300.100.1.25": "DC",
};

export interface CertificateInfo {
  /** The DER certificate, base64 (what `ds:X509Certificate` holds). */
  base64: string;
  /** SHA-256 of the DER, base64 (XAdES CertDigest). */
  sha256: string;
  /** The issuer's name, RFC 4514 string (XAdES X509IssuerName). */
  issuerName: string;
  /** The serial number in decimal (XAdES X509SerialNumber). */
  serialNumber: string;
  /** The subject's name, RFC 4514 string. */
  subject: string;
  /** The holder's NIT as DIAN reads it from the subject (digits only), or null. */
  nit: string | null;
  notBefore: Date;
  notAfter: Date;
}

/** What signs: the certificate and its private key (not extractable). */
export interface Signer {
  certificate: CertificateInfo;
  privateKey: CryptoKey;
}

/** The PKCS#12 could not be opened: wrong password, not a PKCS#12, or no RSA key with its certificate. */
export class CertificateError extends Error {
  override name = "CertificateError";
}

/** What a PKCS#12 holds for signing, read out of it: the leaf certificate and its key as PKCS#8. */
export interface Pkcs12Contents {
  certificate: CertificateInfo;
  /** The RSA private key, PKCS#8 DER: secret. */
  pkcs8: Uint8Array<ArrayBuffer>;
  /** The key's modulus length in bits. */
  keyBits: number;
}

/**
 * Opens a PKCS#12 (`.p12`/`.pfx`) with its password. Throws CertificateError with a plain reason, or
 * a Pkcs12RefusedError (./pkcs12-cost.ts) when the file uses an algorithm not accepted or declares
 * more key-derivation work than the cap, before running any of it.
 */
export async function openPkcs12(p12: Uint8Array, password: string): Promise<Signer> {
  const { certificate, pkcs8 } = readPkcs12(p12, password);
  return { certificate, privateKey: await importSigningKey(pkcs8) };
}

/** `openPkcs12`'s reading: the leaf certificate and its key, not yet imported. Same errors. */
export function readPkcs12(p12: Uint8Array, password: string): Pkcs12Contents {
  try {
    checkPkcs12Cost(p12, password);
  } catch (error) {
    if (error instanceof Pkcs12PasswordError) throw new CertificateError(WRONG_PASSWORD);
    if (error instanceof Pkcs12StructureError) throw new CertificateError(error.message);
    throw error;
  }
  let pfx: Pkcs12;
  try {
    const asn1 = forge.asn1.fromDer(forge.util.createBuffer(binaryString(p12)));
    pfx = forge.pkcs12.pkcs12FromAsn1(asn1, false, password);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CertificateError(
      /mac|password|invalid/i.test(reason) ? WRONG_PASSWORD : "the file is not a PKCS#12 certificate",
    );
  }
  const keyBags = [
    ...(pfx.getBags({ bagType: SHROUDED_KEY_BAG })[SHROUDED_KEY_BAG] ?? []),
    ...(pfx.getBags({ bagType: KEY_BAG })[KEY_BAG] ?? []),
  ];
  const key = keyBags.find((bag) => bag.key)?.key as RsaKey | undefined;
  if (!key?.n || !key.e) throw new CertificateError("the PKCS#12 holds no RSA private key");
  const certificates = (pfx.getBags({ bagType: CERT_BAG })[CERT_BAG] ?? [])
    .map((bag) => bag.cert)
    .filter((cert): cert is ForgeCertificate => Boolean(cert));
  // the leaf is the certificate of the key; the others are its chain
  const { n, e } = key;
  const leaf = certificates.find((cert) => {
    // node-forge reads only RSA certificates (an EC one is null, filtered out above)
    const publicKey = cert.publicKey as Required<RsaKey>;
    return publicKey.n.equals(n) && publicKey.e.equals(e);
  });
  if (!leaf) throw new CertificateError("the PKCS#12 holds no certificate for its private key");
  const pkcs8 = forge.asn1.toDer(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(key))).getBytes();
  return { certificate: describe(leaf), pkcs8: bytesOf(pkcs8), keyBits: key.n.bitLength() };
}

/**
 * The signer of a key kept as PKCS#8 and its certificate (DER, base64: `CertificateInfo.base64`), as
 * `readPkcs12` gave them: no password, no key derivation. Throws CertificateError when either does
 * not read.
 */
export async function signerFromParts(
  pkcs8: Uint8Array<ArrayBuffer>,
  certificateBase64: string,
): Promise<Signer> {
  let certificate: CertificateInfo;
  try {
    const der = forge.util.decode64(certificateBase64);
    certificate = describe(forge.pki.certificateFromAsn1(forge.asn1.fromDer(forge.util.createBuffer(der))));
  } catch {
    throw new CertificateError("the certificate does not read as X.509");
  }
  try {
    return { certificate, privateKey: await importSigningKey(pkcs8) };
  } catch {
    throw new CertificateError("the private key does not read as PKCS#8 RSA");
  }
}

const WRONG_PASSWORD = "the certificate's password is wrong or the file is not a PKCS#12";

/** The key, in WebCrypto, for RSASSA-PKCS1-v1_5 with SHA-256; not extractable. */
function importSigningKey(pkcs8: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  return crypto.subtle.importKey("pkcs8", pkcs8, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, [
    "sign",
  ]);
}

/** The fields of `cert` the signature and the credential check need. */
export function describe(cert: ForgeCertificate): CertificateInfo {
  const binary = forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes();
  const der = bytesOf(binary);
  return {
    base64: forge.util.encode64(binary),
    sha256: createHash("sha256").update(der).digest("base64"),
    issuerName: rfc4514(cert.issuer.attributes),
    serialNumber: BigInt(`0x${cert.serialNumber || "0"}`).toString(10),
    subject: rfc4514(cert.subject.attributes),
    nit: nitOf(cert.subject.attributes),
    notBefore: cert.validity.notBefore,
    notAfter: cert.validity.notAfter,
  };
}

/** The NIT in the subject, as DIAN reads it: the first of its attributes present, digits before any DV. */
function nitOf(attributes: NameAttribute[]): string | null {
  for (const oid of NIT_ATTRIBUTES) {
    const value = attributes.find((a) => a.type === oid)?.value;
    const nit = /\d{5,15}/.exec(String(value))?.[0];
    if (nit) return nit;
  }
  return null;
}

/** A name as RFC 4514 writes it: the last RDN first, `type=value` joined by commas, specials escaped. */
function rfc4514(attributes: NameAttribute[]): string {
  return [...attributes]
    .reverse()
    .map((a) => `${SHORT_NAMES[a.type ?? ""] ?? a.type}=${escapeDn(String(a.value ?? ""))}`)
    .join(",");
}

function escapeDn(value: string): string {
  return value
    .replace(/[\\,+"<>;=]/g, (c) => `\\${c}`)
    .replace(/^[ #]/, (c) => `\\${c}`)
    .replace(/ $/, "\\ ");
}

/** forge's binary strings (one byte per character) to bytes and back (a file of at most 16 KiB). */
function bytesOf(binary: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function binaryString(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => String.fromCharCode(b)).join("");
}
