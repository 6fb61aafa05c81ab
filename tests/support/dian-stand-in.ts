/**
 * Requests to the DIAN stand-in built without our (separate) client: the SOAP 1.2 envelope laid out as
 * Odoo's `soap_request_dian` template lays it out (brief §1) and signed by `xmlsec1 --sign` from that
 * template (brief §8: the signature over `wsa:To`, exclusive C14N), carrying a ZIP of a document built
 * and signed by `buildSignedDocument` with devkit test certificates.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { zipSync } from "fflate";
import forge from "node-forge";
import { createTestCertificates, type TestCertificates } from "../../devkit/dian/certificates.ts";
import { TEST_RESOLUTION, TEST_SOFTWARE } from "../../devkit/dian/documents.ts";
import { createDianStandIn, type DianStandIn, type DianStandInOptions } from "../../sandbox/dian/index.ts";
import { HABILITACION_TECHNICAL_KEY } from "../../sandbox/dian/registry.ts";
import { toBase64 } from "../../shared/ports/providers/deliver.ts";

export const SERVICE_URL = "http://dian.local/WcfDianCustomerServices.svc";
export const TEST_SET_ID = "2b3c4d5e-6f70-4811-9a2b-3c4d5e6f7081";

/** A company's certificate and the private key that signs its envelopes. */
export interface Sender {
  certs: TestCertificates;
  keyPem: string;
  certificateBase64: string;
}

/** Opens the PKCS#12 the way a tool would, for xmlsec1's `--privkey-pem`. */
export function senderOf(certs: TestCertificates): Sender {
  const asn1 = forge.asn1.fromDer(forge.util.binary.raw.encode(certs.p12));
  const p12 = forge.pkcs12.pkcs12FromAsn1(asn1, false, certs.password);
  const type = forge.pki.oids.pkcs8ShroudedKeyBag as string;
  const bag = p12.getBags({ bagType: type })[type]?.[0];
  if (!bag?.key) throw new Error("no key in the PKCS#12");
  const der = forge.asn1.toDer(
    forge.pki.certificateToAsn1(forge.pki.certificateFromPem(certs.certificatePem)),
  );
  return {
    certs,
    keyPem: forge.pki.privateKeyToPem(bag.key),
    certificateBase64: forge.util.encode64(der.getBytes()),
  };
}

export interface EnvelopeOptions {
  created?: Date;
  expires?: Date;
  /** Changes the envelope after signing (a tampered `wsa:To`). */
  tamper?: (signed: string) => string;
  /** The certificate placed in the BinarySecurityToken; default the signer's. */
  tokenBase64?: string;
}

const WSU = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd";

/** The unsigned template: Odoo's layout, with empty DigestValue and SignatureValue for xmlsec1. */
export function envelopeTemplate(
  operation: string,
  body: string,
  token: string,
  options: EnvelopeOptions = {},
) {
  const created = options.created ?? new Date();
  const expires = options.expires ?? new Date(created.getTime() + 60_000_000);
  const id = randomUUID();
  return (
    '<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope" xmlns:wcf="http://wcf.dian.colombia">' +
    '<soap:Header xmlns:wsa="http://www.w3.org/2005/08/addressing">' +
    `<wsse:Security xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd" xmlns:wsu="${WSU}">` +
    `<wsu:Timestamp wsu:Id="TS-${id}"><wsu:Created>${created.toISOString()}</wsu:Created><wsu:Expires>${expires.toISOString()}</wsu:Expires></wsu:Timestamp>` +
    '<wsse:BinarySecurityToken EncodingType="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary" ' +
    `ValueType="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3" wsu:Id="X509-${id}">${token}</wsse:BinarySecurityToken>` +
    '<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:SignedInfo>' +
    '<ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"><ec:InclusiveNamespaces PrefixList="wsa soap wcf" xmlns:ec="http://www.w3.org/2001/10/xml-exc-c14n#"/></ds:CanonicalizationMethod>' +
    '<ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>' +
    `<ds:Reference URI="#id-${id}"><ds:Transforms><ds:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"><ec:InclusiveNamespaces PrefixList="soap wcf" xmlns:ec="http://www.w3.org/2001/10/xml-exc-c14n#"/></ds:Transform></ds:Transforms>` +
    '<ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue/></ds:Reference></ds:SignedInfo><ds:SignatureValue/>' +
    `<ds:KeyInfo Id="KI-${id}"><wsse:SecurityTokenReference wsu:Id="STR-${id}"><wsse:Reference URI="#X509-${id}" ValueType="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3"/></wsse:SecurityTokenReference></ds:KeyInfo>` +
    "</ds:Signature></wsse:Security>" +
    `<wsa:Action>http://wcf.dian.colombia/IWcfDianCustomerServices/${operation}</wsa:Action>` +
    `<wsa:To wsu:Id="id-${id}" xmlns:wsu="${WSU}">https://vpfe-hab.dian.gov.co/WcfDianCustomerServices.svc</wsa:To>` +
    `</soap:Header><soap:Body>${body}</soap:Body></soap:Envelope>`
  );
}

/** `xmlsec1 --sign` of a template with the sender's key. */
export async function signEnvelope(template: string, sender: Sender): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "einv-dian-soap-"));
  try {
    writeFileSync(join(dir, "template.xml"), template);
    writeFileSync(join(dir, "key.pem"), sender.keyPem);
    const { stdout } = await promisify(execFile)(
      "xmlsec1",
      [
        "--sign",
        "--privkey-pem",
        join(dir, "key.pem"),
        "--id-attr:Id",
        "http://www.w3.org/2005/08/addressing:To",
        join(dir, "template.xml"),
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    return stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A signed envelope calling `operation` with `params` (values escaped by the caller when needed). */
export async function soapRequest(
  sender: Sender,
  operation: string,
  params: Record<string, string>,
  options: EnvelopeOptions = {},
): Promise<string> {
  const body = `<wcf:${operation}>${Object.entries(params)
    .map(([k, v]) => `<wcf:${k}>${v}</wcf:${k}>`)
    .join("")}</wcf:${operation}>`;
  const signed = await signEnvelope(
    envelopeTemplate(operation, body, options.tokenBase64 ?? sender.certificateBase64, options),
    sender,
  );
  return options.tamper ? options.tamper(signed) : signed;
}

/** One or more XMLs zipped, base64: a `contentFile`. */
export function zipBase64(files: Record<string, Uint8Array>): string {
  return toBase64(zipSync(files));
}

/** POSTs an envelope to the stand-in as SOAP 1.2. */
export function post(standIn: DianStandIn, envelope: string, operation: string): Promise<Response> {
  return standIn.fetch(SERVICE_URL, {
    method: "POST",
    headers: {
      "content-type": `application/soap+xml;charset=UTF-8;action="http://wcf.dian.colombia/IWcfDianCustomerServices/${operation}"`,
    },
    body: envelope,
  });
}

/** The text of the first element named `name` (any prefix) in `xml`. */
export function field(xml: string, name: string): string | undefined {
  return new RegExp(`<(?:\\w+:)?${name}(?: [^>]*)?>([^<]*)</(?:\\w+:)?${name}>`).exec(xml)?.[1];
}

/** Every `c:string` of a DianResponse's ErrorMessage. */
export function errorMessages(xml: string): string[] {
  return [...xml.matchAll(/<c:string>([^<]*)<\/c:string>/g)].map((m) => m[1] ?? "");
}

/**
 * The day the stand-in's date rules count from (its `today` knob) for documents dated once and for
 * all: devkit/dian/documents.ts issues its invoices on 2026-11-20 and its credit notes on the 21st,
 * so FAD09c (issued more than 10 days before today) judges them as of that world, whatever the
 * machine's date. A test of FAD09c sets the knob itself.
 */
export const FIXTURES_TODAY = "2026-11-21";

/**
 * A stand-in that knows the test company (NIT 900123456, devkit's software and habilitación's SETP
 * range), trusts its CA, and has one test set; its date rules count from FIXTURES_TODAY unless the
 * options' knobs say otherwise.
 */
export function seededStandIn(certs: TestCertificates, options: DianStandInOptions = {}): DianStandIn {
  const standIn = createDianStandIn({ ...options, knobs: { today: FIXTURES_TODAY, ...options.knobs } });
  standIn.trustCa(certs.caPem);
  standIn.putIssuer({
    nit: certs.nit,
    software: [{ id: TEST_SOFTWARE.id, pin: TEST_SOFTWARE.pin, ownerNit: certs.nit }],
    ranges: [
      {
        resolutionNumber: TEST_RESOLUTION.number,
        resolutionDate: TEST_RESOLUTION.start_date,
        prefix: TEST_RESOLUTION.prefix,
        from: TEST_RESOLUTION.from,
        to: TEST_RESOLUTION.to,
        validFrom: TEST_RESOLUTION.start_date,
        validTo: TEST_RESOLUTION.end_date,
        technicalKey: HABILITACION_TECHNICAL_KEY,
        softwareId: TEST_SOFTWARE.id,
      },
    ],
  });
  standIn.addTestSet({ id: TEST_SET_ID, softwareId: TEST_SOFTWARE.id });
  return standIn;
}

export { createTestCertificates };
