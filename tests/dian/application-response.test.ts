/**
 * DIAN's ApplicationResponse as read for the AttachedDocument (shared/providers/dian/application-
 * response.ts), on small documents of its shape: the facts it repeats, and every way a remote
 * party's bytes are refused before or after parsing.
 */
import { describe, expect, it } from "vitest";
import {
  MAX_APPLICATION_RESPONSE_BYTES,
  MAX_APPLICATION_RESPONSE_ELEMENTS,
  readApplicationResponse,
  utf8Text,
} from "../../shared/providers/dian/application-response.ts";

const KEY = "a".repeat(96);
const NS =
  'xmlns="urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2" ' +
  'xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" ' +
  'xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"';

function response(
  fields: Partial<Record<"id" | "date" | "time" | "code" | "key", string>> = {},
  inside = "",
) {
  const {
    id = "1234567",
    date = "2026-11-25",
    time = "09:30:12-05:00",
    code = "02",
    key = KEY.toUpperCase(),
  } = fields;
  return `<?xml version="1.0" encoding="UTF-8"?>
<ApplicationResponse ${NS}>
  <cbc:ID> ${id} </cbc:ID>
  <cbc:IssueDate>${date}</cbc:IssueDate>
  <cbc:IssueTime>${time}</cbc:IssueTime>
  <cac:DocumentResponse>
    <cac:Response><cbc:ResponseCode>${code}</cbc:ResponseCode></cac:Response>
    <cac:DocumentReference><cbc:UUID>${key}</cbc:UUID></cac:DocumentReference>
  </cac:DocumentResponse>${inside}
</ApplicationResponse>`;
}
const encode = (text: string) => new TextEncoder().encode(text);
const read = (text: string) => readApplicationResponse(encode(text));

describe("reading DIAN's ApplicationResponse", () => {
  it("reads its id, date and time, response code and the document's key, lowercase", () => {
    expect(read(response())).toEqual({
      id: "1234567",
      issueDate: "2026-11-25",
      issueTime: "09:30:12-05:00",
      responseCode: "02",
      documentKey: KEY,
    });
    expect(read(response({ time: "09:30:12.1234567Z", code: "04" }))).toMatchObject({
      issueTime: "09:30:12.1234567Z",
      responseCode: "04",
    });
    expect(read(response({ time: "09:30:12" })).issueTime).toBe("09:30:12");
    // a byte-order mark is an encoding signature, not content
    expect(readApplicationResponse(Uint8Array.from([0xef, 0xbb, 0xbf, ...encode(response())])).id).toBe(
      "1234567",
    );
  });

  it.each([
    ["id", { id: "" }],
    ["id", { id: "12 34" }],
    ["issueDate", { date: "25/11/2026" }],
    ["issueTime", { time: "9:30" }],
    ["issueTime", { time: "09:30:12+5" }],
    ["responseCode", { code: "2" }],
    ["responseCode", { code: "02345" }],
    ["documentKey", { key: "a".repeat(95) }],
    ["documentKey", { key: "a".repeat(97) }],
    ["documentKey", { key: `${"a".repeat(95)}g` }],
    ["documentKey", { key: `g${"a".repeat(96)}` }],
    ["issueDate", { date: "x2026-11-25" }],
    ["issueDate", { date: "2026-11-25x" }],
    ["issueTime", { time: "x09:30:12" }],
  ] as const)("refuses a malformed %s (%j)", (field, change) => {
    expect(() => read(response(change))).toThrow(
      new RangeError(`the ApplicationResponse's ${field} is missing or malformed`),
    );
  });

  it("refuses one without the document's key, as a field missing", () => {
    expect(() => read(response().replace(/<cac:DocumentReference>.*<\/cac:DocumentReference>/, ""))).toThrow(
      new RangeError("the ApplicationResponse's documentKey is missing or malformed"),
    );
  });

  it("goes on past a parser's warning, not past its error", () => {
    // xmldom only warns of an attribute without a value, and reports an unknown entity as an error
    expect(read(response({}, "<cbc:Note flag>x</cbc:Note>")).id).toBe("1234567");
    expect(() => read(response({}, "<cbc:Note>&nbsp;</cbc:Note>"))).toThrow(
      "the ApplicationResponse is not well-formed XML",
    );
  });

  it("takes exactly its size bound", () => {
    const text = response();
    const full = encode(
      text.replace(
        "</ApplicationResponse>",
        `${" ".repeat(MAX_APPLICATION_RESPONSE_BYTES - encode(text).byteLength)}</ApplicationResponse>`,
      ),
    );
    expect(full.byteLength).toBe(MAX_APPLICATION_RESPONSE_BYTES);
    expect(readApplicationResponse(full).id).toBe("1234567");
  });

  it("refuses one whose parts are missing or of another namespace", () => {
    expect(() => read(response().replace(/<cac:Response>.*<\/cac:Response>/, ""))).toThrow(
      /responseCode is missing/,
    );
    expect(() =>
      read(response().replace("<cbc:IssueDate>", "<IssueDate>").replace("</cbc:IssueDate>", "</IssueDate>")),
    ).toThrow(/issueDate is missing/);
    expect(() => read(response().replaceAll("ApplicationResponse-2", "Invoice-2"))).toThrow(
      new RangeError("the document is not a UBL ApplicationResponse"),
    );
    expect(() =>
      read(
        response()
          .replaceAll("<ApplicationResponse", "<Invoice")
          .replace("</ApplicationResponse>", "</Invoice>"),
      ),
    ).toThrow(/not a UBL ApplicationResponse/);
  });

  it("refuses, before parsing, what is too large, not UTF-8, has a DTD, nests too deep or closes too much", () => {
    expect(() => readApplicationResponse(new Uint8Array(MAX_APPLICATION_RESPONSE_BYTES + 1))).toThrow(
      `the ApplicationResponse is larger than ${MAX_APPLICATION_RESPONSE_BYTES} bytes`,
    );
    expect(() => readApplicationResponse(Uint8Array.from([0x3c, 0xff]))).toThrow(
      "the ApplicationResponse is not UTF-8 text",
    );
    expect(() =>
      read(response().replace('<?xml version="1.0" encoding="UTF-8"?>', '<!DOCTYPE a [<!ENTITY x "y">]>')),
    ).toThrow("the ApplicationResponse has a DTD");
    const deep = (n: number) => `${"<cbc:Note>".repeat(n)}${"</cbc:Note>".repeat(n)}`;
    // the root and 63 inside it are 64 levels: taken; one more is refused
    expect(read(response({}, deep(63))).id).toBe("1234567");
    expect(() => read(response({}, deep(64)))).toThrow("the ApplicationResponse nests more than 64 deep");
    // a processing instruction's </> once took back the levels nested after it
    expect(() =>
      read(`<?x ${"</>".repeat(80)}?>${response({}, deep(80)).replace(/^<\?xml[^>]*\?>/, "")}`),
    ).toThrow("the ApplicationResponse nests more than 64 deep");
    expect(() => read(`</a>${response().replace(/^<\?xml[^>]*\?>/, "")}`)).toThrow(
      "the ApplicationResponse is not well-formed XML",
    );
    expect(() => read(response().slice(0, -5))).toThrow("the ApplicationResponse is not well-formed XML");
  });

  it("lets no stray quote hide levels, and refuses more elements than DIAN writes, before parsing", () => {
    // xmldom only warns of `a=b'`; a scan that took the `'` for a value's start skipped the rest of
    // the text, and 149,699 levels after it reached the parser (1.4 s), which took them
    const hidden = `<x a=b'>${"<b>".repeat(1_000)}${"</b>".repeat(1_000)}</x>`;
    expect(() => read(response({}, hidden))).toThrow("the ApplicationResponse is not well-formed XML");
    const flat = (n: number) => "<cbc:Note/>".repeat(n);
    const elements = (text: string) => text.match(/<[A-Za-z]/g)?.length ?? 0;
    const at = response({}, flat(MAX_APPLICATION_RESPONSE_ELEMENTS - elements(response())));
    expect(read(at).id).toBe("1234567");
    expect(() =>
      read(response({}, flat(MAX_APPLICATION_RESPONSE_ELEMENTS - elements(response()) + 1))),
    ).toThrow(`the ApplicationResponse has more than ${MAX_APPLICATION_RESPONSE_ELEMENTS} elements`);
  });

  it("names what is not UTF-8 as it was asked to", () => {
    expect(() => utf8Text(Uint8Array.from([0xc3]), "the thing")).toThrow(
      new RangeError("the thing is not UTF-8 text"),
    );
    expect(utf8Text(encode("ñ"), "x")).toBe("ñ");
  });
});
