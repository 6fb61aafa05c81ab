/**
 * Test certificates for DIAN signatures, generated on the spot (never committed): a certification
 * authority and a company's signing certificate it issued, with the company's NIT in the subject
 * where DIAN reads it (OID 1.3.6.1.4.1.23267.2.3, and SERIALNUMBER), packed as a PKCS#12 with a
 * password, as a real CA delivers it. Runs on Node and Deno (node-forge; its key generation uses the
 * runtime's native RSA when there is one).
 */
import { randomBytes } from "node:crypto";
import forge from "node-forge";
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

const keys = (bits = 2048) => forge.pki.rsa.generateKeyPair({ bits, e: 0x10001 });

/** A CA and a company certificate issued by it, and the company's PKCS#12. */
export function createTestCertificates(options: TestCertificateOptions = {}): TestCertificates {
  const nit = options.nit ?? "900123456";
  const password = options.password ?? "clave-de-prueba";
  const day = 86_400_000;
  const now = Date.now();

  const caKeys = keys();
  const ca = forge.pki.createCertificate();
  ca.publicKey = caKeys.publicKey;
  ca.serialNumber = serial();
  ca.validity.notBefore = new Date(now - 2 * day);
  ca.validity.notAfter = new Date(now + 3650 * day);
  const caName = [
    { name: "commonName", value: "CA de pruebas einvoicing" },
    { name: "organizationName", value: "Pruebas" },
    { name: "countryName", value: "CO" },
  ];
  ca.setSubject(caName);
  ca.setIssuer(caName);
  ca.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  ca.sign(caKeys.privateKey, forge.md.sha256.create());

  const leafKeys = keys(options.bits);
  const leaf = forge.pki.createCertificate();
  leaf.publicKey = leafKeys.publicKey;
  leaf.serialNumber = serial();
  leaf.validity.notBefore = options.notBefore ?? new Date(now - day);
  leaf.validity.notAfter = options.notAfter ?? new Date(now + 365 * day);
  leaf.setSubject([
    { name: "commonName", value: options.companyName ?? "Empresa Demo S.A.S." },
    { type: "2.5.4.5", value: nit },
    { type: "1.3.6.1.4.1.23267.2.3", value: nit },
    { name: "countryName", value: "CO" },
  ]);
  leaf.setIssuer(caName);
  leaf.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, nonRepudiation: true, critical: true },
    { name: "authorityKeyIdentifier", keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  leaf.sign(caKeys.privateKey, forge.md.sha256.create());

  const p12 = forge.pkcs12.toPkcs12Asn1(leafKeys.privateKey, [leaf, ca], password, {
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
    certificatePem: forge.pki.certificateToPem(leaf),
    caPem: forge.pki.certificateToPem(ca),
    nit,
    serialNumber: BigInt(`0x${leaf.serialNumber}`).toString(10),
    pkcs8Base64,
  };
}
