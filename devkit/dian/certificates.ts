/**
 * Test certificates for DIAN signatures, generated on the spot (never committed): a certification
 * authority and a company's signing certificate it issued, with the company's NIT in the subject
 * where DIAN reads it (OID 1.3.6.1.4.1.23267.2.3, and SERIALNUMBER), packed as a PKCS#12 with a
 * password, as a real CA delivers it. Runs on Node and Deno (node-forge; its key generation uses the
 * runtime's native RSA when there is one).
 */
import { randomBytes } from "node:crypto";
import forge from "node-forge";
import { describe, type Signer } from "../../shared/providers/dian/certificate.ts";
import { capture } from "../capture.ts";

export interface TestCertificates {
  /** The company's PKCS#12: its key, its certificate and the CA's. */
  p12: Uint8Array;
  password: string;
  /** The company's certificate, PEM. */
  certificatePem: string;
  /** The CA's certificate, PEM: what a verifier trusts. */
  caPem: string;
  nit: string;
  /** The leaf's serial number in decimal. */
  serialNumber: string;
  /** The company's private key, PKCS#8 DER in base64: what a DIAN-mode credential seals. */
  pkcs8Base64: string;
}

export interface TestCertificateOptions {
  nit?: string;
  companyName?: string;
  password?: string;
  /** PKCS#12 encryption: AES-256 (OpenSSL 3's default) or 3DES (older tools, Windows). */
  algorithm?: "aes256" | "3des";
  /** Validity of the company's certificate; default from yesterday to a year from now. */
  notBefore?: Date;
  notAfter?: Date;
  /** The company key's size; default 2048 bits. */
  bits?: number;
}

/**
 * A serial of 9 random bytes, positive: at most 22 decimal digits. libxml2 reads xs:integer with at
 * most 24 digits, so xmllint rejects the 48-digit serials of 20-byte ones (OpenSSL's default) in
 * `X509SerialNumber`; the CAs DIAN trusts issue 23–24-digit ones.
 */
function serial(): string {
  const bytes = randomBytes(9);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return bytes.toString("hex");
}

type KeyPair = forge.pki.rsa.KeyPair;
/** An RSA key pair, synchronously (node-forge uses the runtime's native RSA on Node and Deno). */
const keys = (bits = 2048): KeyPair => forge.pki.rsa.generateKeyPair({ bits, e: 0x10001 });

/**
 * An RSA key pair made by WebCrypto, which generates off the main thread: what a server generates
 * its keys with, so no request waits on a blocked event loop. Also its non-extractable CryptoKey.
 */
async function keysOffThread(): Promise<{ pair: KeyPair; privateKey: CryptoKey }> {
  const generated = await crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  );
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", generated.privateKey));
  const der = Array.from(pkcs8, (b) => String.fromCharCode(b)).join("");
  const privateKey = forge.pki.privateKeyFromAsn1(forge.asn1.fromDer(der)) as forge.pki.rsa.PrivateKey;
  return {
    pair: { privateKey, publicKey: forge.pki.setRsaPublicKey(privateKey.n, privateKey.e) },
    privateKey: await crypto.subtle.importKey(
      "pkcs8",
      pkcs8,
      { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
      false,
      ["sign"],
    ),
  };
}

const DAY = 86_400_000;

interface TestCa {
  cert: forge.pki.Certificate;
  privateKey: forge.pki.rsa.PrivateKey;
  name: forge.pki.CertificateField[];
}

/** A self-signed certification authority, valid from two days ago for ten years. */
function createCa(caKeys: KeyPair): TestCa {
  const now = Date.now();
  const ca = forge.pki.createCertificate();
  ca.publicKey = caKeys.publicKey;
  ca.serialNumber = serial();
  ca.validity.notBefore = new Date(now - 2 * DAY);
  ca.validity.notAfter = new Date(now + 3650 * DAY);
  const name = [
    { name: "commonName", value: "CA de pruebas einvoicing" },
    { name: "organizationName", value: "Pruebas" },
    { name: "countryName", value: "CO" },
  ];
  ca.setSubject(name);
  ca.setIssuer(name);
  ca.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  ca.sign(caKeys.privateKey, forge.md.sha256.create());
  return { cert: ca, privateKey: caKeys.privateKey, name };
}

interface LeafOptions {
  nit: string;
  companyName: string;
  notBefore?: Date | undefined;
  notAfter?: Date | undefined;
}

/** A signing certificate `ca` issued, with the NIT in the subject where DIAN reads it. */
function issueLeaf(ca: TestCa, leafKeys: KeyPair, options: LeafOptions) {
  const now = Date.now();
  const leaf = forge.pki.createCertificate();
  leaf.publicKey = leafKeys.publicKey;
  leaf.serialNumber = serial();
  leaf.validity.notBefore = options.notBefore ?? new Date(now - DAY);
  leaf.validity.notAfter = options.notAfter ?? new Date(now + 365 * DAY);
  leaf.setSubject([
    { name: "commonName", value: options.companyName },
    { type: "2.5.4.5", value: options.nit },
    { type: "1.3.6.1.4.1.23267.2.3", value: options.nit },
    { name: "countryName", value: "CO" },
  ]);
  leaf.setIssuer(ca.name);
  leaf.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, nonRepudiation: true, critical: true },
    { name: "authorityKeyIdentifier", keyIdentifier: ca.cert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  leaf.sign(ca.privateKey, forge.md.sha256.create());
  return { cert: leaf, privateKey: leafKeys.privateKey };
}

/** A CA and a company certificate issued by it, and the company's PKCS#12. */
export function createTestCertificates(options: TestCertificateOptions = {}): TestCertificates {
  const nit = options.nit ?? "900123456";
  const password = options.password ?? "clave-de-prueba";
  const ca = createCa(keys());
  const leafKeys = keys(options.bits);
  const leaf = issueLeaf(ca, leafKeys, {
    nit,
    companyName: options.companyName ?? "Empresa Demo S.A.S.",
    notBefore: options.notBefore,
    notAfter: options.notAfter,
  });
  const p12 = forge.pkcs12.toPkcs12Asn1(leaf.privateKey, [leaf.cert, ca.cert], password, {
    algorithm: options.algorithm ?? "aes256",
    generateLocalKeyId: true,
    friendlyName: "firma",
  });
  const der = forge.asn1.toDer(p12).getBytes();
  const pkcs8Base64 = forge.util.encode64(
    forge.asn1.toDer(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(leafKeys.privateKey))).getBytes(),
  );
  // the secret canary looks for the key (whole, and a stretch of its private part) in everything the
  // service answers, logs or stores
  capture("secret", pkcs8Base64);
  capture("secret", pkcs8Base64.slice(800, 864));
  return {
    p12: Uint8Array.from(der, (c) => c.charCodeAt(0)),
    password,
    certificatePem: forge.pki.certificateToPem(leaf.cert),
    caPem: forge.pki.certificateToPem(ca.cert),
    nit,
    serialNumber: BigInt(`0x${leaf.cert.serialNumber}`).toString(10),
    pkcs8Base64,
  };
}

export interface TestSigners {
  /** The CA's certificate, PEM: what a verifier trusts for every signer. */
  caPem: string;
  /** One per holder asked for, in order: its Signer and its certificate in PEM. */
  signers: { signer: Signer; certificatePem: string }[];
}

/**
 * A CA and one signing certificate per holder, as Signers ready to sign (no PKCS#12 to open: no
 * password derivation). The keys are generated off the main thread, side by side (WebCrypto):
 * about half a second for three on two cores, during which the event loop stays free.
 */
export async function createTestSigners(
  holders: { nit: string; companyName: string }[],
): Promise<TestSigners> {
  const [caKeys, ...leafKeys] = await Promise.all([keysOffThread(), ...holders.map(() => keysOffThread())]);
  if (!caKeys) throw new Error("no CA key");
  const ca = createCa(caKeys.pair);
  const signers = holders.map((holder, i) => {
    const generated = leafKeys[i];
    if (!generated) throw new Error("a holder without a key");
    const leaf = issueLeaf(ca, generated.pair, holder);
    return {
      signer: { certificate: describe(leaf.cert), privateKey: generated.privateKey },
      certificatePem: forge.pki.certificateToPem(leaf.cert),
    };
  });
  return { caPem: forge.pki.certificateToPem(ca.cert), signers };
}
