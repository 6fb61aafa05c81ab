/**
 * Reading a SOAP 1.2 answer from DIAN's web service, safely and by namespace. DIAN's WCF writes
 * whatever prefixes its serializer picks (`s:`, `b:`, `c:`, a default namespace on the operation's
 * element), so elements are found by namespace URI and local name, never by prefix (@xmldom/xmldom,
 * a namespace-aware DOM in pure JavaScript, on Deno and Node alike).
 *
 * A remote party writes these bytes, so everything is bounded before it costs anything: the size
 * (DIAN's own limit on a message, 10 485 760 bytes), no DOCTYPE at all (so no entity expansion and
 * no external entity can be asked for), strict parsing (any parser warning fails it), texts cut at a
 * length and lists at a count. Whatever cannot be read is a MalformedAnswerError naming the problem.
 */
import { DOMParser } from "@xmldom/xmldom";
import { SOAP12_NAMESPACE } from "./soap.ts";

/** DIAN's limit on a message (`maxReceivedMessageSize` of its binding, brief §1); ours on an answer. */
export const MAX_ANSWER_BYTES = 10_485_760;
/** Texts longer than this are cut (DIAN's longest are parser errors echoed in StatusMessage). */
export const MAX_TEXT_CHARS = 4000;
/** Items of a list (error strings, batch answers, ranges) kept; the rest are counted, not read. */
export const MAX_LIST_ITEMS = 1000;
/**
 * Elements nested deeper than this are refused before parsing: DIAN's answers nest about ten deep,
 * and a parser pays for every level of a hostile answer (7 MB nested a million deep took 4.6 s).
 */
export const MAX_DEPTH = 64;
/**
 * The most elements an answer may open: DIAN's longest answers (a status with its list of at most
 * MAX_LIST_ITEMS messages) have a few thousand; parsing millions of empty ones would take seconds.
 */
export const MAX_ELEMENTS = 20_000;

const XSI_NAMESPACE = "http://www.w3.org/2001/XMLSchema-instance";
const ELEMENT_NODE = 1;

/** The answer is not a SOAP answer we can read; `problem` says why, in our words. */
export class MalformedAnswerError extends Error {
  override name = "MalformedAnswerError";
  readonly problem: string;

  constructor(problem: string) {
    super(`malformed answer: ${problem}`);
    this.problem = problem;
  }
}

/** The DOM node shape this module reads (xmldom's, typed narrowly). */
export interface XmlNodeLike {
  nodeType: number;
  namespaceURI: string | null;
  localName: string | null;
  textContent: string | null;
  childNodes: ArrayLike<XmlNodeLike>;
  getAttributeNS?(namespace: string, localName: string): string | null;
  lookupNamespaceURI?(prefix: string | null): string | null;
}

/** A SOAP 1.2 Fault (SOAP 1.2 part 1 §5.4): what DIAN answers when WCF refuses the request. */
export interface SoapFault {
  /** Code/Value as a name: `{ namespace, local }`, e.g. SOAP's `Sender`, or WCF's unqualified `Client`. */
  code: QualifiedName;
  /** The Subcode values, outermost first (WS-Security's `wsse:InvalidSecurity`, …). */
  subcodes: QualifiedName[];
  /** The first Reason/Text, cut at MAX_TEXT_CHARS; "" when absent. */
  reason: string;
}

export interface QualifiedName {
  namespace: string | null;
  local: string;
}

/** The envelope's Body content: its first element, or a Fault. */
export type SoapBody = { fault: SoapFault } | { content: XmlNodeLike };

/** Parses `bytes` as a SOAP 1.2 envelope and returns its Body's first element or its Fault. */
export function readSoapBody(bytes: Uint8Array): SoapBody {
  const root = parseXml(bytes);
  if (!is(root, SOAP12_NAMESPACE, "Envelope"))
    throw new MalformedAnswerError("a body that is not a SOAP 1.2 envelope");
  const body = child(root, SOAP12_NAMESPACE, "Body");
  if (!body) throw new MalformedAnswerError("a SOAP envelope without a Body");
  const content = elements(body)[0];
  if (!content) throw new MalformedAnswerError("an empty SOAP Body");
  return is(content, SOAP12_NAMESPACE, "Fault") ? { fault: readFault(content) } : { content };
}

function parseXml(bytes: Uint8Array): XmlNodeLike {
  if (bytes.byteLength > MAX_ANSWER_BYTES)
    throw new MalformedAnswerError(`a body over ${MAX_ANSWER_BYTES} bytes`);
  let source: string;
  try {
    source = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new MalformedAnswerError("a body that is not UTF-8 text");
  }
  // no DTD of any kind: nothing to expand, nothing to fetch (a SOAP message may not carry one: SOAP 1.2 part 1 §5)
  if (/<!DOCTYPE/i.test(source) || /<!ENTITY/i.test(source)) {
    throw new MalformedAnswerError("a body with a DOCTYPE, which SOAP forbids");
  }
  const nesting = nestingProblem(source, MAX_DEPTH);
  if (nesting === "too deep") {
    throw new MalformedAnswerError(`a body nesting elements more than ${MAX_DEPTH} deep`);
  }
  if (nesting === "unbalanced") throw new MalformedAnswerError("a body closing more elements than it opens");
  if (nesting === "too many") {
    throw new MalformedAnswerError(`a body of more than ${MAX_ELEMENTS} elements`);
  }
  if (nesting === "malformed") throw new MalformedAnswerError("a body that is not well-formed XML");
  try {
    const document = new DOMParser({
      locator: false,
      onError: (_level, message) => {
        throw new Error(message);
      },
    }).parseFromString(source, "text/xml");
    const root = document.documentElement as unknown as XmlNodeLike | null;
    if (!root) throw new Error("no root element");
    return root;
  } catch {
    throw new MalformedAnswerError("a body that is not well-formed XML");
  }
}

/**
 * How `text` nests its elements, by one linear scan of its tags: "too deep" once more than `limit`
 * elements are open inside one another, "unbalanced" once more have been closed than opened, "too
 * many" once more than `maxElements` have been opened (a flat answer of millions of empty elements
 * costs the parser seconds), "malformed" for a tag, comment, CDATA section or processing instruction
 * that never ends or a quote where no attribute value can start, else null. Comments, CDATA sections
 * and processing instructions are skipped to their own ends (`-->`, `]]>`, `?>`: a processing
 * instruction skipped only to its first `>` let the `</>`s inside it each take a level back), and
 * attribute values (a quote right after `=`) inside start tags, so nothing in them can hide a level.
 * It fails closed: what it cannot follow is refused, never left to a parser that might tolerate it
 * (xmldom takes `a=b'` as a warning, and a scan that had read the `'` as a value's start had skipped
 * the rest of the text). Not a parser otherwise: what is not well formed is the parser's to refuse.
 */
export function nestingProblem(
  text: string,
  limit: number,
  maxElements = MAX_ELEMENTS,
): "too deep" | "unbalanced" | "too many" | "malformed" | null {
  let depth = 0;
  let elements = 0;
  let i = text.indexOf("<");
  while (i !== -1) {
    if (text.startsWith("<!--", i)) {
      i = text.indexOf("-->", i + 4);
    } else if (text.startsWith("<![CDATA[", i)) {
      i = text.indexOf("]]>", i + 9);
    } else if (text[i + 1] === "?") {
      i = text.indexOf("?>", i + 2);
    } else if (text[i + 1] === "/") {
      if (--depth < 0) return "unbalanced";
      i = text.indexOf(">", i);
    } else if (text[i + 1] === "!") {
      i = text.indexOf(">", i);
    } else {
      const end = startTagEnd(text, i + 1);
      if (end === -1) return "malformed";
      if (++elements > maxElements) return "too many";
      if (text[end - 1] !== "/" && ++depth > limit) return "too deep";
      i = end;
    }
    if (i === -1) return "malformed";
    i = text.indexOf("<", i + 1);
  }
  return null;
}

/**
 * Where the start tag whose name begins at `from` ends: its `>` outside attribute values, a value
 * being a quote after `=` (and blanks) up to the same quote. -1 when it never ends, or a quote
 * stands anywhere else.
 */
function startTagEnd(text: string, from: number): number {
  let afterEquals = false;
  for (let j = from; j < text.length; j++) {
    const c = text[j];
    if (c === '"' || c === "'") {
      if (!afterEquals) return -1;
      const close = text.indexOf(c, j + 1);
      if (close === -1) return -1;
      j = close;
      afterEquals = false;
    } else if (c === "=") {
      afterEquals = true;
    } else if (c === ">") {
      return j;
    } else if (c !== " " && c !== "\t" && c !== "\n" && c !== "\r") {
      afterEquals = false;
    }
  }
  return -1;
}

function readFault(fault: XmlNodeLike): SoapFault {
  const codeElement = child(fault, SOAP12_NAMESPACE, "Code");
  const value = codeElement && child(codeElement, SOAP12_NAMESPACE, "Value");
  if (!codeElement || !value) throw new MalformedAnswerError("a SOAP Fault without a Code");
  const subcodes: QualifiedName[] = [];
  for (let sub = child(codeElement, SOAP12_NAMESPACE, "Subcode"); sub && subcodes.length < 10; ) {
    const subValue = child(sub, SOAP12_NAMESPACE, "Value");
    if (subValue) subcodes.push(qualifiedName(subValue));
    sub = child(sub, SOAP12_NAMESPACE, "Subcode");
  }
  const reason = child(fault, SOAP12_NAMESPACE, "Reason");
  const reasonText = reason && child(reason, SOAP12_NAMESPACE, "Text");
  return { code: qualifiedName(value), subcodes, reason: reasonText ? (text(reasonText) ?? "") : "" };
}

/** A QName-valued element (`s:Client`, `a:InvalidSecurity`) resolved against its own scope. */
function qualifiedName(element: XmlNodeLike): QualifiedName {
  const value = (element.textContent ?? "").trim();
  const colon = value.indexOf(":");
  const prefix = colon < 0 ? null : value.slice(0, colon);
  const namespace = element.lookupNamespaceURI?.(prefix) ?? null;
  return { namespace, local: (colon < 0 ? value : value.slice(colon + 1)).slice(0, 200) };
}

/** The element children of `node`. */
export function elements(node: XmlNodeLike): XmlNodeLike[] {
  const out: XmlNodeLike[] = [];
  for (let i = 0; i < node.childNodes.length; i++) {
    const item = node.childNodes[i];
    if (item && item.nodeType === ELEMENT_NODE) out.push(item);
  }
  return out;
}

export function is(node: XmlNodeLike, namespace: string, local: string): boolean {
  return node.namespaceURI === namespace && node.localName === local;
}

/** The first child element `{namespace}local`, or undefined. */
export function child(node: XmlNodeLike, namespace: string, local: string): XmlNodeLike | undefined {
  return elements(node).find((e) => is(e, namespace, local));
}

/** The child elements `{namespace}local`, at most MAX_LIST_ITEMS, and how many more there were. */
export function children(
  node: XmlNodeLike,
  namespace: string,
  local: string,
): { items: XmlNodeLike[]; omitted: number } {
  const all = elements(node).filter((e) => is(e, namespace, local));
  return { items: all.slice(0, MAX_LIST_ITEMS), omitted: Math.max(0, all.length - MAX_LIST_ITEMS) };
}

/** Whether the element says `xsi:nil="true"` (a .NET null). */
export function isNil(element: XmlNodeLike): boolean {
  const nil = element.getAttributeNS?.(XSI_NAMESPACE, "nil");
  return nil === "true" || nil === "1";
}

/** The element's text, trimmed and cut at `max`; null when the element is nil. */
export function text(element: XmlNodeLike, max = MAX_TEXT_CHARS): string | null {
  if (isNil(element)) return null;
  const value = (element.textContent ?? "").trim();
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}

/** The text of the child `{namespace}local`: null when absent or nil. */
export function childText(node: XmlNodeLike, namespace: string, local: string, max?: number): string | null {
  const element = child(node, namespace, local);
  return element ? text(element, max) : null;
}

/** An xs:boolean child; null when absent or nil. */
export function childBoolean(node: XmlNodeLike, namespace: string, local: string): boolean | null {
  const value = childText(node, namespace, local, 10);
  if (value === null) return null;
  if (value === "true" || value === "1") return true;
  if (value === "false" || value === "0") return false;
  throw new MalformedAnswerError(`${local} is not a boolean`);
}
