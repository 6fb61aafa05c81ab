/**
 * The certificate checks DIAN makes, on the WS-Security client certificate and on the XAdES signing
 * certificate alike ([D] Web.Services `Validator/CertificateValidator.cs`, Plugin `Validator.ValidateSign`):
 * within its dates, issued by a certification authority DIAN trusts, not revoked; and the holder's
 * NIT read from the subject the way DIAN reads it. node-forge parses the certificates (pure
 * JavaScript: the same on Deno and Node, whose node:crypto X509Certificate prints subjects and
 * serials differently from each other).
 */
import forgeModule from "node-forge";

const forge = forgeModule as typeof import("node-forge");
type Certificate = import("node-forge").pki.Certificate;

/**
 * The subject attributes DIAN reads the NIT from, in its order, and it keeps every digit of the
 * value ("900123456-8" gives "9001234568"): [D] `CertificateValidator.GetAuthCode`.
 */
const NIT_ATTRIBUTES = ["1.3.6.1.4.1.23267.2.3", "2.5.4.5", "1.3.6.1.4.1.31136.1.1.20.2", "2.5.4.97"];

export interface ParsedCertificate {
  certificate: Certificate;
  /** The DER, PEM-wrapped: what xml-crypto verifies with. */
  pem: string;
  /** Decimal serial number. */
  serial: string;
  /** The NIT as DIAN reads it from the subject, or "" when none is there. */
  nit: string;
  notBefore: Date;
  notAfter: Date;
}

/** Parses base64 DER (a BinarySecurityToken, an X509Certificate); throws when it is not a certificate. */
export function parseCertificate(base64: string): ParsedCertificate {
  const der = forge.util.decode64(base64.replace(/\s+/g, ""));
  const certificate = forge.pki.certificateFromAsn1(forge.asn1.fromDer(der));
  return describe(certificate);
}

/** Parses a PEM certificate. */
export function parsePem(pem: string): ParsedCertificate {
  return describe(forge.pki.certificateFromPem(pem));
}

function describe(certificate: Certificate): ParsedCertificate {
  return {
    certificate,
    pem: forge.pki.certificateToPem(certificate),
    serial: BigInt(`0x${certificate.serialNumber || "0"}`).toString(10),
    nit: nitOf(certificate),
    notBefore: certificate.validity.notBefore,
    notAfter: certificate.validity.notAfter,
  };
}

function nitOf(certificate: Certificate): string {
  for (const oid of NIT_ATTRIBUTES) {
    const value = certificate.subject.attributes.find((a) => a.type === oid)?.value;
    if (typeof value === "string") return value.replace(/\D/g, "");
  }
  return "";
}

export type CertificateProblem = "not_yet_valid" | "expired" | "untrusted" | "revoked";

/**
 * The first problem DIAN would find, in its order (dates, trust, revocation), or null. Trusted means
 * issued (its signature verified with the issuer's key) by one of the trusted certificates: for a CA
 * that issues through an intermediate, list the intermediate.
 */
export function certificateProblem(
  cert: ParsedCertificate,
  trustedPems: readonly string[],
  revokedSerials: readonly string[],
  now: Date,
): CertificateProblem | null {
  if (now < cert.notBefore) return "not_yet_valid";
  if (now > cert.notAfter) return "expired";
  if (!chainsToTrusted(cert.certificate, trustedPems)) return "untrusted";
  if (revokedSerials.includes(cert.serial)) return "revoked";
  return null;
}

function chainsToTrusted(leaf: Certificate, trustedPems: readonly string[]): boolean {
  return trustedPems.some((pem) => {
    try {
      return signedBy(leaf, forge.pki.certificateFromPem(pem));
    } catch {
      return false;
    }
  });
}

function signedBy(cert: Certificate, ca: Certificate): boolean {
  try {
    return ca.subject.hash === cert.issuer.hash && ca.verify(cert);
  } catch {
    return false;
  }
}
