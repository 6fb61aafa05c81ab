/**
 * The message-level checks DIAN's WCF binding makes before any operation runs (brief §1 "Server
 * side", §8 steps 1–2): the client certificate in the BinarySecurityToken (dates, trust, revocation:
 * [D] `CertificateValidator.ValidateCertificate`, which throws `FaultException(…, "Client")` with the
 * messages below), then the WS-Security signature — one Reference, to `wsa:To`, exclusive C14N,
 * RSA-SHA256, the key the SecurityTokenReference names — and the Timestamp. Verified with xml-crypto,
 * an XMLDSig implementation that shares nothing with our client's signer.
 *
 * Timestamp strictness (brief "Not established"): DIAN's binding is WCF's `wsHttpBinding`, whose
 * defaults allow five minutes of clock skew. The stand-in refuses a message without a Timestamp, one
 * whose Created lies more than five minutes ahead, and one whose Expires passed more than five
 * minutes ago. It does not bound how far Expires lies ahead (Odoo sends 60 000 s and DIAN accepts
 * it) and does not compare `wsa:To` with its own URL (Odoo sends habilitación's URL everywhere).
 */
import { SignedXml } from "xml-crypto";
import { NS } from "./answers.ts";
import {
  type CertificateProblem,
  certificateProblem,
  type ParsedCertificate,
  parseCertificate,
} from "./certificates.ts";
import type { SoapRequest } from "./envelope.ts";
import type { DianRegistry } from "./registry.ts";
import { child, childrenNamed, descendants, type Element, textOf } from "./xml-read.ts";

const EXC_C14N = "http://www.w3.org/2001/10/xml-exc-c14n#";
const RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";
const CLOCK_SKEW_MS = 5 * 60_000;

/** DIAN's words for each certificate problem ([D] CertificateValidator.cs). */
const CERTIFICATE_FAULTS: Record<CertificateProblem, string> = {
  not_yet_valid: "Certificado aún no se encuentra vigente.",
  expired: "Certificado se encuentra expirado.",
  // DIAN reads this one from its configuration (UnTrustedCertificateMessage), not in the code: ours
  untrusted: "Certificado no es de confianza: no fue emitido por una entidad de certificación autorizada.",
  revoked: "Certificado se encuentra revocado.",
};

/** WCF's reason for any failure of its own security processing. */
export const SECURITY_FAULT = "An error occurred when verifying security for the message.";

export type SecurityResult =
  | { ok: true; certificate: ParsedCertificate }
  | { ok: false; code: "Client" | "Sender"; reason: string; subcode?: "InvalidSecurity"; why: string };

const invalid = (why: string): SecurityResult => ({
  ok: false,
  code: "Sender",
  subcode: "InvalidSecurity",
  reason: SECURITY_FAULT,
  why,
});

/** Runs the checks on `request` (raw text `raw`); the first failure is the answer. */
export function checkSecurity(
  request: SoapRequest,
  raw: string,
  registry: DianRegistry,
  now: Date,
): SecurityResult {
  const security = child(request.header, NS.wsse, "Security");
  if (!security) return invalid("no wsse:Security header");
  const token = child(security, NS.wsse, "BinarySecurityToken");
  let certificate: ParsedCertificate;
  try {
    certificate = parseCertificate(textOf(token) ?? "");
  } catch {
    return invalid("no readable certificate in the BinarySecurityToken");
  }
  const problem = certificateProblem(certificate, registry.trustedCaPems, registry.revokedSerials, now);
  if (problem) return { ok: false, code: "Client", reason: CERTIFICATE_FAULTS[problem], why: problem };

  const signatureProblem = checkSignature(request, raw, security, token as Element, certificate);
  if (signatureProblem) return invalid(signatureProblem);
  const timestampProblem = checkTimestamp(security, now);
  if (timestampProblem) return invalid(timestampProblem);
  return { ok: true, certificate };
}

function checkSignature(
  request: SoapRequest,
  raw: string,
  security: Element,
  token: Element,
  certificate: ParsedCertificate,
): string | null {
  const signatures = childrenNamed(security, NS.ds, "Signature");
  const signature = signatures[0];
  if (!signature || signatures.length > 1) return "not exactly one ds:Signature in wsse:Security";
  const signedInfo = child(signature, NS.ds, "SignedInfo");
  const references = signedInfo ? childrenNamed(signedInfo, NS.ds, "Reference") : [];
  if (references.length !== 1) return "the signature does not have exactly one Reference";
  const method = child(signedInfo, NS.ds, "CanonicalizationMethod")?.getAttribute("Algorithm");
  const algorithm = child(signedInfo, NS.ds, "SignatureMethod")?.getAttribute("Algorithm");
  if (method !== EXC_C14N || algorithm !== RSA_SHA256) return "not exclusive C14N with RSA-SHA256";

  // the one reference must be wsa:To, a child of the header, and nothing else may share its Id
  const uri = references[0]?.getAttribute("URI") ?? "";
  const to = child(request.header, NS.wsa, "To");
  const toId = to?.getAttributeNS(NS.wsu, "Id") ?? "";
  if (!to || toId === "" || uri !== `#${toId}`) return "the signed reference is not wsa:To";

  // the key is the BinarySecurityToken the SecurityTokenReference names
  const keyReference = descendants(signature, NS.wsse, "Reference")[0]?.getAttribute("URI") ?? "";
  if (keyReference !== `#${token.getAttributeNS(NS.wsu, "Id") ?? ""}`) {
    return "the SecurityTokenReference does not name the BinarySecurityToken";
  }
  try {
    const verifier = new SignedXml({ publicCert: certificate.pem });
    // only the token's certificate may verify, never one placed in KeyInfo
    verifier.getCertFromKeyInfo = () => null;
    verifier.loadSignature(signature.toString());
    return verifier.checkSignature(raw) ? null : "a digest does not match";
  } catch (error) {
    return `signature: ${(error as Error).message.slice(0, 200)}`;
  }
}

function checkTimestamp(security: Element, now: Date): string | null {
  const timestamp = child(security, NS.wsu, "Timestamp");
  if (!timestamp) return "no wsu:Timestamp";
  const created = Date.parse(textOf(child(timestamp, NS.wsu, "Created")) ?? "");
  const expires = Date.parse(textOf(child(timestamp, NS.wsu, "Expires")) ?? "");
  if (Number.isNaN(created) || Number.isNaN(expires))
    return "the Timestamp's Created or Expires is not a time";
  if (created > now.getTime() + CLOCK_SKEW_MS) return "the Timestamp was created in the future";
  if (expires < now.getTime() - CLOCK_SKEW_MS) return "the Timestamp expired";
  if (expires <= created) return "the Timestamp expires before it was created";
  return null;
}
