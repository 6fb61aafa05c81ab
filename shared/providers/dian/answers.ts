/**
 * DIAN's answers, read into plain values: `DianResponse` (SendBillSync, GetStatus, each item of
 * GetStatusZip), `UploadDocumentResponse` (SendTestSetAsync), `NumberRangeResponseList`
 * (GetNumberingRange) and `EventResponse` (GetXmlByDocumentKey), or the SOAP Fault that came
 * instead. The shapes are DIAN's WCF data contracts ([D] `Utils/Common/DianResponse.cs`,
 * `XmlParamsResponseTrackId.cs`, `Gosocket.Dian.Services/Utils/EventResponse.cs`; each contract in its own
 * `http://schemas.datacontract.org/2004/07/<Contract>` namespace) as DIAN serialises them in the
 * answers Odoo recorded ([O] `tests/responses/*.xml`): `<Op>Response` in `http://wcf.dian.colombia`,
 * holding `<Op>Result` whose children are the contract's members. Nothing here decides what an
 * answer means for a document: ./outcome.ts does.
 */
import { fromBase64 } from "../../ports/providers/deliver.ts";
import { type DianOperation, WCF_NAMESPACE } from "./soap.ts";
import {
  child,
  childBoolean,
  children,
  childText,
  MalformedAnswerError,
  readSoapBody,
  type SoapFault,
  text,
  type XmlNodeLike,
} from "./soap-reader.ts";

const CONTRACT = "http://schemas.datacontract.org/2004/07/";
const DIAN_RESPONSE = `${CONTRACT}DianResponse`;
const UPLOAD_RESPONSE = `${CONTRACT}UploadDocumentResponse`;
const TRACK_ID = `${CONTRACT}XmlParamsResponseTrackId`;
const RANGE_LIST = `${CONTRACT}NumberRangeResponseList`;
const RANGE = `${CONTRACT}NumberRangeResponse`;
const EVENT_RESPONSE = `${CONTRACT}EventResponse`;
const ARRAYS = "http://schemas.microsoft.com/2003/10/Serialization/Arrays";

/** Identifiers (a CUFE is 96 characters, a ZipKey a GUID, a file name short): longer is not DIAN. */
const MAX_KEY_CHARS = 200;

/** DIAN's answer about one document (SendBillSync, GetStatus, an item of GetStatusZip). */
export interface DianResponse {
  /** `ErrorMessage/string`: each `Regla: <code>, Rechazo|Notificación: <message>`, in DIAN's order. */
  errorMessages: string[];
  /** Error strings beyond the MAX_LIST_ITEMS kept. */
  errorMessagesOmitted: number;
  isValid: boolean;
  /** `00`, `99`, `98`, `89`, `66`, … ("" when DIAN sent it empty or nil: a batch still running). */
  statusCode: string;
  statusDescription: string | null;
  statusMessage: string | null;
  /** `XmlBase64Bytes` decoded: DIAN's signed ApplicationResponse, when it sent one. */
  applicationResponse: Uint8Array | null;
  /** `XmlDocumentKey`: the document's CUFE/CUDE as DIAN holds it. */
  documentKey: string | null;
  /** `XmlFileName`: the name DIAN read (the XML's, or the ZIP's). */
  fileName: string | null;
}

/** One `XmlParamsResponseTrackId` of an upload: a file DIAN did not take into the batch, and why. */
export interface TrackIdMessage {
  documentKey: string | null;
  processedMessage: string | null;
  senderCode: string | null;
  success: boolean | null;
  xmlFileName: string | null;
}

/** SendTestSetAsync's answer: the batch's ZipKey, or why there is none. */
export interface UploadDocumentResponse {
  zipKey: string | null;
  errors: TrackIdMessage[];
}

/** One numbering range DIAN holds for the issuer and software. */
export interface NumberRange {
  resolutionNumber: string | null;
  resolutionDate: string | null;
  prefix: string | null;
  fromNumber: string | null;
  toNumber: string | null;
  validDateFrom: string | null;
  validDateTo: string | null;
  /** The range's technical key (the CUFE's ClTec); nil in habilitación. */
  technicalKey: string | null;
}

/** GetNumberingRange's answer: `100` with the ranges, or `301`/`302`/`303`/`401` and why not. */
export interface NumberRangeResponseList {
  operationCode: string;
  operationDescription: string | null;
  ranges: NumberRange[];
}

/**
 * GetXmlByDocumentKey's answer ([D] `EventResponse`: `Code`, `Message`, `XmlBytesBase64`): `100`
 * with the document's XML as DIAN holds it, or another code and why not (./document-copy.ts).
 */
export interface EventResponse {
  code: string;
  message: string | null;
  /** `XmlBytesBase64` decoded: the XML DIAN holds under the CUFE/CUDE, when it sent it. */
  xml: Uint8Array | null;
}

/** What each operation answers. */
export interface DianResults {
  SendBillSync: DianResponse;
  SendTestSetAsync: UploadDocumentResponse;
  GetStatusZip: DianResponse[];
  GetStatus: DianResponse;
  GetNumberingRange: NumberRangeResponseList;
  GetXmlByDocumentKey: EventResponse;
}

export type DianAnswer<O extends DianOperation> = { fault: SoapFault } | { result: DianResults[O] };

/**
 * Reads `bytes` as DIAN's answer to `operation`: its result, or the Fault it is. Throws a
 * MalformedAnswerError for anything else (not XML, a DOCTYPE, another operation's answer, a field
 * that cannot be what DIAN sends).
 */
export function readAnswer<O extends DianOperation>(operation: O, bytes: Uint8Array): DianAnswer<O> {
  const body = readSoapBody(bytes);
  if ("fault" in body) return body;
  const { content } = body;
  if (content.namespaceURI !== WCF_NAMESPACE || content.localName !== `${operation}Response`) {
    throw new MalformedAnswerError(`an answer that is not ${operation}Response`);
  }
  const result = child(content, WCF_NAMESPACE, `${operation}Result`);
  if (!result) throw new MalformedAnswerError(`${operation}Response without its ${operation}Result`);
  return { result: READERS[operation](result) as DianResults[O] };
}

const READERS: { [O in DianOperation]: (result: XmlNodeLike) => DianResults[O] } = {
  SendBillSync: dianResponse,
  GetStatus: dianResponse,
  GetStatusZip: (result) => children(result, DIAN_RESPONSE, "DianResponse").items.map(dianResponse),
  SendTestSetAsync: uploadResponse,
  GetNumberingRange: rangeList,
  GetXmlByDocumentKey: eventResponse,
};

function dianResponse(node: XmlNodeLike): DianResponse {
  const list = child(node, DIAN_RESPONSE, "ErrorMessage");
  const strings = list ? children(list, ARRAYS, "string") : { items: [], omitted: 0 };
  return {
    errorMessages: strings.items.map((s) => text(s) ?? "").filter((s) => s !== ""),
    errorMessagesOmitted: strings.omitted,
    isValid: childBoolean(node, DIAN_RESPONSE, "IsValid") ?? false,
    statusCode: childText(node, DIAN_RESPONSE, "StatusCode", MAX_KEY_CHARS) ?? "",
    statusDescription: childText(node, DIAN_RESPONSE, "StatusDescription"),
    statusMessage: childText(node, DIAN_RESPONSE, "StatusMessage"),
    applicationResponse: base64Bytes(
      childText(node, DIAN_RESPONSE, "XmlBase64Bytes", Number.POSITIVE_INFINITY),
      "XmlBase64Bytes",
    ),
    documentKey: childText(node, DIAN_RESPONSE, "XmlDocumentKey", MAX_KEY_CHARS) || null,
    fileName: childText(node, DIAN_RESPONSE, "XmlFileName", MAX_KEY_CHARS),
  };
}

/**
 * xs:base64Binary (whitespace allowed between characters): the bytes, or null when empty or nil.
 * Not cut: the answer as a whole is at most MAX_ANSWER_BYTES, so the text is too.
 */
function base64Bytes(value: string | null, member: string): Uint8Array | null {
  if (!value) return null;
  const compact = value.replace(/\s+/g, "");
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) {
    throw new MalformedAnswerError(`${member} is not base64`);
  }
  return fromBase64(compact);
}

function eventResponse(node: XmlNodeLike): EventResponse {
  return {
    code: childText(node, EVENT_RESPONSE, "Code", MAX_KEY_CHARS) ?? "",
    message: childText(node, EVENT_RESPONSE, "Message"),
    xml: base64Bytes(
      childText(node, EVENT_RESPONSE, "XmlBytesBase64", Number.POSITIVE_INFINITY),
      "XmlBytesBase64",
    ),
  };
}

function uploadResponse(node: XmlNodeLike): UploadDocumentResponse {
  const list = child(node, UPLOAD_RESPONSE, "ErrorMessageList");
  const items = list ? children(list, TRACK_ID, "XmlParamsResponseTrackId").items : [];
  return {
    zipKey: childText(node, UPLOAD_RESPONSE, "ZipKey", MAX_KEY_CHARS) || null,
    errors: items.map((item) => ({
      documentKey: childText(item, TRACK_ID, "DocumentKey", MAX_KEY_CHARS),
      processedMessage: childText(item, TRACK_ID, "ProcessedMessage"),
      senderCode: childText(item, TRACK_ID, "SenderCode", MAX_KEY_CHARS),
      success: childBoolean(item, TRACK_ID, "Success"),
      xmlFileName: childText(item, TRACK_ID, "XmlFileName", MAX_KEY_CHARS),
    })),
  };
}

function rangeList(node: XmlNodeLike): NumberRangeResponseList {
  const list = child(node, RANGE_LIST, "ResponseList");
  const items = list ? children(list, RANGE, "NumberRangeResponse").items : [];
  const field = (item: XmlNodeLike, name: string) => childText(item, RANGE, name, MAX_KEY_CHARS);
  return {
    operationCode: childText(node, RANGE_LIST, "OperationCode", MAX_KEY_CHARS) ?? "",
    operationDescription: childText(node, RANGE_LIST, "OperationDescription"),
    ranges: items.map((item) => ({
      resolutionNumber: field(item, "ResolutionNumber"),
      resolutionDate: field(item, "ResolutionDate"),
      prefix: field(item, "Prefix"),
      fromNumber: field(item, "FromNumber"),
      toNumber: field(item, "ToNumber"),
      validDateFrom: field(item, "ValidDateFrom"),
      validDateTo: field(item, "ValidDateTo"),
      technicalKey: field(item, "TechnicalKey"),
    })),
  };
}
