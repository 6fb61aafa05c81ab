/**
 * A small element tree written out in canonical form (Canonical XML 1.0, W3C REC-xml-c14n-20010315,
 * without comments). A signed DIAN document is written this way from the start, so the bytes we send
 * are their own canonical form: what we digest and sign is exactly what any verifier (DIAN's .NET
 * `SignedXml`, xmlsec1) recomputes after parsing them, with no parse-and-reserialise step in between
 * that could change a byte.
 *
 * The rules this relies on (c14n §2.3 and §4): no XML declaration inside the canonical form; empty
 * elements as start-end pairs; attributes in double quotes with `&`, `<`, `"`, TAB, LF and CR
 * escaped; text with `&`, `<`, `>` and CR escaped; namespace declarations before the attributes,
 * sorted by prefix (the default namespace first), then attributes sorted by namespace URI and local
 * name (unqualified ones first). Every namespace is declared on the root element only; an element
 * canonicalised on its own (a signed part: inclusive c14n of a subtree) carries all of them, as
 * inclusive c14n renders every namespace in scope on the apex of a document subset.
 *
 * `exclusiveCanonical` writes a part of such a tree in Exclusive XML Canonicalization 1.0 instead,
 * which WS-Security uses: the SOAP envelope (./soap.ts) is written with `canonical` and its signed
 * parts are digested in their exclusive form, which is what a verifier recomputes after parsing it.
 *
 * One exception to "the bytes are their canonical form": a CDATA section (`cdata`), which the
 * AttachedDocument needs to carry whole XML documents as text (./attached-document.ts). The bytes
 * (`serialise`) write it as `<![CDATA[…]]>`; its canonical form (`canonical`, what is digested) is
 * the text a parser reads from those bytes, escaped as any text: line ends normalised to LF (XML
 * 1.0 §2.11 applies inside CDATA too), then `&`, `<`, `>` as entities (c14n §2.3: CDATA sections
 * are replaced by their character content). A `]]>` in the content, which would end the section,
 * is written as two sections (`]]` then `>`), which a parser reads back as the same text. So what is
 * digested is what a verifier computes from the bytes, and a reader gets the text back as it was
 * given, line ends aside.
 */

/** A CDATA section: `text` as one or more CDATA sections in the bytes, text in the canonical form. */
export interface XmlCdata {
  cdata: string;
}

/** A node of the tree: an element, a text or a CDATA section. */
export type XmlNode = XmlElement | XmlCdata | string;

export interface XmlElement {
  /** Qualified name as written: `cbc:ID`, or `Invoice` in the default namespace. */
  name: string;
  /** Attributes in any order (the writer sorts them); values unescaped. */
  attributes: Record<string, string>;
  children: XmlNode[];
}

/** Prefix → namespace URI; `""` is the default namespace. */
export type Namespaces = Readonly<Record<string, string>>;

/** What a child may be when building: absent parts (undefined, null, false) are skipped. */
export type Child = XmlNode | undefined | null | false;

/**
 * An element. Attributes whose value is undefined are left out; so are absent children, so optional
 * parts read as `cond && el(...)`.
 */
export function el(name: string, attributes: Record<string, string | undefined> = {}, ...children: Child[]) {
  const present: Record<string, string> = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) present[key] = value;
  return {
    name,
    attributes: present,
    children: children.filter((c): c is XmlNode => c !== undefined && c !== null && c !== false),
  } satisfies XmlElement;
}

/** A CDATA section holding `text` (which must hold only characters XML allows: see `xmlSafe`). */
export function cdata(text: string): XmlCdata {
  return { cdata: text };
}

/**
 * `text` without the characters XML cannot hold (a control character pasted into a description):
 * anything but XML 1.0's `Char` production — C0 controls, lone surrogates, U+FFFE/F.
 */
export function xmlSafe(text: string): string {
  return text.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "");
}

function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\r/g, "&#xD;");
}

function escapeAttribute(value: string): string {
  return value
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/"/g, "&quot;")
    .replace(/\t/g, "&#x9;")
    .replace(/\n/g, "&#xA;")
    .replace(/\r/g, "&#xD;");
}

/** Code-unit order, as c14n asks (not locale order). */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** CDATA content as the text a parser reads, canonical: line ends to LF, then escaped as text. */
function canonicalCdata(text: string): string {
  return escapeText(text.replace(/\r\n?/g, "\n"));
}

/** CDATA content as sections: a `]]>` inside is split across two sections so it cannot end one. */
function cdataSections(text: string): string {
  return `<![CDATA[${text.replaceAll("]]>", "]]]]><![CDATA[>")}]]>`;
}

/**
 * The canonical form of `element`, rendering the declarations of `namespaces` on it (give the
 * root's declarations both for the root and for any part of the tree canonicalised on its own).
 * `omit` is left out with everything under it: the enveloped-signature transform.
 */
export function canonical(element: XmlElement, namespaces: Namespaces, omit?: XmlElement): string {
  const out: string[] = [];
  write(element, declarationsOf(namespaces), namespaces, { omit, cdata: canonicalCdata }, out);
  return out.join("");
}

/**
 * The bytes of a document whose root is `element`: an XML declaration, then the canonical form of
 * the root, except that CDATA sections are written as such (see the module's docblock).
 */
export function serialise(element: XmlElement, namespaces: Namespaces): Uint8Array<ArrayBuffer> {
  const out = ['<?xml version="1.0" encoding="UTF-8" standalone="no"?>'];
  write(element, declarationsOf(namespaces), namespaces, { omit: undefined, cdata: cdataSections }, out);
  return new TextEncoder().encode(out.join(""));
}

function declarationsOf(namespaces: Namespaces): string {
  return Object.entries(namespaces)
    .sort(([a], [b]) => byCodeUnits(a, b))
    .map(([prefix, uri]) => ` ${prefix === "" ? "xmlns" : `xmlns:${prefix}`}="${escapeAttribute(uri)}"`)
    .join("");
}

interface WriteMode {
  omit: XmlElement | undefined;
  cdata: (text: string) => string;
}

function write(
  element: XmlElement,
  declarations: string,
  namespaces: Namespaces,
  mode: WriteMode,
  out: string[],
): void {
  out.push(`<${element.name}${declarations}${attributesOf(element, namespaces)}>`);
  for (const child of element.children) {
    if (typeof child === "string") out.push(escapeText(child));
    else if ("cdata" in child) out.push(mode.cdata(child.cdata));
    else if (child !== mode.omit) write(child, "", namespaces, mode, out);
  }
  out.push(`</${element.name}>`);
}

function attributesOf(element: XmlElement, namespaces: Namespaces): string {
  const keyed = Object.entries(element.attributes).map(([name, value]) => {
    const colon = name.indexOf(":");
    const uri = colon < 0 ? "" : namespaces[name.slice(0, colon)];
    if (uri === undefined) throw new Error(`undeclared namespace prefix in attribute ${name}`);
    return {
      key: [uri, colon < 0 ? name : name.slice(colon + 1)] as const,
      text: ` ${name}="${escapeAttribute(value)}"`,
    };
  });
  keyed.sort((a, b) => byCodeUnits(a.key[0], b.key[0]) || byCodeUnits(a.key[1], b.key[1]));
  return keyed.map((a) => a.text).join("");
}

/**
 * The Exclusive XML Canonicalization 1.0 form (W3C REC-xml-exc-c14n-20020718, without comments) of
 * `element` taken as the apex of a document subset, in a document whose namespaces are the
 * `namespaces` this writer declares on its root (so every one of them is in scope everywhere).
 *
 * Unlike inclusive c14n, which renders every namespace in scope on the apex, exclusive c14n (§3)
 * renders a declaration on an element only when the element's name or one of its attributes
 * visibly uses the prefix — or the prefix is in `inclusivePrefixes` (the InclusiveNamespaces
 * PrefixList, `#default` for the default namespace), which is rendered the inclusive way, when in
 * scope — and the nearest output ancestor has not already rendered it with that value. The rest of
 * the form (escaping, sorting, start-end pairs) is Canonical XML 1.0's, as `canonical` writes it.
 * This is what WS-Security signs: the SOAP envelope's `wsa:To` and `ds:SignedInfo` (./soap.ts).
 */
export function exclusiveCanonical(
  element: XmlElement,
  namespaces: Namespaces,
  inclusivePrefixes: readonly string[] = [],
): string {
  const inclusive = inclusivePrefixes
    .map((p) => (p === "#default" ? "" : p))
    .filter((p) => namespaces[p] !== undefined);
  const out: string[] = [];
  writeExclusive(element, namespaces, inclusive, new Map(), out);
  return out.join("");
}

function prefixOf(qualifiedName: string): string {
  const colon = qualifiedName.indexOf(":");
  return colon < 0 ? "" : qualifiedName.slice(0, colon);
}

function writeExclusive(
  element: XmlElement,
  namespaces: Namespaces,
  inclusive: readonly string[],
  rendered: ReadonlyMap<string, string>,
  out: string[],
): void {
  // the element's own prefix ("" = the default namespace) and its attributes' prefixes are used
  const used = new Set<string>([prefixOf(element.name), ...inclusive]);
  for (const name of Object.keys(element.attributes)) {
    const prefix = prefixOf(name);
    if (prefix !== "") used.add(prefix);
  }
  const own = new Map(rendered);
  const declarations: string[] = [];
  for (const prefix of [...used].sort(byCodeUnits)) {
    // no default namespace is the empty one: only rendered (xmlns="") to undo a rendered one
    const uri = prefix === "" ? (namespaces[""] ?? "") : namespaces[prefix];
    if (uri === undefined) throw new Error(`undeclared namespace prefix ${prefix} in ${element.name}`);
    if ((rendered.get(prefix) ?? (prefix === "" ? "" : undefined)) === uri) continue;
    declarations.push(` ${prefix === "" ? "xmlns" : `xmlns:${prefix}`}="${escapeAttribute(uri)}"`);
    own.set(prefix, uri);
  }
  out.push(`<${element.name}${declarations.join("")}${attributesOf(element, namespaces)}>`);
  for (const child of element.children) {
    if (typeof child === "string") out.push(escapeText(child));
    else if ("cdata" in child) out.push(canonicalCdata(child.cdata));
    else writeExclusive(child, namespaces, inclusive, own, out);
  }
  out.push(`</${element.name}>`);
}

/** The first element named `name` in document order (the element itself included), or undefined. */
export function findElement(root: XmlElement, name: string): XmlElement | undefined {
  if (root.name === name) return root;
  for (const child of root.children) {
    if (typeof child === "string" || "cdata" in child) continue;
    const found = findElement(child, name);
    if (found) return found;
  }
  return undefined;
}
