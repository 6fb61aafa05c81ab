/**
 * XAdES-EPES, as DIAN verifies it ([D] XmlSigVerifyOperation; brief §2): a `ds:Signature` in an
 * `ext:UBLExtension` (an Invoice's or CreditNote's second; an AttachedDocument's only one), inclusive C14N 1.0 and RSA-SHA256, three SHA-256 references — the whole
 * document with the enveloped-signature transform, the `ds:KeyInfo`, and the
 * `xades:SignedProperties` (SigningTime, SigningCertificate with the leaf's digest, issuer and
 * serial, DIAN's signature policy v2 and its hash, the claimed role `supplier`). DIAN finds the
 * nodes by their literal names, so the prefixes are `ds:` and `xades:`, declared on the root.
 *
 * Signing is the last step and writes the bytes that are sent: the document is written in
 * canonical form (./xml.ts), so the digests are over exactly those bytes, and nothing may format or
 * re-serialise them afterwards. The output depends only on the document, the certificate and the
 * signing time (RSA PKCS#1 v1.5 is deterministic), so signing a document again at the same instant
 * gives the same bytes.
 */
import { createHash } from "node:crypto";
import type { Signer } from "./certificate.ts";
import { text } from "./parties.ts";
import { canonical, el, type Namespaces, serialise, type XmlElement } from "./xml.ts";

const C14N = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315";
const RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";
const SHA256 = "http://www.w3.org/2001/04/xmlenc#sha256";
const ENVELOPED = "http://www.w3.org/2000/09/xmldsig#enveloped-signature";
const SIGNED_PROPERTIES = "http://uri.etsi.org/01903#SignedProperties";

/** A document to sign: its root, the namespaces declared on it, and the empty element the signature goes in. */
export interface SignableDocument {
  root: XmlElement;
  /** Every namespace, declared on the root and rendered on each signed part. */
  namespaces: Namespaces;
  /** The `ext:ExtensionContent` the signature goes in (emptied first). */
  signatureSlot: XmlElement;
}

/** DIAN's signature policy v2: its URL and the SHA-256 of the policy document DIAN accepts (ZE02). */
export const SIGNATURE_POLICY = {
  identifier: "https://facturaelectronica.dian.gov.co/politicadefirma/v2/politicadefirmav2.pdf",
  description: "Política de firma para facturas electrónicas de la República de Colombia.",
  sha256: "dMoMvtcG5aIzgYo0tIsSQeVJBDnUnfSOfBpxXrmor0Y=",
} as const;

export interface SignOptions {
  /** Makes the signature's Ids unique in the document: `xmldsig-<id>`, `…-keyinfo`, `…-signedprops`. */
  id: string;
  /**
   * xs:dateTime of the signature: the instant it is made, in Colombia's offset (`colombianTime`),
   * never a copy of the issue date; DIAN wants it on the document's issue date (FAD09e/CAD09e).
   */
  signingTime: string;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("base64");

const digest = (value: string) =>
  [el("ds:DigestMethod", { Algorithm: SHA256 }), text("ds:DigestValue", value)] as const;

/** The signed properties: when, with which certificate, under which policy, in which role. */
function signedProperties(id: string, signer: Signer, signingTime: string) {
  const cert = signer.certificate;
  return el(
    "xades:SignedProperties",
    { Id: `${id}-signedprops` },
    el(
      "xades:SignedSignatureProperties",
      {},
      text("xades:SigningTime", signingTime),
      el(
        "xades:SigningCertificate",
        {},
        el(
          "xades:Cert",
          {},
          el("xades:CertDigest", {}, ...digest(cert.sha256)),
          el(
            "xades:IssuerSerial",
            {},
            text("ds:X509IssuerName", cert.issuerName),
            text("ds:X509SerialNumber", cert.serialNumber),
          ),
        ),
      ),
      el(
        "xades:SignaturePolicyIdentifier",
        {},
        el(
          "xades:SignaturePolicyId",
          {},
          el(
            "xades:SigPolicyId",
            {},
            text("xades:Identifier", SIGNATURE_POLICY.identifier),
            text("xades:Description", SIGNATURE_POLICY.description),
          ),
          el("xades:SigPolicyHash", {}, ...digest(SIGNATURE_POLICY.sha256)),
        ),
      ),
      el("xades:SignerRole", {}, el("xades:ClaimedRoles", {}, text("xades:ClaimedRole", "supplier"))),
    ),
  );
}

/**
 * Signs `doc` (filling its signature slot) and returns the signed document's bytes: an XML
 * declaration and the root as ./xml.ts `serialise` writes it (its canonical form, CDATA sections
 * aside). Send exactly these bytes.
 */
export async function signDocument(
  doc: SignableDocument,
  signer: Signer,
  options: SignOptions,
): Promise<Uint8Array<ArrayBuffer>> {
  const id = `xmldsig-${options.id}`;
  const { root, namespaces } = doc;
  doc.signatureSlot.children = [];
  const part = (element: XmlElement) => sha256(canonical(element, namespaces));
  const keyInfo = el(
    "ds:KeyInfo",
    { Id: `${id}-keyinfo` },
    el("ds:X509Data", {}, text("ds:X509Certificate", signer.certificate.base64)),
  );
  const properties = signedProperties(id, signer, options.signingTime);
  // the enveloped-signature transform digests the document without its signature: before it exists
  const documentDigest = sha256(canonical(root, namespaces));
  const signedInfo = el(
    "ds:SignedInfo",
    {},
    el("ds:CanonicalizationMethod", { Algorithm: C14N }),
    el("ds:SignatureMethod", { Algorithm: RSA_SHA256 }),
    el(
      "ds:Reference",
      { Id: `${id}-ref0`, URI: "" },
      el("ds:Transforms", {}, el("ds:Transform", { Algorithm: ENVELOPED })),
      ...digest(documentDigest),
    ),
    el("ds:Reference", { URI: `#${id}-keyinfo` }, ...digest(part(keyInfo))),
    el("ds:Reference", { Type: SIGNED_PROPERTIES, URI: `#${id}-signedprops` }, ...digest(part(properties))),
  );
  const value = await crypto.subtle.sign(
    "RSASSA-PKCS1-v1_5",
    signer.privateKey,
    new TextEncoder().encode(canonical(signedInfo, namespaces)),
  );
  doc.signatureSlot.children = [
    el(
      "ds:Signature",
      { Id: id },
      signedInfo,
      text("ds:SignatureValue", base64(new Uint8Array(value)), { Id: `${id}-sigvalue` }),
      keyInfo,
      el("ds:Object", {}, el("xades:QualifyingProperties", { Target: `#${id}` }, properties)),
    ),
  ];
  return serialise(root, namespaces);
}

/** An RSA signature (256 or 512 bytes) in base64. */
function base64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}
