import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DOMParser } from "@xmldom/xmldom";
import { describe, expect, it } from "vitest";
import { ExclusiveCanonicalization } from "xml-crypto";
import {
  canonical,
  cdata,
  el,
  exclusiveCanonical,
  findElement,
  serialise,
  xmlSafe,
} from "../../shared/providers/dian/xml.ts";

/** libxml2's own Canonical XML 1.0 of `text` (xmllint --c14n): an implementation independent of ours. */
function libxmlC14n(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "einv-c14n-"));
  try {
    writeFileSync(join(dir, "doc.xml"), text);
    return execFileSync("xmllint", ["--c14n", join(dir, "doc.xml")], { encoding: "utf8" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const NS = { "": "urn:default", b: "urn:b", a: "urn:a" };
/** A namespace whose URI sorts before most letters: unqualified attributes still come first. */
const LOW = { n: "0urn:numbered" };

describe("canonical form", () => {
  it("writes namespaces first (default, then by prefix), then attributes by namespace URI and local name", () => {
    const root = el("r", { z: "1", "b:y": "2", "a:x": "3", m: "4" });
    expect(canonical(root, NS)).toBe(
      '<r xmlns="urn:default" xmlns:a="urn:a" xmlns:b="urn:b" m="4" z="1" a:x="3" b:y="2"></r>',
    );
  });

  it("sorts unqualified attributes before any namespaced one, whatever the namespace's URI", () => {
    expect(canonical(el("r", { "n:x": "1", Z: "2" }), LOW)).toBe(
      '<r xmlns:n="0urn:numbered" Z="2" n:x="1"></r>',
    );
  });

  it('escapes text (&, <, >, CR) and attributes (&, <, ", TAB, LF, CR) as c14n does', () => {
    const root = el("r", { v: `a&b<c"d\te\nf\rg>h'` }, `1 & 2 < 3 > 0\r"'\t\n`);
    expect(canonical(root, {})).toBe(
      '<r v="a&amp;b&lt;c&quot;d&#x9;e&#xA;f&#xD;g>h\'">1 &amp; 2 &lt; 3 &gt; 0&#xD;"\'\t\n</r>',
    );
  });

  it("writes empty elements as start and end tags, skipping absent attributes and children", () => {
    const root = el("r", { gone: undefined, kept: "" }, undefined, null, false, el("e"), "");
    expect(canonical(root, {})).toBe('<r kept=""><e></e></r>');
    expect(root.children).toEqual([el("e"), ""]);
    expect(root.attributes).toEqual({ kept: "" });
  });

  it("renders the root's namespaces on a part canonicalised on its own, and only on it", () => {
    const part = el("a:p", { Id: "x" }, el("b:q", {}, "t"));
    const root = el("r", {}, el("s", {}, part));
    expect(canonical(part, NS)).toBe(
      '<a:p xmlns="urn:default" xmlns:a="urn:a" xmlns:b="urn:b" Id="x"><b:q>t</b:q></a:p>',
    );
    expect(canonical(root, NS)).toContain('<s><a:p Id="x">');
  });

  it("leaves out the omitted element and all under it (the enveloped signature)", () => {
    const signature = el("a:sig", {}, el("a:inner", {}, "x"));
    const root = el("r", {}, el("s", {}, signature, "tail"), el("t"));
    expect(canonical(root, NS, signature)).toBe(
      '<r xmlns="urn:default" xmlns:a="urn:a" xmlns:b="urn:b"><s>tail</s><t></t></r>',
    );
  });

  it("refuses an attribute whose prefix is not declared", () => {
    expect(() => canonical(el("r", { "c:x": "1" }), NS)).toThrow(
      /undeclared namespace prefix in attribute c:x/,
    );
  });

  it("is its own canonical form by libxml2's implementation too", () => {
    const root = el(
      "r",
      { "b:y": "é\t\n\r", z: "<&>" },
      el("a:p", { Id: "1" }, "text & <more> \r\n", el("b:q", { x: '"' })),
      "ñ 😀",
      el("e"),
    );
    const ours = canonical(root, NS);
    expect(libxmlC14n(`<?xml version="1.0" encoding="UTF-8"?>\n${ours}\n`)).toBe(ours);
  });
});

/** libxml2's Exclusive XML Canonicalization of a whole document (xmllint --exc-c14n). */
function libxmlExcC14n(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "einv-exc-c14n-"));
  try {
    writeFileSync(join(dir, "doc.xml"), text);
    return execFileSync("xmllint", ["--exc-c14n", join(dir, "doc.xml")], { encoding: "utf8" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** xml-crypto's exclusive c14n of the first element named `name` in `text`, parsed (independent of ours). */
function xmlCryptoExcC14n(text: string, name: string, prefixes: string[]): string {
  const document = new DOMParser().parseFromString(text, "text/xml");
  const node = document.getElementsByTagName(name)[0];
  if (!node) throw new Error(`no ${name}`);
  // the namespaces its ancestors declare, as xml-crypto's SignedXml hands them over
  const ancestorNamespaces: { prefix: string; namespaceURI: string }[] = [];
  for (
    let up = node.parentNode as Element | null;
    up && up.nodeType === 1;
    up = up.parentNode as Element | null
  ) {
    for (const attribute of Array.from(up.attributes)) {
      if (attribute.prefix === "xmlns" && !ancestorNamespaces.some((a) => a.prefix === attribute.localName)) {
        ancestorNamespaces.push({ prefix: attribute.localName, namespaceURI: attribute.value });
      }
    }
  }
  return new ExclusiveCanonicalization().process(node as unknown as Element, {
    inclusiveNamespacesPrefixList: prefixes,
    ancestorNamespaces,
  }) as string;
}

describe("exclusive canonical form", () => {
  const ENVELOPE = {
    soap: "urn:soap",
    wcf: "urn:wcf",
    wsa: "urn:wsa",
    wsu: "urn:wsu",
    ds: "urn:ds",
    ec: "urn:ec",
  };
  const to = el("wsa:To", { "wsu:Id": "id-1" }, "https://dian.example/s.svc");
  const signedInfo = el(
    "ds:SignedInfo",
    {},
    el(
      "ds:CanonicalizationMethod",
      { Algorithm: "x" },
      el("ec:InclusiveNamespaces", { PrefixList: "wsa soap wcf" }),
    ),
    el("ds:Reference", { URI: "#id-1" }, el("ec:InclusiveNamespaces", { PrefixList: "soap wcf" })),
  );
  const root = el("soap:Envelope", {}, el("soap:Header", {}, el("ds:Signature", {}, signedInfo), to));
  const document = canonical(root, ENVELOPE);

  it("renders only the prefixes an element or its attributes use, plus the inclusive list, on the apex", () => {
    expect(exclusiveCanonical(to, ENVELOPE)).toBe(
      '<wsa:To xmlns:wsa="urn:wsa" xmlns:wsu="urn:wsu" wsu:Id="id-1">https://dian.example/s.svc</wsa:To>',
    );
    expect(exclusiveCanonical(to, ENVELOPE, ["soap", "wcf"])).toBe(
      '<wsa:To xmlns:soap="urn:soap" xmlns:wcf="urn:wcf" xmlns:wsa="urn:wsa" xmlns:wsu="urn:wsu" wsu:Id="id-1">https://dian.example/s.svc</wsa:To>',
    );
  });

  it("declares a prefix again only where no output ancestor did: on each ec: element, ds: once", () => {
    expect(exclusiveCanonical(signedInfo, ENVELOPE, ["wsa", "soap", "wcf"])).toBe(
      '<ds:SignedInfo xmlns:ds="urn:ds" xmlns:soap="urn:soap" xmlns:wcf="urn:wcf" xmlns:wsa="urn:wsa">' +
        '<ds:CanonicalizationMethod Algorithm="x"><ec:InclusiveNamespaces xmlns:ec="urn:ec" PrefixList="wsa soap wcf"></ec:InclusiveNamespaces></ds:CanonicalizationMethod>' +
        '<ds:Reference URI="#id-1"><ec:InclusiveNamespaces xmlns:ec="urn:ec" PrefixList="soap wcf"></ec:InclusiveNamespaces></ds:Reference>' +
        "</ds:SignedInfo>",
    );
  });

  it("ignores inclusive prefixes not in scope and reads #default as the default namespace", () => {
    expect(exclusiveCanonical(el("a:x"), { a: "urn:a", "": "urn:d" }, ["nope", "#default"])).toBe(
      '<a:x xmlns="urn:d" xmlns:a="urn:a"></a:x>',
    );
    // an unprefixed element uses the default namespace; none declared: nothing to render
    expect(exclusiveCanonical(el("x", {}, el("y")), { a: "urn:a" })).toBe("<x><y></y></x>");
    expect(exclusiveCanonical(el("x", {}, el("y")), { "": "urn:d" })).toBe('<x xmlns="urn:d"><y></y></x>');
  });

  it("refuses a prefix no namespace declares", () => {
    expect(() => exclusiveCanonical(el("q:x"), ENVELOPE)).toThrow(/undeclared namespace prefix q/);
  });

  it("matches xml-crypto's implementation on the parsed document, subset by subset", () => {
    expect(xmlCryptoExcC14n(document, "wsa:To", ["soap", "wcf"])).toBe(
      exclusiveCanonical(to, ENVELOPE, ["soap", "wcf"]),
    );
    expect(xmlCryptoExcC14n(document, "ds:SignedInfo", ["wsa", "soap", "wcf"])).toBe(
      exclusiveCanonical(signedInfo, ENVELOPE, ["wsa", "soap", "wcf"]),
    );
  });

  it("matches libxml2's implementation on a whole document", () => {
    const tricky = el(
      "a:r",
      { "b:y": "é\t\n\r", z: "<&>" },
      el("c:p", { Id: "1" }, "x & <y>\r\n", el("b:q")),
      "ñ 😀",
    );
    const namespaces = { a: "urn:a", b: "urn:b", c: "urn:c", unused: "urn:unused" };
    expect(libxmlExcC14n(canonical(tricky, namespaces))).toBe(exclusiveCanonical(tricky, namespaces));
    expect(libxmlExcC14n(document)).toBe(exclusiveCanonical(root, ENVELOPE));
  });
});

describe("CDATA sections", () => {
  const content = '<?xml version="1.0"?>\r\n<doc a="]]>">x & y\rz</doc>\n]]>';
  const root = el("r", {}, el("a:d", {}, cdata(content)), el("e", {}, "t"));

  it("are written as CDATA, a `]]>` split across two sections, the rest as its canonical form", () => {
    const text = new TextDecoder().decode(serialise(root, NS));
    expect(text).toBe(
      '<?xml version="1.0" encoding="UTF-8" standalone="no"?><r xmlns="urn:default" xmlns:a="urn:a" xmlns:b="urn:b">' +
        '<a:d><![CDATA[<?xml version="1.0"?>\r\n<doc a="]]]]><![CDATA[>">x & y\rz</doc>\n]]]]><![CDATA[>]]></a:d>' +
        "<e>t</e></r>",
    );
  });

  it("are, in the canonical form, the text libxml2 reads from those bytes (line ends to LF, escaped)", () => {
    const bytes = new TextDecoder().decode(serialise(root, NS));
    expect(libxmlC14n(bytes)).toBe(canonical(root, NS));
    expect(canonical(root, NS)).toContain(
      '<a:d>&lt;?xml version="1.0"?&gt;\n&lt;doc a="]]&gt;"&gt;x &amp; y\nz&lt;/doc&gt;\n]]&gt;</a:d>',
    );
  });
});

describe("xmlSafe", () => {
  it("drops what XML 1.0 cannot carry and keeps TAB, LF, CR and any other character", () => {
    expect(xmlSafe("a\u0000b\u0008c\u000Bd\u001Fe\uFFFEf\uFFFFg\uD800h\uDC00i")).toBe("abcdefghi");
    expect(xmlSafe("\t\n\r ñ€😀\uE000\uFFFD")).toBe("\t\n\r ñ€😀\uE000\uFFFD");
  });
});

describe("findElement", () => {
  it("finds the first element of a name in document order, or nothing", () => {
    const first = el("x", { n: "1" });
    const root = el("r", {}, "text", el("s", {}, first), el("x", { n: "2" }));
    expect(findElement(root, "x")).toBe(first);
    expect(findElement(root, "r")).toBe(root);
    expect(findElement(root, "y")).toBeUndefined();
    const deep = el("z");
    expect(findElement(el("r", {}, el("s", {}, el("t")), el("u", {}, deep)), "z")).toBe(deep);
  });
});
