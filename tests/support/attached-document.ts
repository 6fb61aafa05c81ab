/**
 * Reading an AttachedDocument back the way a buyer's system would: a real XML parser (fast-xml-parser,
 * a devDependency), the container first, then the invoice and the ApplicationResponse it carries as
 * the text of their `cbc:Description`. Elements with attributes come back as `{ "#text", "@name" }`,
 * the others as strings; nothing is trimmed or turned into a number. And checking it the way DIAN
 * and a careful buyer would: every signature in it verified by xmlsec1, every document validated.
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { expect } from "vitest";
import { embeddedDocuments, xmllintValidate, xmlsecVerify } from "../../devkit/dian/xml-tools.ts";
import type { SandboxFetch } from "../../sandbox/index.ts";

// biome-ignore lint/suspicious/noExplicitAny: a parsed XML tree is untyped by nature
export type XmlNode = any;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
});

/** Parses `xml`, failing the test unless it is well-formed. */
export function parseXml(xml: string): XmlNode {
  expect(XMLValidator.validate(xml)).toBe(true);
  return parser.parse(xml);
}

/** An element's text, whether it came back as a string or as `{ "#text" }`. */
export function text(node: XmlNode): string | undefined {
  if (typeof node === "string") return node;
  if (node && typeof node === "object" && "#text" in node) return String(node["#text"]);
  return undefined;
}

export interface ReadAttachedDocument {
  /** The `AttachedDocument` element. */
  container: XmlNode;
  /** The embedded `Invoice`, `CreditNote` or `DebitNote` element. */
  document: XmlNode;
  /** The embedded `ApplicationResponse` element. */
  response: XmlNode;
}

export function readAttachedDocument(xml: string | Uint8Array): ReadAttachedDocument {
  const source = typeof xml === "string" ? xml : new TextDecoder("utf-8", { fatal: true }).decode(xml);
  const container = parseXml(source).AttachedDocument;
  expect(container, "the root element is AttachedDocument").toBeDefined();
  const embedded = (attachment: XmlNode) =>
    parseXml(text(attachment["cac:ExternalReference"]["cbc:Description"]) ?? "");
  const inner = embedded(container["cac:Attachment"]);
  const reference = container["cac:ParentDocumentLineReference"]["cac:DocumentReference"];
  return {
    container,
    document: inner.Invoice ?? inner.CreditNote ?? inner.DebitNote,
    response: embedded(reference["cac:Attachment"]).ApplicationResponse,
  };
}

/** The document's tax total: the sum of its `cac:TaxTotal/cbc:TaxAmount`, in cents. */
export function taxTotalCents(document: XmlNode): bigint {
  const totals = document["cac:TaxTotal"];
  const list = totals === undefined ? [] : Array.isArray(totals) ? totals : [totals];
  return list.reduce((sum: bigint, total: XmlNode) => sum + cents(text(total["cbc:TaxAmount"]) ?? "0"), 0n);
}

export function cents(amount: string): bigint {
  const [whole = "0", fraction = ""] = amount.split(".");
  return BigInt(whole) * 100n + BigInt(fraction.padEnd(2, "0").slice(0, 2));
}

/** The CA a sandbox's signatures chain to, from its control endpoint (`GET /_sandbox/certificates`). */
export async function sandboxCa(fetch: SandboxFetch, base = ""): Promise<string> {
  const answer = await fetch(`${base}/_sandbox/certificates`);
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { ca_pem: string }).ca_pem;
}

/**
 * `xml` is an AttachedDocument signed as DIAN mode signs one: its signature verifies against
 * `caPem` (xmlsec1), it validates against UBL 2.1 (xmllint), and so do the document of `kind` and
 * the ApplicationResponse it carries, read back from their CDATA sections.
 */
export async function expectSignedAttachedDocument(
  xml: Uint8Array,
  caPem: string,
  kind: "invoice" | "credit_note" | "debit_note",
): Promise<void> {
  const checks: [string, Promise<{ ok: boolean; output: string }>][] = [
    ["the AttachedDocument's signature", xmlsecVerify(xml, caPem)],
    ["the AttachedDocument's schema", xmllintValidate(xml, "attached_document")],
  ];
  const { document, applicationResponse } = await embeddedDocuments(xml);
  checks.push(
    [`the ${kind}'s signature`, xmlsecVerify(document, caPem)],
    [`the ${kind}'s schema`, xmllintValidate(document, kind)],
    ["the ApplicationResponse's signature", xmlsecVerify(applicationResponse, caPem)],
    ["the ApplicationResponse's schema", xmllintValidate(applicationResponse, "application_response")],
  );
  for (const [what, check] of checks) {
    const result = await check;
    expect(result.ok, `${what}: ${result.output}`).toBe(true);
  }
}
