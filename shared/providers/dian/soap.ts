/**
 * The SOAP 1.2 request DIAN's web service (`WcfDianCustomerServices.svc`, a WCF `wsHttpBinding`
 * with message credentials) receives, built the way Odoo 19's `soap_request_dian` template and
 * stenfrank/ubl21dian's `SOAPDIAN21` build it (brief §1): WS-Addressing `wsa:Action` and `wsa:To`,
 * and a WS-Security header holding a Timestamp, the company's certificate as a BinarySecurityToken
 * and an XML signature over `wsa:To` alone — exclusive c14n with DIAN's InclusiveNamespaces lists,
 * RSA-SHA256, one SHA-256 reference, the key named through a SecurityTokenReference. Neither of
 * them signs the Timestamp or the Body, and nor do we: DIAN's certificate check reads the token,
 * and the document inside the Body carries its own XAdES signature.
 *
 * The envelope is written in canonical form with every namespace declared on `soap:Envelope`
 * (./xml.ts), so the digest and the signature are computed over exactly the exclusive canonical
 * forms a verifier recomputes after parsing the bytes (xmlsec1 in the tests); where a namespace is
 * declared does not change them, since exclusive c14n renders only the prefixes used.
 */
import { createHash } from "node:crypto";
import { toBase64 } from "../../ports/providers/deliver.ts";
import type { Signer } from "./certificate.ts";
import { text } from "./parties.ts";
import { canonical, el, exclusiveCanonical, type XmlElement } from "./xml.ts";

/**
 * The service's operations this project calls (brief §1's table, and GetXmlByDocumentKey: [D]
 * `IWcfDianCustomerServices.cs` declares `GetXmlByDocumentKey(string trackId)`); DIAN offers a few more.
 */
export const DIAN_OPERATIONS = [
  "SendBillSync",
  "SendTestSetAsync",
  "GetStatusZip",
  "GetStatus",
  "GetNumberingRange",
  "GetXmlByDocumentKey",
] as const;
export type DianOperation = (typeof DIAN_OPERATIONS)[number];

/** What each operation's `wcf:<Op>` element carries, in the order DIAN's WSDL lists them. */
export interface DianRequests {
  /** One document: a ZIP (base64) holding one XML. */
  SendBillSync: { fileName: string; contentFile: string };
  /** Habilitación: the same, counted towards the company's test set. */
  SendTestSetAsync: { fileName: string; contentFile: string; testSetId: string };
  /** A SendTestSetAsync batch's ZipKey (a GUID). */
  GetStatusZip: { trackId: string };
  /** A document's CUFE or CUDE. */
  GetStatus: { trackId: string };
  /** The issuer's NIT, the software owner's NIT and the software id. */
  GetNumberingRange: { accountCode: string; accountCodeT: string; softwareCode: string };
  /** A document's CUFE or CUDE: DIAN answers the XML it holds under it. */
  GetXmlByDocumentKey: { trackId: string };
}

const CHILDREN: { [O in DianOperation]: readonly (keyof DianRequests[O] & string)[] } = {
  SendBillSync: ["fileName", "contentFile"],
  SendTestSetAsync: ["fileName", "contentFile", "testSetId"],
  GetStatusZip: ["trackId"],
  GetStatus: ["trackId"],
  GetNumberingRange: ["accountCode", "accountCodeT", "softwareCode"],
  GetXmlByDocumentKey: ["trackId"],
};

export const SOAP12_NAMESPACE = "http://www.w3.org/2003/05/soap-envelope";
export const WCF_NAMESPACE = "http://wcf.dian.colombia";
export const WSA_NAMESPACE = "http://www.w3.org/2005/08/addressing";
export const WSSE_NAMESPACE =
  "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
export const WSU_NAMESPACE =
  "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd";
const DS_NAMESPACE = "http://www.w3.org/2000/09/xmldsig#";
const EXC_C14N = "http://www.w3.org/2001/10/xml-exc-c14n#";

/** Every prefix of the envelope, declared on soap:Envelope. */
const NAMESPACES = {
  soap: SOAP12_NAMESPACE,
  wcf: WCF_NAMESPACE,
  wsa: WSA_NAMESPACE,
  wsse: WSSE_NAMESPACE,
  wsu: WSU_NAMESPACE,
  ds: DS_NAMESPACE,
  ec: EXC_C14N,
} as const;

/** The InclusiveNamespaces lists Odoo and ubl21dian send (brief §1): SignedInfo's and wsa:To's. */
const SIGNED_INFO_PREFIXES = ["wsa", "soap", "wcf"] as const;
const TO_PREFIXES = ["soap", "wcf"] as const;

const RSA_SHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256";
const SHA256 = "http://www.w3.org/2001/04/xmlenc#sha256";
const X509_TOKEN = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3";
const BASE64_BINARY =
  "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary";

/**
 * How long the Timestamp says the request is fresh: 5 minutes, what DIAN's own answers state.
 * The request is built just before it is posted and lives no longer than the call's timeout (well
 * under DIAN's 59 s), and WCF tolerates 5 minutes of clock skew besides; Odoo's 60 000 s (16.7 h)
 * would buy nothing but a stale envelope (one replayed by hand from `.data/dian/`) that DIAN still
 * takes. The Timestamp is not signed (by anyone's client), so its lifetime is no security measure.
 */
export const TIMESTAMP_LIFETIME_MS = 5 * 60_000;

/** DIAN's action URI of an operation: also the `action` of the HTTP Content-Type. */
export function dianAction(operation: DianOperation): string {
  return `http://wcf.dian.colombia/IWcfDianCustomerServices/${operation}`;
}

/** The HTTP Content-Type of a request (SOAP 1.2 carries the action there), as Odoo sends it. */
export function dianContentType(operation: DianOperation): string {
  return `application/soap+xml;charset=UTF-8;action="${dianAction(operation)}"`;
}

export interface EnvelopeOptions {
  /** The URL the request is posted to: `wsa:To`. */
  url: string;
  signer: Signer;
  /** The Timestamp's Created. */
  created: Date;
  /** Makes the envelope's Ids unique (`X509-<id>`, `id-<id>`): letters, digits and hyphens. */
  id: string;
}

export interface DianEnvelope {
  operation: DianOperation;
  action: string;
  /** The request body, UTF-8: post exactly these bytes. */
  bytes: Uint8Array;
  /** The wsu:Id of `wsa:To`, which the signature references. */
  toId: string;
  /** The wsu:Id of the BinarySecurityToken. */
  tokenId: string;
}

const sha256 = (value: string) => createHash("sha256").update(value).digest("base64");

/** Builds and signs the request for `operation` with `params`. */
export async function buildEnvelope<O extends DianOperation>(
  operation: O,
  params: DianRequests[O],
  options: EnvelopeOptions,
): Promise<DianEnvelope> {
  if (!/^[A-Za-z0-9-]{1,64}$/.test(options.id))
    throw new RangeError("an envelope id is 1 to 64 letters, digits or -");
  const tokenId = `X509-${options.id}`;
  const toId = `id-${options.id}`;
  const action = dianAction(operation);
  const to = text("wsa:To", options.url, { "wsu:Id": toId });
  const signedInfo = el(
    "ds:SignedInfo",
    {},
    el(
      "ds:CanonicalizationMethod",
      { Algorithm: EXC_C14N },
      el("ec:InclusiveNamespaces", { PrefixList: SIGNED_INFO_PREFIXES.join(" ") }),
    ),
    el("ds:SignatureMethod", { Algorithm: RSA_SHA256 }),
    el(
      "ds:Reference",
      { URI: `#${toId}` },
      el(
        "ds:Transforms",
        {},
        el(
          "ds:Transform",
          { Algorithm: EXC_C14N },
          el("ec:InclusiveNamespaces", { PrefixList: TO_PREFIXES.join(" ") }),
        ),
      ),
      el("ds:DigestMethod", { Algorithm: SHA256 }),
      text("ds:DigestValue", sha256(exclusiveCanonical(to, NAMESPACES, TO_PREFIXES))),
    ),
  );
  const signatureValue = await crypto.subtle.sign(
    "RSASSA-PKCS1-v1_5",
    options.signer.privateKey,
    new TextEncoder().encode(exclusiveCanonical(signedInfo, NAMESPACES, SIGNED_INFO_PREFIXES)),
  );
  const expires = new Date(options.created.getTime() + TIMESTAMP_LIFETIME_MS);
  const envelope = el(
    "soap:Envelope",
    {},
    el(
      "soap:Header",
      {},
      el(
        "wsse:Security",
        {},
        el(
          "wsu:Timestamp",
          {},
          text("wsu:Created", options.created.toISOString()),
          text("wsu:Expires", expires.toISOString()),
        ),
        text("wsse:BinarySecurityToken", options.signer.certificate.base64, {
          EncodingType: BASE64_BINARY,
          ValueType: X509_TOKEN,
          "wsu:Id": tokenId,
        }),
        el(
          "ds:Signature",
          {},
          signedInfo,
          text("ds:SignatureValue", toBase64(new Uint8Array(signatureValue))),
          el(
            "ds:KeyInfo",
            {},
            el(
              "wsse:SecurityTokenReference",
              {},
              el("wsse:Reference", { URI: `#${tokenId}`, ValueType: X509_TOKEN }),
            ),
          ),
        ),
      ),
      text("wsa:Action", action),
      to,
    ),
    el("soap:Body", {}, body(operation, params)),
  );
  return {
    operation,
    action,
    bytes: new TextEncoder().encode(canonical(envelope, NAMESPACES)),
    toId,
    tokenId,
  };
}

function body<O extends DianOperation>(operation: O, params: DianRequests[O]): XmlElement {
  const values = params as Record<string, string>;
  return el(
    `wcf:${operation}`,
    {},
    ...CHILDREN[operation].map((name) => text(`wcf:${name}`, values[name] ?? "")),
  );
}
