/**
 * Reading the XML the stand-in receives (SOAP envelopes, UBL documents) with @xmldom/xmldom: a
 * namespace-aware DOM that shares nothing with our own XML writer (shared/providers/dian/xml.ts), so
 * a document our builder gets wrong is read the way any other reader would read it.
 *
 * Bounds: a document type declaration is refused before parsing (no entity can expand), and so is
 * nesting deeper than MAX_DEPTH (the checks below walk the tree; UBL needs about 15 levels).
 */
import { DOMParser, type Element, type Document as XmlDocument } from "@xmldom/xmldom";

export type { Element, XmlDocument };

export const MAX_DEPTH = 100;

/** Why the XML could not be read. */
export class XmlReadError extends Error {
  override name = "XmlReadError";
}

/** Parses `text`; throws XmlReadError with the parser's reason. */
export function parseXml(text: string): XmlDocument {
  if (/<!DOCTYPE/i.test(text)) throw new XmlReadError("DTD is prohibited in this XML document.");
  let doc: XmlDocument;
  try {
    doc = new DOMParser({
      onError: (level, message) => {
        if (level !== "warning") throw new XmlReadError(message);
      },
    }).parseFromString(text, "text/xml");
  } catch (error) {
    const reason = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
    throw new XmlReadError(undeclaredPrefix(text) ?? reason);
  }
  const root = doc.documentElement;
  if (!root) throw new XmlReadError("Root element is missing.");
  if (depth(root) > MAX_DEPTH) throw new XmlReadError(`Elements are nested deeper than ${MAX_DEPTH} levels.`);
  return doc;
}

/**
 * .NET's words for the commonest parse error of a DIAN document, a prefix used but never declared
 * ([F] SendBillSync_errors_nsmap.xml: "Namespace prefix 'sts' is not defined."), or undefined.
 */
function undeclaredPrefix(text: string): string | undefined {
  for (const match of text.matchAll(/<\/?([A-Za-z_][\w.-]*):[A-Za-z_]/g)) {
    const prefix = match[1] as string;
    if (prefix !== "xml" && !text.includes(`xmlns:${prefix}=`))
      return `Namespace prefix '${prefix}' is not defined.`;
  }
  return undefined;
}

/** The deepest nesting under `root`, walked without recursion. */
function depth(root: Element): number {
  let max = 0;
  const stack: [Element, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [node, level] = stack.pop() as [Element, number];
    if (level > max) max = level;
    if (max > MAX_DEPTH) return max;
    for (const child of elements(node)) stack.push([child, level + 1]);
  }
  return max;
}

/** The element children of `parent`. */
export function elements(parent: Element): Element[] {
  const out: Element[] = [];
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === 1) out.push(node as Element);
  }
  return out;
}

/** The children of `parent` named {ns}local. */
export function childrenNamed(parent: Element, ns: string, local: string): Element[] {
  return elements(parent).filter((e) => e.namespaceURI === ns && e.localName === local);
}

/** The first child named {ns}local, or undefined. */
export function child(parent: Element | undefined, ns: string, local: string): Element | undefined {
  return parent ? childrenNamed(parent, ns, local)[0] : undefined;
}

/** Follows `steps` of [ns, local] from `start`, first match at each step. */
export function at(start: Element | undefined, ...steps: [string, string][]): Element | undefined {
  let node = start;
  for (const [ns, local] of steps) node = child(node, ns, local);
  return node;
}

/** Every descendant of `root` named {ns}local, in document order. */
export function descendants(root: Element, ns: string, local: string): Element[] {
  return Array.from(root.getElementsByTagNameNS(ns, local));
}

/** The trimmed text of `element`, or undefined when there is no element. */
export function textOf(element: Element | undefined): string | undefined {
  return element ? (element.textContent ?? "").trim() : undefined;
}

/** XML's special characters as entities, for text and attribute values the stand-in writes. */
export function escapeXml(value: string): string {
  return value
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}
