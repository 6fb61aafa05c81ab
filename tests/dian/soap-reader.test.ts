/**
 * The SOAP reader under DIAN's answers (shared/providers/dian/soap-reader.ts) piece by piece: the
 * nesting scan against every construct that could hide or fake a level, what is refused before any
 * parsing, a Fault's code, subcodes and reason, and the helpers the answers are read with. The
 * answers themselves are tests/dian/answers.test.ts's.
 */
import { describe, expect, it } from "vitest";
import { readAnswer } from "../../shared/providers/dian/answers.ts";
import {
  childBoolean,
  children,
  childText,
  elements,
  isNil,
  MAX_ANSWER_BYTES,
  MAX_ELEMENTS,
  MAX_LIST_ITEMS,
  MalformedAnswerError,
  nestingProblem,
  readSoapBody,
  text,
  type XmlNodeLike,
} from "../../shared/providers/dian/soap-reader.ts";

const SOAP = "http://www.w3.org/2003/05/soap-envelope";
const WCF = "http://wcf.dian.colombia";
const XSI = "http://www.w3.org/2001/XMLSchema-instance";
const utf8 = (value: string) => new TextEncoder().encode(value);
const envelope = (body: string, head = "") =>
  `${head}<s:Envelope xmlns:s="${SOAP}" xmlns:i="${XSI}"><s:Body>${body}</s:Body></s:Envelope>`;

function problem(bytes: Uint8Array): string | undefined {
  try {
    readSoapBody(bytes);
  } catch (error) {
    if (error instanceof MalformedAnswerError) return error.problem;
    throw error;
  }
  return undefined;
}

/** The content element of an envelope whose body is `body`. */
function content(body: string): XmlNodeLike {
  const read = readSoapBody(utf8(envelope(body)));
  if (!("content" in read)) throw new Error("a Fault");
  return read.content;
}

describe("the nesting scan", () => {
  it.each([
    ["text before the first tag", "abc<r><a></a></r>", 1, "too deep"],
    ["a comment's tags", "<r><!--<a><a><a>--></r>", 1, null],
    ["a comment's closes", "<r><!--</r></r>--><a/></r>", 1, null],
    ["a CDATA section's tags", "<r><![CDATA[<a><a>]]></r>", 1, null],
    ["two CDATA sections side by side", "<r><![CDATA[x]]><![CDATA[<a><a>]]></r>", 1, null],
    ["a `<` at a CDATA section's end", "<r><![CDATA[x<]]></r>", 1, null],
    ["a processing instruction's tags", "<r><?pi <a><a> ?></r>", 1, null],
    ["two processing instructions side by side", "<?a?><?b <a><a>?><r/>", 1, null],
    ["another `<!` declaration", "<r><!X <a>></r>", 1, null],
    ["a `>` in a single-quoted attribute", "<r x='/>'><a/></r>", 1, null],
    ["a `/>` in a single-quoted attribute, then a level", "<r x='/>'><a></a></r>", 1, "too deep"],
    ["a `>` in a double-quoted attribute", '<r x="/>"><a></a></r>', 1, "too deep"],
    ["a self-closing tag", "<r><a/></r>", 1, null],
    ["an unterminated start tag at the end", "<r><a", 1, "malformed"],
    ["an unterminated comment", "<r><!-- never closed", 1, "malformed"],
    ["an unterminated CDATA section", "<r><![CDATA[ never closed", 1, "malformed"],
    ["an unterminated instruction", "<r><?pi never closed", 1, "malformed"],
    ["an unterminated end tag", "<r></r", 1, "malformed"],
    ["an unterminated declaration", "<r><!X never closed", 1, "malformed"],
    [
      "a quote where no value starts (xmldom only warns), hiding what follows",
      "<x a=b'><a><a>'</x>",
      1,
      "malformed",
    ],
    ["a quote after a name, not after `=`", "<x a'b='c'><a/></x>", 5, "malformed"],
    ["an attribute value never closed", '<x a="b><a></a></x>', 5, "malformed"],
    ["a value after `=` and blanks", "<x a = \n 'b>'><a/></x>", 5, null],
    ["a close before any open", "</r><r><a>", 5, "unbalanced"],
    ["one close too many", "<r></r></r>", 5, "unbalanced"],
    ["a depth exactly at the limit", "<a><b><c></c></b></a>", 3, null],
    ["a depth one past the limit", "<a><b><c><d/></c></b></a>", 3, null],
    ["a depth one past the limit, opened", "<a><b><c><d></d></c></b></a>", 3, "too deep"],
  ] as const)("%s", (_what, source, limit, expected) => {
    expect(nestingProblem(source, limit)).toBe(expected);
  });

  it("counts the elements opened, self-closing ones too: at the bound accepted, one more refused", () => {
    expect(nestingProblem(`<r>${"<a/>".repeat(9)}</r>`, 5, 10)).toBeNull();
    expect(nestingProblem(`<r>${"<a/>".repeat(10)}</r>`, 5, 10)).toBe("too many");
    expect(nestingProblem(`<r>${"<a></a>".repeat(10)}</r>`, 5, 10)).toBe("too many");
  });
});

describe("what is refused before parsing", () => {
  it("refuses an answer of more elements than DIAN writes, however flat, before parsing", () => {
    // a flat 10 MB answer of 2.6 million empty elements kept the parser busy 9.6 s
    const flat = (n: number) => envelope(`<r>${"<a/>".repeat(n)}</r>`);
    // the envelope, its body and <r> are 3 of them
    expect(problem(utf8(flat(MAX_ELEMENTS - 3)))).toBeUndefined();
    expect(problem(utf8(flat(MAX_ELEMENTS - 2)))).toBe(`a body of more than ${MAX_ELEMENTS} elements`);
    const started = performance.now();
    const big = utf8(flat(2_600_000));
    expect(big.byteLength).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
    expect(problem(big)).toBe(`a body of more than ${MAX_ELEMENTS} elements`);
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it("takes an answer of exactly DIAN's limit, refuses one byte more", () => {
    const body = envelope("<x/>");
    const full = utf8(body + " ".repeat(MAX_ANSWER_BYTES - body.length));
    expect(full.byteLength).toBe(MAX_ANSWER_BYTES);
    expect(problem(full)).toBeUndefined();
    expect(problem(utf8(`${body}${" ".repeat(MAX_ANSWER_BYTES - body.length + 1)}`))).toBe(
      `a body over ${MAX_ANSWER_BYTES} bytes`,
    );
  });

  it("refuses an ENTITY declaration even without a DOCTYPE, and every parser complaint, warnings too", () => {
    expect(problem(utf8(envelope("<x/>", '<!ENTITY a "b">')))).toBe(
      "a body with a DOCTYPE, which SOAP forbids",
    );
    // xmldom only reports these (an unknown entity; an attribute without a value) and goes on
    expect(problem(utf8(envelope("<x>&nbsp;</x>")))).toBe("a body that is not well-formed XML");
    expect(problem(utf8(envelope("<x a/>")))).toBe("a body that is not well-formed XML");
    expect(problem(utf8(`${envelope("<x/>")}trailing`))).toBe("a body that is not well-formed XML");
  });

  it("names itself", () => {
    const error = new MalformedAnswerError("a body");
    expect(error).toMatchObject({
      name: "MalformedAnswerError",
      problem: "a body",
      message: "malformed answer: a body",
    });
  });
});

describe("a Fault", () => {
  const fault = (inside: string) =>
    readSoapBody(utf8(envelope(`<s:Fault xmlns:a="urn:sub">${inside}</s:Fault>`)));

  it("reads its code, its subcodes (a Subcode without a Value skipped, ten at most) and its first reason", () => {
    const nested = (n: number): string =>
      n === 0 ? "" : `<s:Subcode><s:Value>a:Sub${n}</s:Value>${nested(n - 1)}</s:Subcode>`;
    expect(
      fault(
        `<s:Code><s:Value> s:Sender </s:Value><s:Subcode><s:Subcode><s:Value>a:Inner</s:Value></s:Subcode></s:Subcode></s:Code>` +
          `<s:Reason><s:Text xml:lang="es">  Razón  </s:Text><s:Text xml:lang="en">Reason</s:Text></s:Reason>`,
      ),
    ).toEqual({
      fault: {
        code: { namespace: SOAP, local: "Sender" },
        subcodes: [{ namespace: "urn:sub", local: "Inner" }],
        reason: "Razón",
      },
    });
    const deep = fault(`<s:Code><s:Value>s:Sender</s:Value>${nested(12)}</s:Code>`);
    expect("fault" in deep && deep.fault.subcodes.map((s) => s.local)).toEqual(
      Array.from({ length: 10 }, (_, i) => `Sub${12 - i}`),
    );
  });

  it("reads an unqualified code in the default namespace, cut at 200 characters, and no reason as empty", () => {
    const read = fault(`<s:Code><s:Value>${"C".repeat(250)}</s:Value></s:Code>`);
    expect(read).toEqual({
      fault: { code: { namespace: null, local: "C".repeat(200) }, subcodes: [], reason: "" },
    });
    expect(fault(`<s:Code><s:Value>s:Receiver</s:Value></s:Code><s:Reason/>`)).toMatchObject({
      fault: { reason: "" },
    });
  });

  it("refuses one without a Code, or a Code without a Value", () => {
    expect(() => fault("<s:Reason><s:Text>x</s:Text></s:Reason>")).toThrow("a SOAP Fault without a Code");
    expect(() => fault("<s:Code><s:Subcode/></s:Code>")).toThrow("a SOAP Fault without a Code");
  });
});

describe("the helpers answers are read with", () => {
  it("find elements only, of the namespace and name asked, counting what is over the list's bound", () => {
    const node = content(`<w:R xmlns:w="${WCF}">text<w:a/><!--c--><w:b/><w:a/><o:a xmlns:o="urn:o"/></w:R>`);
    expect(elements(node).map((e) => e.localName)).toEqual(["a", "b", "a", "a"]);
    expect(children(node, WCF, "a").items).toHaveLength(2);
    const many = content(`<w:R xmlns:w="${WCF}">${"<w:a/>".repeat(MAX_LIST_ITEMS + 3)}<w:b/></w:R>`);
    expect(children(many, WCF, "a")).toMatchObject({ omitted: 3 });
    expect(children(many, WCF, "a").items).toHaveLength(MAX_LIST_ITEMS);
  });

  it("read a text trimmed and cut at its bound (exactly the bound is whole), and a nil as null", () => {
    const node = content(
      `<w:R xmlns:w="${WCF}"><w:t>  spaced  </w:t><w:n i:nil="true"/><w:one i:nil="1"/><w:no i:nil="false">x</w:no></w:R>`,
    );
    expect(childText(node, WCF, "t")).toBe("spaced");
    expect(childText(node, WCF, "t", 6)).toBe("spaced");
    expect(childText(node, WCF, "t", 5)).toBe("spac…");
    expect(childText(node, WCF, "n")).toBeNull();
    expect(childText(node, WCF, "one")).toBeNull();
    expect(childText(node, WCF, "no")).toBe("x");
    expect(childText(node, WCF, "absent")).toBeNull();
    const [t] = children(node, WCF, "t").items;
    expect(t && isNil(t)).toBe(false);
    expect(t && text(t)).toBe("spaced");
  });

  it("read xs:boolean as true, 1, false, 0; absent or nil as null; anything else refused", () => {
    const node = content(
      `<w:R xmlns:w="${WCF}"><w:a>true</w:a><w:b>1</w:b><w:c>false</w:c><w:d>0</w:d><w:e i:nil="true"/><w:f>yes</w:f><w:g></w:g></w:R>`,
    );
    expect(["a", "b", "c", "d", "e", "absent"].map((n) => childBoolean(node, WCF, n))).toEqual([
      true,
      true,
      false,
      false,
      null,
      null,
    ]);
    expect(() => childBoolean(node, WCF, "f")).toThrow("f is not a boolean");
    expect(() => childBoolean(node, WCF, "g")).toThrow("g is not a boolean");
  });
});

describe("DIAN's answers, at their edges", () => {
  const CONTRACT = "http://schemas.datacontract.org/2004/07/";
  const response = (operation: string, result: string, namespace = WCF) =>
    utf8(
      envelope(
        `<${operation}Response xmlns="${namespace}"><${operation}Result>${result}</${operation}Result></${operation}Response>`,
      ),
    );

  it("refuses an answer of the right name in another namespace", () => {
    expect(() => readAnswer("GetStatus", response("GetStatus", "", "urn:other"))).toThrow(
      "an answer that is not GetStatusResponse",
    );
  });

  it("keeps DIAN's error strings in order, dropping empty ones; reads base64 across lines", () => {
    const b = `xmlns:b="${CONTRACT}DianResponse" xmlns:c="http://schemas.microsoft.com/2003/10/Serialization/Arrays"`;
    const read = readAnswer(
      "GetStatus",
      response(
        "GetStatus",
        `<b:ErrorMessage ${b}><c:string>Regla: FAD06</c:string><c:string>  </c:string><c:string>Regla: FAU04</c:string></b:ErrorMessage>` +
          `<b:IsValid ${b}>false</b:IsValid><b:StatusCode ${b}>99</b:StatusCode>` +
          `<b:XmlBase64Bytes ${b}>PHI+\n  PC9y\r\nPg==</b:XmlBase64Bytes>`,
      ),
    );
    if (!("result" in read)) throw new Error("a Fault");
    expect(read.result.errorMessages).toEqual(["Regla: FAD06", "Regla: FAU04"]);
    expect(new TextDecoder().decode(read.result.applicationResponse ?? new Uint8Array())).toBe("<r></r>");
  });

  it.each([
    ["a length not a multiple of 4", "PHI+PC9"],
    ["a character outside base64", "PHI+PC9y*g=="],
    ["padding in the middle", "PH==PC9y"],
    ["text before the base64", "x PHI+PC9y"],
  ])("refuses base64 with %s", (_what, value) => {
    const b = `xmlns:b="${CONTRACT}DianResponse"`;
    expect(() =>
      readAnswer("GetStatus", response("GetStatus", `<b:XmlBase64Bytes ${b}>${value}</b:XmlBase64Bytes>`)),
    ).toThrow("XmlBase64Bytes is not base64");
  });

  it("reads each field of a test set's error list, and of a numbering range", () => {
    const u = `xmlns:u="${CONTRACT}UploadDocumentResponse" xmlns:t="${CONTRACT}XmlParamsResponseTrackId"`;
    const upload = readAnswer(
      "SendTestSetAsync",
      response(
        "SendTestSetAsync",
        `<u:ErrorMessageList ${u}><t:XmlParamsResponseTrackId><t:DocumentKey>K</t:DocumentKey><t:ProcessedMessage>P</t:ProcessedMessage>` +
          `<t:SenderCode>S</t:SenderCode><t:Success>false</t:Success><t:XmlFileName>F</t:XmlFileName></t:XmlParamsResponseTrackId></u:ErrorMessageList><u:ZipKey ${u}/>`,
      ),
    );
    expect(upload).toEqual({
      result: {
        zipKey: null,
        errors: [
          { documentKey: "K", processedMessage: "P", senderCode: "S", success: false, xmlFileName: "F" },
        ],
      },
    });
    expect(readAnswer("SendTestSetAsync", response("SendTestSetAsync", ""))).toEqual({
      result: { zipKey: null, errors: [] },
    });
    expect(readAnswer("GetNumberingRange", response("GetNumberingRange", ""))).toEqual({
      result: { operationCode: "", operationDescription: null, ranges: [] },
    });
    expect(readAnswer("GetStatus", response("GetStatus", ""))).toMatchObject({
      result: {
        errorMessages: [],
        errorMessagesOmitted: 0,
        isValid: false,
        statusCode: "",
        documentKey: null,
      },
    });
  });
});
