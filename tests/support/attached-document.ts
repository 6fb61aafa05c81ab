/**
 * Reading an AttachedDocument back the way a buyer's system would: a real XML parser (fast-xml-parser,
 * a devDependency), the container first, then the invoice and the ApplicationResponse it carries as
 * the text of their `cbc:Description`. Elements with attributes come back as `{ "#text", "@name" }`,
 * the others as strings; nothing is trimmed or turned into a number.
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { expect } from "vitest";

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
  /** The embedded `Invoice` or `CreditNote` element. */
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
    document: inner.Invoice ?? inner.CreditNote,
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
