import { DOMParser } from "@xmldom/xmldom";
import { beforeAll, describe, expect, it } from "vitest";
import { SignedXml } from "xml-crypto";
import { createTestCertificates, type TestCertificates } from "../../devkit/dian/certificates.ts";
import { xmlsecVerifyEnvelope } from "../../devkit/dian/xml-tools.ts";
import { openPkcs12, type Signer } from "../../shared/providers/dian/certificate.ts";
import {
  buildEnvelope,
  DIAN_OPERATIONS,
  type DianOperation,
  type DianRequests,
  dianContentType,
  SOAP12_NAMESPACE,
  TIMESTAMP_LIFETIME_MS,
  WCF_NAMESPACE,
  WSA_NAMESPACE,
  WSSE_NAMESPACE,
  WSU_NAMESPACE,
} from "../../shared/providers/dian/soap.ts";

const URL = "https://vpfe-hab.dian.gov.co/WcfDianCustomerServices.svc";
const CREATED = new Date("2026-11-20T15:30:01.120Z");
const DS = "http://www.w3.org/2000/09/xmldsig#";

/** A request of each operation, with values of the shapes DIAN takes. */
const PARAMS: { [O in DianOperation]: DianRequests[O] } = {
  SendBillSync: { fileName: "z09001234560002600000001.zip", contentFile: "UEsDBBQAAAAIAA==" },
  SendTestSetAsync: {
    fileName: "z09001234560002600000001.zip",
    contentFile: "UEsDBBQAAAAIAA==",
    testSetId: "f2e50ee4-3dbd-4a72-8bb2-e66782ad36ff",
  },
  GetStatusZip: { trackId: "3b200a8e-6e89-47dc-8dff-97874a8ab286" },
  GetStatus: {
    trackId:
      "5a53a3b1094f3552e66ba2fbcad1742f6e8effe4825598ef07798dc2495cee131256895cf37f166b992f7934ac6395f1",
  },
  GetNumberingRange: {
    accountCode: "900123456",
    accountCodeT: "900123456",
    softwareCode: "56f2ae4e-9812-4fad-9255-08fcfcd5ccb0",
  },
  GetXmlByDocumentKey: {
    trackId:
      "5a53a3b1094f3552e66ba2fbcad1742f6e8effe4825598ef07798dc2495cee131256895cf37f166b992f7934ac6395f1",
  },
};

let certs: TestCertificates;
let signer: Signer;

beforeAll(async () => {
  certs = createTestCertificates();
  signer = await openPkcs12(certs.p12, certs.password);
});

const envelope = (operation: DianOperation, id = "0f1e2d3c") =>
  buildEnvelope(operation, PARAMS[operation], { url: URL, signer, created: CREATED, id });

function parse(bytes: Uint8Array): Document {
  return new DOMParser().parseFromString(new TextDecoder().decode(bytes), "text/xml") as unknown as Document;
}

function only(document: Document, namespace: string, local: string): Element {
  const found = document.getElementsByTagNameNS(namespace, local);
  expect(found.length, `${local} appears once`).toBe(1);
  return found[0] as Element;
}

describe("the WS-Security envelope", () => {
  it.each(DIAN_OPERATIONS)(
    "%s: verifies with xmlsec1 and xml-crypto, with the BinarySecurityToken's key",
    async (operation) => {
      const { bytes } = await envelope(operation);
      const xmlsec = await xmlsecVerifyEnvelope(bytes);
      expect(xmlsec.output).toContain("SignedInfo References (ok/all): 1/1");
      expect(xmlsec.ok).toBe(true);
      const text = new TextDecoder().decode(bytes);
      const verifier = new SignedXml({ publicCert: certs.certificatePem });
      verifier.loadSignature(parse(bytes).getElementsByTagNameNS(DS, "Signature")[0] as unknown as Node);
      expect(verifier.checkSignature(text)).toBe(true);
    },
    30_000,
  );

  it("fails to verify once a byte of wsa:To changes, or the signature value does", async () => {
    const text = new TextDecoder().decode((await envelope("GetStatus")).bytes);
    const to = text.replace(`>${URL}</wsa:To>`, `>${URL.replace("hab", "hab2")}</wsa:To>`);
    expect(to).not.toBe(text);
    const moved = await xmlsecVerifyEnvelope(new TextEncoder().encode(to));
    expect(moved.ok).toBe(false);
    expect(moved.output).toContain("SignedInfo References (ok/all): 0/1");
    const value = /<ds:SignatureValue>(.)/.exec(text)?.[1] ?? "A";
    const forged = text.replace(/<ds:SignatureValue>./, `<ds:SignatureValue>${value === "A" ? "B" : "A"}`);
    expect((await xmlsecVerifyEnvelope(new TextEncoder().encode(forged))).ok).toBe(false);
  }, 30_000);

  it("has the structure Odoo's soap_request_dian and ubl21dian send: Timestamp, token, signature over wsa:To", async () => {
    const built = await envelope("SendTestSetAsync");
    const document = parse(built.bytes);
    const root = document.documentElement;
    expect([root.namespaceURI, root.localName]).toEqual([SOAP12_NAMESPACE, "Envelope"]);
    const security = only(document, WSSE_NAMESPACE, "Security");
    expect((security.parentNode as Element).localName).toBe("Header");
    expect(only(document, WSU_NAMESPACE, "Created").textContent).toBe("2026-11-20T15:30:01.120Z");
    expect(only(document, WSU_NAMESPACE, "Expires").textContent).toBe(
      new Date(CREATED.getTime() + TIMESTAMP_LIFETIME_MS).toISOString(),
    );
    expect(TIMESTAMP_LIFETIME_MS).toBe(300_000);
    const token = only(document, WSSE_NAMESPACE, "BinarySecurityToken");
    expect(token.textContent).toBe(signer.certificate.base64);
    expect(token.getAttributeNS(WSU_NAMESPACE, "Id")).toBe(built.tokenId);
    expect(token.getAttribute("ValueType")).toMatch(/x509-token-profile-1\.0#X509v3$/);
    expect(token.getAttribute("EncodingType")).toMatch(/#Base64Binary$/);
    expect(only(document, WSA_NAMESPACE, "Action").textContent).toBe(
      "http://wcf.dian.colombia/IWcfDianCustomerServices/SendTestSetAsync",
    );
    const to = only(document, WSA_NAMESPACE, "To");
    expect(to.textContent).toBe(URL);
    expect(to.getAttributeNS(WSU_NAMESPACE, "Id")).toBe(built.toId);
    // one reference, to wsa:To, exclusive c14n with DIAN's two prefix lists, RSA-SHA256 and SHA-256
    const reference = only(document, DS, "Reference");
    expect(reference.getAttribute("URI")).toBe(`#${built.toId}`);
    const methods = Array.from(document.getElementsByTagNameNS(DS, "*")).map((e) => [
      e.localName,
      e.getAttribute("Algorithm"),
    ]);
    expect(methods.filter(([, algorithm]) => algorithm)).toEqual([
      ["CanonicalizationMethod", "http://www.w3.org/2001/10/xml-exc-c14n#"],
      ["SignatureMethod", "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"],
      ["Transform", "http://www.w3.org/2001/10/xml-exc-c14n#"],
      ["DigestMethod", "http://www.w3.org/2001/04/xmlenc#sha256"],
    ]);
    const lists = Array.from(
      document.getElementsByTagNameNS("http://www.w3.org/2001/10/xml-exc-c14n#", "InclusiveNamespaces"),
    );
    expect(lists.map((e) => e.getAttribute("PrefixList"))).toEqual(["wsa soap wcf", "soap wcf"]);
    const tokenReference = only(document, WSSE_NAMESPACE, "Reference");
    expect(tokenReference.getAttribute("URI")).toBe(`#${built.tokenId}`);
    const holder = tokenReference.parentNode as Element;
    expect(holder.localName).toBe("SecurityTokenReference");
    expect((holder.parentNode as Element).localName).toBe("KeyInfo");
  });

  it.each(DIAN_OPERATIONS)(
    "%s: the Body holds wcf:%s with its children in DIAN's order",
    async (operation) => {
      const document = parse((await envelope(operation)).bytes);
      const body = only(document, SOAP12_NAMESPACE, "Body");
      const call = Array.from(body.childNodes).filter((n) => n.nodeType === 1) as Element[];
      expect(call.map((e) => [e.namespaceURI, e.localName])).toEqual([[WCF_NAMESPACE, operation]]);
      const children = Array.from(call[0]?.childNodes ?? []).filter((n) => n.nodeType === 1) as Element[];
      expect(children.map((e) => [e.namespaceURI, e.localName, e.textContent])).toEqual(
        Object.entries(PARAMS[operation]).map(([name, value]) => [WCF_NAMESPACE, name, value]),
      );
    },
  );

  it("makes its Ids from the id given, and the same bytes for the same inputs and clock", async () => {
    const [a, b, c] = await Promise.all([
      envelope("GetStatus", "one"),
      envelope("GetStatus", "one"),
      envelope("GetStatus", "two"),
    ]);
    expect(a?.toId).toBe("id-one");
    expect(a?.tokenId).toBe("X509-one");
    expect(a?.bytes).toEqual(b?.bytes);
    expect(c?.toId).toBe("id-two");
    await expect(envelope("GetStatus", 'x"y')).rejects.toThrow(RangeError);
  });

  it("names the action in the HTTP Content-Type as SOAP 1.2 does", () => {
    expect(dianContentType("GetStatus")).toBe(
      'application/soap+xml;charset=UTF-8;action="http://wcf.dian.colombia/IWcfDianCustomerServices/GetStatus"',
    );
  });
});
