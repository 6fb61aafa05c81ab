/**
 * The XAdES-EPES signature: checked by xmlsec1 (an implementation independent of ours), and its
 * shape as DIAN reads it (prefixes, three references, policy and its hash, signing certificate).
 */
import { createHash, X509Certificate } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestCertificates, type TestCertificates } from "../../devkit/dian/certificates.ts";
import { dianInvoice } from "../../devkit/dian/documents.ts";
import { xmlsecVerify } from "../../devkit/dian/xml-tools.ts";
import { colombianTime } from "../../shared/co/time.ts";
import { openPkcs12, type Signer } from "../../shared/providers/dian/certificate.ts";
import { SIGNATURE_POLICY, signDocument } from "../../shared/providers/dian/signature.ts";
import { buildUnsignedDocument } from "../../shared/providers/dian/ubl.ts";

let certs: TestCertificates;
let signer: Signer;
let otherCa: TestCertificates;

beforeAll(async () => {
  certs = createTestCertificates();
  otherCa = createTestCertificates();
  signer = await openPkcs12(certs.p12, certs.password);
}, 60_000);

const ID = "0b5a0f4e-3c1f-4f53-9d55-7e2c11a0e001";
const SIGNING_TIME = "2026-11-20T10:30:00.000-05:00";

async function signed(lines = 3): Promise<string> {
  const unsigned = await buildUnsignedDocument(dianInvoice(lines));
  return new TextDecoder().decode(
    await signDocument(unsigned, signer, { id: ID, signingTime: SIGNING_TIME }),
  );
}

/** Every `<name …>` start tag's attributes, in order. */
function starts(xml: string, name: string): string[] {
  return [...xml.matchAll(new RegExp(`<${name}( [^>]*)?>`, "g"))].map((m) => m[1] ?? "");
}

/** Replaces the second group's character with another base64 character. */
const flip = (_match: string, before: string, char: string) => `${before}${char === "A" ? "B" : "A"}`;

const content = (xml: string, name: string) => new RegExp(`<${name}[^>]*>([^<]*)</${name}>`).exec(xml)?.[1];

describe("the signature xmlsec1 verifies", () => {
  it("verifies, with the chain to the CA that issued the certificate", async () => {
    const result = await xmlsecVerify(new TextEncoder().encode(await signed(20)), certs.caPem);
    expect(result.output).toContain("SignedInfo References (ok/all): 3/3");
    expect(result.ok).toBe(true);
  });

  it("does not verify against another CA", async () => {
    const result = await xmlsecVerify(new TextEncoder().encode(await signed()), otherCa.caPem);
    expect(result.ok).toBe(false);
  });

  it.each([
    ["the document (an amount)", (xml: string) => xml.replace(/(<cbc:PayableAmount[^>]*>)\d/, "$19")],
    ["the extensions (the software id)", (xml: string) => xml.replace("56f2ae4e-9812", "56f2ae4e-9813")],
    [
      "the signed properties (the signing time)",
      (xml: string) => xml.replace("10:30:00.000-05:00<", "10:31:00.000-05:00<"),
    ],
    ["the signed info (a digest)", (xml: string) => xml.replace(/(<ds:DigestValue>)(.)/, flip)],
    ["the signature value", (xml: string) => xml.replace(/(<ds:SignatureValue[^>]*>)(.)/, flip)],
  ])("fails when %s changes after signing", async (_what, tamper) => {
    const xml = await signed();
    const tampered = tamper(xml);
    expect(tampered).not.toBe(xml);
    expect((await xmlsecVerify(new TextEncoder().encode(tampered), certs.caPem)).ok).toBe(false);
  });
});

describe("the signature's shape, as DIAN reads it", () => {
  it("sits in the second UBLExtension, with the ds: and xades: prefixes declared on the root", async () => {
    const xml = await signed();
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8" standalone="no"?><Invoice ')).toBe(true);
    const root = starts(xml, "Invoice")[0] ?? "";
    expect(root).toContain('xmlns:ds="http://www.w3.org/2000/09/xmldsig#"');
    expect(root).toContain('xmlns:xades="http://uri.etsi.org/01903/v1.3.2#"');
    const extensions = xml.split("<ext:UBLExtension>");
    expect(extensions).toHaveLength(3);
    expect(extensions[1]).toContain("<sts:DianExtensions>");
    expect(extensions[1]).not.toContain("<ds:Signature");
    expect(extensions[2]).toMatch(/^<ext:ExtensionContent><ds:Signature Id="xmldsig-0b5a0f4e-[^"]+">/);
    expect(starts(xml, "ds:Signature")).toHaveLength(1);
  });

  it("signs with inclusive C14N and RSA-SHA256 three SHA-256 references: the document, KeyInfo, SignedProperties", async () => {
    const xml = await signed();
    const id = `xmldsig-${ID}`;
    expect(starts(xml, "ds:CanonicalizationMethod")).toEqual([
      ' Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"',
    ]);
    expect(starts(xml, "ds:SignatureMethod")).toEqual([
      ' Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"',
    ]);
    expect(starts(xml, "ds:Reference")).toEqual([
      ` Id="${id}-ref0" URI=""`,
      ` URI="#${id}-keyinfo"`,
      ` Type="http://uri.etsi.org/01903#SignedProperties" URI="#${id}-signedprops"`,
    ]);
    expect(starts(xml, "ds:Transform")).toEqual([
      ' Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"',
    ]);
    // three references, the certificate's digest and the policy's hash
    expect(starts(xml, "ds:DigestMethod")).toEqual(
      Array(5).fill(' Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"'),
    );
    expect(starts(xml, "ds:SignatureValue")).toEqual([` Id="${id}-sigvalue"`]);
    expect(starts(xml, "ds:KeyInfo")).toEqual([` Id="${id}-keyinfo"`]);
    expect(starts(xml, "xades:QualifyingProperties")).toEqual([` Target="#${id}"`]);
    expect(starts(xml, "xades:SignedProperties")).toEqual([` Id="${id}-signedprops"`]);
  });

  it("names DIAN's policy v2 with the hash DIAN accepts, the signing time and the role", async () => {
    const xml = await signed();
    expect(SIGNATURE_POLICY).toEqual({
      identifier: "https://facturaelectronica.dian.gov.co/politicadefirma/v2/politicadefirmav2.pdf",
      description: "Política de firma para facturas electrónicas de la República de Colombia.",
      sha256: "dMoMvtcG5aIzgYo0tIsSQeVJBDnUnfSOfBpxXrmor0Y=",
    });
    expect(content(xml, "xades:Identifier")).toBe(SIGNATURE_POLICY.identifier);
    expect(content(xml, "xades:Description")).toBe(SIGNATURE_POLICY.description);
    // DIAN takes the first xades:SigPolicyHash's last child as the policy digest (ZE02)
    expect(xml).toMatch(
      /<xades:SigPolicyHash><ds:DigestMethod [^>]+><\/ds:DigestMethod><ds:DigestValue>dMoMvtcG5aIzgYo0tIsSQeVJBDnUnfSOfBpxXrmor0Y=<\/ds:DigestValue><\/xades:SigPolicyHash>/,
    );
    expect(content(xml, "xades:SigningTime")).toBe(SIGNING_TIME);
    expect(content(xml, "xades:ClaimedRole")).toBe("supplier");
  });

  it("carries the leaf certificate, its SHA-256 digest, issuer and decimal serial", async () => {
    const xml = await signed();
    const leaf = new X509Certificate(certs.certificatePem);
    expect(content(xml, "ds:X509Certificate")).toBe(leaf.raw.toString("base64"));
    expect(xml).toContain(
      `<xades:CertDigest><ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"></ds:DigestMethod><ds:DigestValue>${createHash("sha256").update(leaf.raw).digest("base64")}</ds:DigestValue></xades:CertDigest>`,
    );
    expect(content(xml, "ds:X509IssuerName")).toBe("C=CO,O=Pruebas,CN=CA de pruebas einvoicing");
    expect(content(xml, "ds:X509SerialNumber")).toBe(certs.serialNumber);
    expect(BigInt(certs.serialNumber)).toBe(BigInt(`0x${leaf.serialNumber}`));
    expect(starts(xml, "xades:Cert")).toHaveLength(1);
  });

  it("gives the same bytes when the same document is signed again", async () => {
    const unsigned = await buildUnsignedDocument(dianInvoice(2));
    const options = { id: ID, signingTime: SIGNING_TIME };
    const first = await signDocument(unsigned, signer, options);
    const second = await signDocument(unsigned, signer, options);
    expect(Buffer.from(second).equals(Buffer.from(first))).toBe(true);
    expect(starts(new TextDecoder().decode(second), "ds:Signature")).toHaveLength(1);
  });
});

describe("signing times", () => {
  it("writes an instant as Colombian civil time, UTC−5, with milliseconds", () => {
    expect(colombianTime(new Date("2026-11-20T15:30:00.123Z"))).toBe("2026-11-20T10:30:00.123-05:00");
    expect(colombianTime(new Date("2026-11-21T03:04:05.000Z"))).toBe("2026-11-20T22:04:05.000-05:00");
  });
});
