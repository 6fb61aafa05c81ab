/**
 * Reads DIAN's ApplicationResponse — the signed answer DIAN returns in `XmlBase64Bytes` ([D]
 * Utils/XmlUtils.cs; [F] in Odoo's l10n_co_dian tests/attachments/attached_document.xml) — for what
 * the AttachedDocument repeats of it: its date and time (the validation's), its response code (02
 * validated, 04 rejected) and the CUFE/CUDE of the document it answers. A remote party's bytes:
 * bounded in size, parsed without a DTD (a `<!DOCTYPE` is refused, so no entity can expand), never
 * re-serialised (the AttachedDocument carries them as they came, ./attached-document.ts).
 */
import { DOMParser, type Element } from "@xmldom/xmldom";
import { MAX_DEPTH, nestingProblem } from "./soap-reader.ts";

const NS = {
  root: "urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2",
  cac: "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
  cbc: "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
} as const;

/**
 * The largest ApplicationResponse taken: DIAN's carry one LineResponse per rule reported (a few
 * hundred bytes each) beside a signature of about 8 KB; a megabyte is thousands of rules.
 */
export const MAX_APPLICATION_RESPONSE_BYTES = 1024 * 1024;
/** Its most elements: DIAN's carry a few dozen (one LineResponse per rule it reports). */
export const MAX_APPLICATION_RESPONSE_ELEMENTS = 5_000;

/** ResponseCode of a document DIAN validated (accepted); 04 is a rejection. */
export const VALIDATED = "02";

export interface ApplicationResponseFacts {
  /** DIAN's number for the response (`cbc:ID`). */
  id: string;
  /** When DIAN validated the document: `cbc:IssueDate` (YYYY-MM-DD) and `cbc:IssueTime` as written. */
  issueDate: string;
  issueTime: string;
  /** `DocumentResponse/Response/ResponseCode`: "02" validated, "04" rejected. */
  responseCode: string;
  /** `DocumentResponse/DocumentReference/UUID`: the CUFE or CUDE of the document answered (lowercase). */
  documentKey: string;
}

/** The text of `parent`'s first child element `namespace`:`name`, trimmed, or undefined. */
function child(parent: Element | undefined, namespace: string, name: string): Element | undefined {
  if (!parent) return undefined;
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    const element = node as Element;
    if (node.nodeType === 1 && element.namespaceURI === namespace && element.localName === name) {
      return element;
    }
  }
  return undefined;
}

const textOf = (element: Element | undefined) => element?.textContent?.trim() || undefined;

/**
 * The UTF-8 text of `bytes` without a leading byte-order mark (an encoding signature, not content:
 * no signature covers it), or a RangeError naming `what` when it is not UTF-8.
 */
export function utf8Text(bytes: Uint8Array, what: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new RangeError(`${what} is not UTF-8 text`);
  }
}

/**
 * The facts of an ApplicationResponse. Throws a RangeError when `bytes` is not one: too large, not
 * UTF-8, not well-formed, a DTD, another root element, or a field missing or malformed.
 */
export function readApplicationResponse(bytes: Uint8Array): ApplicationResponseFacts {
  if (bytes.byteLength > MAX_APPLICATION_RESPONSE_BYTES) {
    throw new RangeError(`the ApplicationResponse is larger than ${MAX_APPLICATION_RESPONSE_BYTES} bytes`);
  }
  const text = utf8Text(bytes, "the ApplicationResponse");
  if (text.includes("<!DOCTYPE")) throw new RangeError("the ApplicationResponse has a DTD");
  const nesting = nestingProblem(text, MAX_DEPTH, MAX_APPLICATION_RESPONSE_ELEMENTS);
  if (nesting === "too deep")
    throw new RangeError(`the ApplicationResponse nests more than ${MAX_DEPTH} deep`);
  if (nesting === "too many") {
    throw new RangeError(
      `the ApplicationResponse has more than ${MAX_APPLICATION_RESPONSE_ELEMENTS} elements`,
    );
  }
  if (nesting) throw new RangeError("the ApplicationResponse is not well-formed XML");
  let root: Element | null;
  try {
    const parser = new DOMParser({
      onError: (level, message) => {
        if (level !== "warning") throw new Error(message);
      },
    });
    root = parser.parseFromString(text, "text/xml").documentElement;
  } catch {
    throw new RangeError("the ApplicationResponse is not well-formed XML");
  }
  if (root?.namespaceURI !== NS.root || root.localName !== "ApplicationResponse") {
    throw new RangeError("the document is not a UBL ApplicationResponse");
  }
  const response = child(root, NS.cac, "DocumentResponse");
  const facts = {
    id: textOf(child(root, NS.cbc, "ID")),
    issueDate: textOf(child(root, NS.cbc, "IssueDate")),
    issueTime: textOf(child(root, NS.cbc, "IssueTime")),
    responseCode: textOf(child(child(response, NS.cac, "Response"), NS.cbc, "ResponseCode")),
    documentKey: textOf(child(child(response, NS.cac, "DocumentReference"), NS.cbc, "UUID"))?.toLowerCase(),
  };
  const shapes: Record<keyof ApplicationResponseFacts, RegExp> = {
    id: /^[\w.-]{1,100}$/,
    issueDate: /^\d{4}-\d{2}-\d{2}$/,
    issueTime: /^\d{2}:\d{2}:\d{2}(\.\d{1,7})?(Z|[+-]\d{2}:\d{2})?$/,
    responseCode: /^\d{2,4}$/,
    documentKey: /^[0-9a-f]{96}$/,
  };
  for (const [field, shape] of Object.entries(shapes) as [keyof ApplicationResponseFacts, RegExp][]) {
    const value = facts[field];
    if (value === undefined || !shape.test(value)) {
      throw new RangeError(`the ApplicationResponse's ${field} is missing or malformed`);
    }
  }
  return facts as ApplicationResponseFacts;
}
