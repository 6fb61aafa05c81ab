/**
 * The document's XAdES-EPES signature as DIAN checks it (brief §2 "What DIAN checks"; [D]
 * `XmlSigVerifyOperation.cs`, `XmlSigNodesHelper.cs`, `Validator.ValidateSign`):
 *
 * - the signing certificate — the first `ds:X509Certificate` — must be there (ZD06), within its
 *   dates (ZD07), issued by a trusted CA (ZD05), not revoked (ZD04);
 * - ZE02 "Política de firma inválida." unless the last child of the first `xades:SigPolicyHash` holds
 *   one of the policy hashes DIAN accepts;
 * - ZE02 "Valor de la firma inválido." unless the signature verifies with that certificate.
 *
 * DIAN finds the nodes with `GetElementsByTagName("ds:Signature")` and `("xades:SigPolicyHash")`:
 * literal qualified names, so another prefix is no signature at all — and the stand-in looks them
 * up the same way. It also requires the three references the brief's XAdES profile has (the
 * document with the enveloped transform, the KeyInfo, the SignedProperties), which .NET's
 * `CheckSignature` would not require; a signature without them is answered ZE02 "Valor de la firma
 * inválido.". Verification is xml-crypto's (inclusive C14N 1.0, RSA-SHA256, SHA-256 digests).
 */
import { SignedXml } from "xml-crypto";
import { certificateProblem, type ParsedCertificate, parseCertificate } from "./certificates.ts";
import type { DianRegistry } from "./registry.ts";
import type { RuleFinding } from "./rules.ts";
import { type Element, elements, textOf, type XmlDocument } from "./xml-read.ts";

/**
 * SigPolicyHash values DIAN accepts: the v2 policy's SHA-256 and SHA-384 (brief §2). DIAN also
 * accepts a SHA-512 one, which the brief gives only abridged (it sits in a configuration file of [D]
 * that is not to be read): a document hashed with SHA-512 is refused here and accepted there.
 */
export const POLICY_HASHES = [
  "dMoMvtcG5aIzgYo0tIsSQeVJBDnUnfSOfBpxXrmor0Y=",
  "EQC0kiWPaAME6IsEZ7WuaTWJ97Zmf6hIO69rMCVURmQxBB9ebgLrjhL5BArQ0a0l",
];

const ENVELOPED = "http://www.w3.org/2000/09/xmldsig#enveloped-signature";
const SIGNED_PROPERTIES = "http://uri.etsi.org/01903#SignedProperties";

const ZE02 = (message: string): RuleFinding => ({ code: "ZE02", message });
const INVALID_VALUE = ZE02("Valor de la firma inválido.");

/** The signature's findings (none when it is good). `raw` is the document's text as received. */
export function signatureFindings(
  doc: XmlDocument,
  raw: string,
  registry: DianRegistry,
  now: Date,
): RuleFinding[] {
  const signature = doc.getElementsByTagName("ds:Signature")[0];
  const certificateText = signature
    ? textOf(signature.getElementsByTagName("ds:X509Certificate")[0])
    : undefined;
  if (!signature || !certificateText) {
    return [
      {
        code: "ZD06",
        message:
          "Cadena de confianza del certificado digital no se pudo validar. [Missing X509Certificate node]",
      },
    ];
  }
  let certificate: ParsedCertificate;
  try {
    certificate = parseCertificate(certificateText);
  } catch {
    return [
      {
        code: "ZD06",
        message:
          "Cadena de confianza del certificado digital no se pudo validar. [Missing X509Certificate node]",
      },
    ];
  }
  const findings: RuleFinding[] = [];
  const problem = certificateProblem(certificate, registry.trustedCaPems, registry.revokedSerials, now);
  if (problem === "not_yet_valid")
    findings.push({ code: "ZD07", message: "Certificado aún no se encuentra vigente." });
  else if (problem === "expired")
    findings.push({ code: "ZD07", message: "Certificado se encuentra expirado." });
  else if (problem === "untrusted") {
    // DIAN reads this message from its configuration (UnTrustedCertificateMessage): ours
    findings.push({
      code: "ZD05",
      message: "Cadena de confianza del certificado digital no se pudo validar.",
    });
  } else if (problem === "revoked")
    findings.push({ code: "ZD04", message: "Certificado de la firma revocado." });

  const policy = doc.getElementsByTagName("xades:SigPolicyHash")[0];
  const policyElements = policy ? elements(policy) : [];
  const policyHash = textOf(policyElements[policyElements.length - 1]);
  if (!policyHash || !POLICY_HASHES.includes(policyHash)) findings.push(ZE02("Política de firma inválida."));

  if (!hasXadesReferences(signature) || !verifies(signature, raw, certificate)) findings.push(INVALID_VALUE);
  return findings;
}

/** The three references of DIAN's XAdES profile (brief §2). */
function hasXadesReferences(signature: Element): boolean {
  const references = Array.from(signature.getElementsByTagName("ds:Reference"));
  const keyInfoId = signature.getElementsByTagName("ds:KeyInfo")[0]?.getAttribute("Id");
  const propertiesId = signature.getElementsByTagName("xades:SignedProperties")[0]?.getAttribute("Id");
  const whole = references.some(
    (r) =>
      r.getAttribute("URI") === "" &&
      Array.from(r.getElementsByTagName("ds:Transform")).some(
        (t) => t.getAttribute("Algorithm") === ENVELOPED,
      ),
  );
  const keyInfo = !!keyInfoId && references.some((r) => r.getAttribute("URI") === `#${keyInfoId}`);
  const properties =
    !!propertiesId &&
    references.some(
      (r) => r.getAttribute("URI") === `#${propertiesId}` && r.getAttribute("Type") === SIGNED_PROPERTIES,
    );
  return whole && keyInfo && properties;
}

function verifies(signature: Element, raw: string, certificate: ParsedCertificate): boolean {
  try {
    const verifier = new SignedXml({ publicCert: certificate.pem });
    verifier.getCertFromKeyInfo = () => null;
    verifier.loadSignature(signature.toString());
    return verifier.checkSignature(raw);
  } catch {
    return false;
  }
}
