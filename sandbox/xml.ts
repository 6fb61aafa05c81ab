/**
 * The smallest XML writer the sandbox's UBL documents need, built so that injection cannot happen:
 * every string becomes text through `escapeXml` (the five special characters as entities, the
 * characters XML 1.0 cannot hold dropped), and markup exists only as `Markup` values made here, from
 * element and attribute names the code spells out. A buyer name such as `</cbc:Name><x/>` is text.
 */

/** Markup this module made: trusted as it is. Any plain string is escaped instead. */
export interface Markup {
  readonly markup: string;
}

type Child = Markup | string | null | undefined | false;
export type Attributes = Record<string, string | number | undefined>;

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};
/** Characters outside XML 1.0's `Char` production (controls, lone surrogates, U+FFFE/U+FFFF). */
const NOT_XML_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
/** Element and attribute names the code writes: an optional prefix and a name, nothing else. */
const NAME = /^(?:[A-Za-z_][\w.-]*:)?[A-Za-z_][\w.-]*$/;

/** Text content or an attribute value: safe between tags and inside quotes. */
export function escapeXml(value: string): string {
  return value.replace(NOT_XML_CHAR, "").replace(/[&<>"']/g, (c) => ENTITIES[c] as string);
}

/** `<name attrs>children</name>`; strings among the children are escaped, falsy ones skipped. */
export function el(name: string, attributes: Attributes | null, ...children: Child[]): Markup {
  const open = `${checkName(name)}${attributesOf(attributes)}`;
  const body = children
    .filter((child): child is Markup | string => child !== null && child !== undefined && child !== false)
    .map((child) => (typeof child === "string" ? escapeXml(child) : child.markup))
    .join("");
  return { markup: body === "" ? `<${open}/>` : `<${open}>${body}</${name}>` };
}

/** `el` for a leaf with text, or nothing when the value is absent (optional UBL elements). */
export function leaf(
  name: string,
  value: string | undefined,
  attributes: Attributes | null = null,
): Markup | null {
  return value === undefined ? null : el(name, attributes, value);
}

/** Markups one after the other (a list of lines, say). */
export function all(parts: (Markup | null)[]): Markup {
  return { markup: parts.map((part) => part?.markup ?? "").join("") };
}

/**
 * A whole XML document carried as the text of an element, as DIAN's AttachedDocument carries the
 * invoice: a CDATA section. Its only terminator, `]]>`, cannot occur in what `el` writes (`>` in
 * text is `&gt;`), and is split across two sections if it ever does.
 */
export function cdata(document: string): Markup {
  return { markup: `<![CDATA[${document.replaceAll("]]>", "]]]]><![CDATA[>")}]]>` };
}

/** The document's bytes: the XML declaration, then the root element. */
export function xmlDocument(root: Markup): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${root.markup}\n`;
}

function attributesOf(attributes: Attributes | null): string {
  if (!attributes) return "";
  return Object.entries(attributes)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([key, value]) => ` ${checkName(key)}="${escapeXml(String(value))}"`)
    .join("");
}

function checkName(name: string): string {
  if (!NAME.test(name)) throw new TypeError(`not an XML name: ${name}`);
  return name;
}
