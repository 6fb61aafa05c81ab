import { describe, expect, it } from "vitest";
import { toBase64 } from "../../shared/ports/providers/deliver.ts";
import { type DianResponse, readAnswer } from "../../shared/providers/dian/answers.ts";
import {
  MAX_ANSWER_BYTES,
  MAX_LIST_ITEMS,
  MAX_TEXT_CHARS,
  MalformedAnswerError,
  nestingProblem,
} from "../../shared/providers/dian/soap-reader.ts";
import { APPLICATION_RESPONSE, answer, DOCUMENT_COPY, FIXTURE_KEY, FIXTURE_ZIP_KEY } from "./fixtures.ts";

const SOAP = "http://www.w3.org/2003/05/soap-envelope";
const WSSE = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";

function result<T>(read: { result: T } | { fault: unknown }): T {
  if (!("result" in read)) throw new Error("expected a result, got a Fault");
  return read.result;
}

const accepted: DianResponse = {
  errorMessages: [],
  errorMessagesOmitted: 0,
  isValid: true,
  statusCode: "00",
  statusDescription: "Procesado Correctamente.",
  statusMessage: "La Factura electrónica SETP990000002, ha sido autorizada.",
  applicationResponse: APPLICATION_RESPONSE,
  documentKey: FIXTURE_KEY,
  fileName: "fv09001234560002600000002",
};

describe("DianResponse", () => {
  it("reads an acceptance: status, key, file name and the ApplicationResponse decoded", () => {
    expect(result(readAnswer("SendBillSync", answer("send-bill-sync-accepted.xml")))).toEqual(accepted);
  });

  it("reads each error string of ErrorMessage, in DIAN's order", () => {
    const read = result(readAnswer("SendBillSync", answer("send-bill-sync-rejected.xml")));
    expect(read.isValid).toBe(false);
    expect(read.statusCode).toBe("99");
    expect(read.errorMessages).toEqual([
      "Regla: FAD06, Rechazo: Valor del CUFE no está calculado correctamente.",
      "Regla: FAU04, Rechazo: Base imponible distinta a la suma de los valores de las bases imponibles de todas líneas de detalle.",
      "Regla: FAB27b, Rechazo: No fue informado el código de seguridad del software o es incorrecto.",
      "Regla: FAJ43b, Notificación: Nombre informado No corresponde al registrado en el RUT con respecto al Nit suminstrado.",
    ]);
  });

  it("reads nil members as null and an empty ErrorMessage as no strings (status 89)", () => {
    expect(result(readAnswer("SendBillSync", answer("send-bill-sync-89.xml")))).toEqual({
      errorMessages: [],
      errorMessagesOmitted: 0,
      isValid: false,
      statusCode: "89",
      statusDescription: "NIT 900123456 no autorizado a enviar documentos para emisor con NIT 900654321.",
      statusMessage: null,
      applicationResponse: null,
      documentKey: null,
      fileName: "z09001234560002600000002.zip",
    });
  });

  it("reads GetStatus like SendBillSync, and GetStatusZip as a list with an empty StatusCode while in process", () => {
    const status = result(readAnswer("GetStatus", answer("get-status-accepted.xml")));
    expect(status.errorMessages).toHaveLength(3);
    expect(status.applicationResponse).toEqual(APPLICATION_RESPONSE);
    const [pending, ...rest] = result(readAnswer("GetStatusZip", answer("get-status-zip-pending.xml")));
    expect(rest).toEqual([]);
    expect(pending?.statusCode).toBe("");
    expect(pending?.statusDescription).toBe("Batch en proceso de validación.");
    expect(pending?.errorMessages).toEqual([]);
    const [done] = result(readAnswer("GetStatusZip", answer("get-status-zip-accepted.xml")));
    expect(done?.isValid).toBe(true);
    expect(done?.applicationResponse).toEqual(APPLICATION_RESPONSE);
  });

  it("finds elements by namespace, whatever the prefixes DIAN's serializer picks", () => {
    const renamed = answer("send-bill-sync-accepted.xml", {
      "xmlns:s=": "xmlns:env=",
      "<s:": "<env:",
      "</s:": "</env:",
      " s:mustUnderstand": " env:mustUnderstand",
      "xmlns:b=": "xmlns:dr=",
      "<b:": "<dr:",
      "</b:": "</dr:",
      "xmlns:c=": "xmlns:arr=",
      'xmlns:i="': 'xmlns:xsi="',
      "i:nil": "xsi:nil",
      '<SendBillSyncResponse xmlns="http://wcf.dian.colombia">':
        '<w:SendBillSyncResponse xmlns:w="http://wcf.dian.colombia">',
      "</SendBillSyncResponse>": "</w:SendBillSyncResponse>",
      "<SendBillSyncResult ": "<w:SendBillSyncResult ",
      "</SendBillSyncResult>": "</w:SendBillSyncResult>",
    });
    expect(new TextDecoder().decode(renamed)).toContain("<dr:XmlDocumentKey>");
    expect(result(readAnswer("SendBillSync", renamed))).toEqual(accepted);
  });

  it("does not read a member outside DianResponse's namespace (an unprefixed XmlBase64Bytes)", () => {
    const moved = answer("send-bill-sync-accepted.xml", {
      "<b:XmlBase64Bytes>": "<XmlBase64Bytes>",
      "</b:XmlBase64Bytes>": "</XmlBase64Bytes>",
    });
    expect(result(readAnswer("SendBillSync", moved)).applicationResponse).toBeNull();
  });
});

describe("UploadDocumentResponse and NumberRangeResponseList", () => {
  it("reads SendTestSetAsync's ZipKey, or the XmlParamsResponseTrackId saying why there is none", () => {
    expect(result(readAnswer("SendTestSetAsync", answer("send-test-set-async.xml")))).toEqual({
      zipKey: FIXTURE_ZIP_KEY,
      errors: [],
    });
    expect(result(readAnswer("SendTestSetAsync", answer("send-test-set-async-production.xml")))).toEqual({
      zipKey: null,
      errors: [
        {
          documentKey: null,
          processedMessage: "Acción no disponible en producción.",
          senderCode: null,
          success: false,
          xmlFileName: "z09001234560002600000002.zip",
        },
      ],
    });
  });

  it("reads GetNumberingRange's code and ranges, and a refusal's nil ResponseList as none", () => {
    expect(result(readAnswer("GetNumberingRange", answer("get-numbering-range.xml")))).toEqual({
      operationCode: "100",
      operationDescription: "Acción completada OK.",
      ranges: [
        {
          resolutionNumber: "18764000001234",
          resolutionDate: "2026-01-15",
          prefix: "FE",
          fromNumber: "1",
          toNumber: "5000",
          validDateFrom: "2026-01-15",
          validDateTo: "2027-01-15",
          technicalKey: "fc8eac422eba16e22ffd8c6f94b3f40a6e38162c",
        },
      ],
    });
    const refused = answer("get-numbering-range-refused.xml", {
      CODE: "301",
      DESCRIPTION: "No fue encontrado ningún rango de numeración para el NIT: 900123456.",
    });
    expect(result(readAnswer("GetNumberingRange", refused))).toEqual({
      operationCode: "301",
      operationDescription: "No fue encontrado ningún rango de numeración para el NIT: 900123456.",
      ranges: [],
    });
  });
});

describe("EventResponse (GetXmlByDocumentKey)", () => {
  it("reads code 100 with DIAN's copy of the document decoded from XmlBytesBase64", () => {
    const read = result(readAnswer("GetXmlByDocumentKey", answer("get-xml-by-document-key.xml")));
    expect(read).toEqual({ code: "100", message: "Accion completada OK", xml: DOCUMENT_COPY });
    expect(new TextDecoder().decode(read.xml ?? new Uint8Array())).toContain(FIXTURE_KEY);
  });

  it("reads a refusal's nil XmlBytesBase64 as no XML", () => {
    const refused = answer("get-xml-by-document-key-refused.xml", {
      CODE: "404",
      MESSAGE: `Xml con CUFE: '${FIXTURE_KEY}' no encontrado.`,
    });
    expect(result(readAnswer("GetXmlByDocumentKey", refused))).toEqual({
      code: "404",
      message: `Xml con CUFE: '${FIXTURE_KEY}' no encontrado.`,
      xml: null,
    });
  });

  it("finds the members by EventResponse's namespace, whatever the prefix, and none in another's", () => {
    const renamed = answer("get-xml-by-document-key.xml", {
      "xmlns:b=": "xmlns:ev=",
      "<b:": "<ev:",
      "</b:": "</ev:",
    });
    expect(result(readAnswer("GetXmlByDocumentKey", renamed)).xml).toEqual(DOCUMENT_COPY);
    const other = answer("get-xml-by-document-key.xml", {
      "/2004/07/EventResponse": "/2004/07/DianResponse",
    });
    expect(result(readAnswer("GetXmlByDocumentKey", other))).toEqual({ code: "", message: null, xml: null });
  });

  it("reads an XML of megabytes whole (the message size bounds it), and refuses XmlBytesBase64 that is not base64", () => {
    const big = new TextEncoder().encode(`<Invoice>${"x".repeat(6 * 1024 * 1024)}</Invoice>`);
    const bytes = answer("get-xml-by-document-key.xml", {
      [toBase64(DOCUMENT_COPY)]: toBase64(big),
    });
    expect(bytes.byteLength).toBeLessThan(MAX_ANSWER_BYTES);
    const xml = result(readAnswer("GetXmlByDocumentKey", bytes)).xml ?? new Uint8Array();
    // compared as one buffer: an element-by-element toEqual over megabytes takes seconds
    expect(Buffer.from(xml).equals(Buffer.from(big))).toBe(true);
    const broken = answer("get-xml-by-document-key.xml", { "<b:XmlBytesBase64>": "<b:XmlBytesBase64>@@" });
    expect(() => readAnswer("GetXmlByDocumentKey", broken)).toThrow("XmlBytesBase64 is not base64");
  });
});

describe("SOAP Faults", () => {
  it("reads the code as a qualified name, the subcodes and the reason", () => {
    expect(readAnswer("SendBillSync", answer("fault-client.xml"))).toEqual({
      fault: {
        code: { namespace: SOAP, local: "Client" },
        subcodes: [],
        reason: "The creator of this fault did not specify a Reason.",
      },
    });
    expect(readAnswer("GetStatus", answer("fault-invalid-security.xml"))).toEqual({
      fault: {
        code: { namespace: SOAP, local: "Sender" },
        subcodes: [{ namespace: WSSE, local: "InvalidSecurity" }],
        reason: "An error occurred when verifying security for the message.",
      },
    });
  });
});

describe("what cannot be read", () => {
  const problem = (bytes: Uint8Array, operation: "SendBillSync" | "GetStatus" = "SendBillSync") => {
    try {
      readAnswer(operation, bytes);
    } catch (error) {
      if (error instanceof MalformedAnswerError) return error.problem;
      throw error;
    }
    throw new Error("read what it should have refused");
  };
  const utf8 = (text: string) => new TextEncoder().encode(text);

  it("refuses garbage, text that is not UTF-8, XML that is not SOAP 1.2, and an empty Body", () => {
    expect(problem(utf8("<html><body>Service Unavailable</body></html>"))).toBe(
      "a body that is not a SOAP 1.2 envelope",
    );
    expect(problem(utf8("not xml at all <<<"))).toBe("a body that is not well-formed XML");
    expect(problem(utf8(""))).toBe("a body that is not well-formed XML");
    expect(problem(new Uint8Array([0x3c, 0xff, 0xfe, 0x3e]))).toBe("a body that is not UTF-8 text");
    const soap11 = '<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Body/></e:Envelope>';
    expect(problem(utf8(soap11))).toBe("a body that is not a SOAP 1.2 envelope");
    expect(problem(utf8(`<e:Envelope xmlns:e="${SOAP}"><e:Body/></e:Envelope>`))).toBe("an empty SOAP Body");
    expect(problem(utf8(`<e:Envelope xmlns:e="${SOAP}"><e:Header/></e:Envelope>`))).toBe(
      "a SOAP envelope without a Body",
    );
  });

  it("refuses a DOCTYPE before expanding anything: no entity bomb, no external entity", () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE s:Envelope [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
      <s:Envelope xmlns:s="${SOAP}"><s:Body><x>&b;</x></s:Body></s:Envelope>`;
    expect(problem(utf8(bomb))).toBe("a body with a DOCTYPE, which SOAP forbids");
    const external = `<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>`;
    expect(problem(utf8(external))).toBe("a body with a DOCTYPE, which SOAP forbids");
  });

  it("refuses elements nested deeper than any DIAN answer before parsing, whatever hides the levels", () => {
    const nested = (depth: number, open: string) =>
      `<s:Envelope xmlns:s="${SOAP}"><s:Body>${open.repeat(depth)}${"</a>".repeat(depth)}</s:Body></s:Envelope>`;
    expect(problem(utf8(nested(70, "<a>")))).toBe("a body nesting elements more than 64 deep");
    // an attribute value holding "/>" or ">" does not make a start tag look closed
    expect(problem(utf8(nested(70, "<a x=\"/>\" y='>'>")))).toBe("a body nesting elements more than 64 deep");
    // a million deep (7 MB) is refused by the scan, never handed to the parser
    expect(problem(utf8(nested(1_000_000, "<a>")))).toBe("a body nesting elements more than 64 deep");
    // comments and CDATA do not count, nor hide a level; a real answer passes
    expect(
      nestingProblem(
        `<r>${"<!--<a>-->".repeat(100)}<![CDATA[${"</b>".repeat(100)}]]>${"<a>".repeat(70)}</r>`,
        64,
      ),
    ).toBe("too deep");
    expect(nestingProblem(new TextDecoder().decode(answer("send-bill-sync-rejected.xml")), 64)).toBeNull();
  });

  it("lets no processing instruction hide levels: `<?x >`, N `</>`, `?>`, then N deep is refused before parsing", () => {
    // the scan once skipped `<?x >` only to its first `>`, so the N `</>` inside the instruction each
    // took a level back, and a 10 MB answer a million deep reached the parser (2.4–3.7 s)
    const hidden = (n: number, depth: number) =>
      `<?x >${"</>".repeat(n)}?><s:Envelope xmlns:s="${SOAP}"><s:Body>${"<a>".repeat(depth)}${"</a>".repeat(depth)}</s:Body></s:Envelope>`;
    expect(problem(utf8(hidden(70, 70)))).toBe("a body nesting elements more than 64 deep");
    const started = performance.now();
    const big = utf8(hidden(900_000, 900_000));
    expect(big.byteLength).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
    expect(problem(big)).toBe("a body nesting elements more than 64 deep");
    expect(performance.now() - started).toBeLessThan(1_500);
    // the instruction's own text is skipped whole, to its `?>`; a real declaration passes
    expect(nestingProblem(`<?xml version="1.0"?><r><?pi <a><a><a> ?></r>`, 1)).toBeNull();
  });

  it("refuses a body that closes more elements than it opens before parsing", () => {
    expect(nestingProblem("</a></a><a><a><a>", 2)).toBe("unbalanced");
    expect(nestingProblem("<r></r></r>", 64)).toBe("unbalanced");
    expect(problem(utf8(`</x></x><s:Envelope xmlns:s="${SOAP}"><s:Body/></s:Envelope>`))).toBe(
      "a body closing more elements than it opens",
    );
    expect(nestingProblem("<r><a/></r>", 1)).toBeNull();
    expect(nestingProblem("<r><a></a></r>", 1)).toBe("too deep");
  });

  it("refuses an answer over DIAN's message limit unread", () => {
    const big = new Uint8Array(MAX_ANSWER_BYTES + 1).fill(0x20);
    expect(problem(big)).toBe(`a body over ${MAX_ANSWER_BYTES} bytes`);
  });

  it("refuses another operation's answer, a Response without its Result, and members DIAN cannot send", () => {
    expect(problem(answer("get-status-accepted.xml"))).toBe("an answer that is not SendBillSyncResponse");
    const noResult = answer("send-bill-sync-accepted.xml", {
      "SendBillSyncResult ": "OtherResult ",
      "</SendBillSyncResult>": "</OtherResult>",
    });
    expect(problem(noResult)).toBe("SendBillSyncResponse without its SendBillSyncResult");
    expect(problem(answer("send-bill-sync-accepted.xml", { "<b:IsValid>true": "<b:IsValid>maybe" }))).toBe(
      "IsValid is not a boolean",
    );
    expect(
      problem(answer("send-bill-sync-accepted.xml", { "<b:XmlBase64Bytes>": "<b:XmlBase64Bytes>@@" })),
    ).toBe("XmlBase64Bytes is not base64");
  });

  it("bounds what it keeps: long texts cut, error strings past the limit counted and not read", () => {
    const long = "x".repeat(MAX_TEXT_CHARS + 50);
    const strings = Array.from(
      { length: MAX_LIST_ITEMS + 5 },
      (_, i) => `<c:string>Regla: R${i}, Rechazo: ${long}</c:string>`,
    );
    const bytes = answer("send-bill-sync-rejected.xml", {
      "<b:StatusMessage>Documento con errores en campos mandatorios.": `<b:StatusMessage>${long}`,
      "<c:string>Regla: FAD06, Rechazo: Valor del CUFE no está calculado correctamente.</c:string>":
        strings.join(""),
    });
    const read = result(readAnswer("SendBillSync", bytes));
    expect(read.statusMessage).toHaveLength(MAX_TEXT_CHARS);
    expect(read.statusMessage?.endsWith("…")).toBe(true);
    expect(read.errorMessages).toHaveLength(MAX_LIST_ITEMS);
    expect(read.errorMessages[0]).toHaveLength(MAX_TEXT_CHARS);
    expect(read.errorMessagesOmitted).toBe(5 + 3);
  });
});
