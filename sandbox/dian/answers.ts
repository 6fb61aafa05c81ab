/**
 * DIAN's answers, written in the shapes DIAN's service sends ([F]: the responses recorded in Odoo's
 * `l10n_co_dian/tests/responses/`, e.g. SendBillSync_warnings.xml, GetStatusZip_pending.xml,
 * SendTestSetAsync.xml, GetNumberingRange_journal.xml, unknown_error.xml): SOAP 1.2 with the
 * prefixes `s`, `a`, `u`, `o`; the header's Action `…/<Op>Response` and a WS-Security Timestamp of
 * five minutes; the result serialised by WCF's DataContractSerializer — members in alphabetical
 * order, prefix `b` for the contract's namespace, `i:nil="true"` for a null, `c` for a nested
 * contract ([D] `DianResponse.cs`, `UploadDocumentResponse.cs`, `XmlParamsResponseTrackId.cs`,
 * `NumberRangeResponse.cs`, `EventResponse.cs`). Nothing is copied from those files; the shapes are
 * rebuilt here.
 */
import { escapeXml } from "./xml-read.ts";

export const NS = {
  soap: "http://www.w3.org/2003/05/soap-envelope",
  wsa: "http://www.w3.org/2005/08/addressing",
  wsse: "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd",
  wsu: "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd",
  wcf: "http://wcf.dian.colombia",
  ds: "http://www.w3.org/2000/09/xmldsig#",
} as const;

const CONTRACT = "http://schemas.datacontract.org/2004/07/";
const ARRAYS = "http://schemas.microsoft.com/2003/10/Serialization/Arrays";
const XSI = "http://www.w3.org/2001/XMLSchema-instance";
export const ACTION_BASE = "http://wcf.dian.colombia/IWcfDianCustomerServices/";

/** DIAN's `DianResponse` ([D] DianResponse.cs). `null` members are written nil. */
export interface DianResponse {
  ErrorMessage: string[] | null;
  IsValid: boolean;
  /** "" is written as an empty element: GetStatusZip while a batch is in process. */
  StatusCode: string | null;
  StatusDescription: string | null;
  StatusMessage: string | null;
  /** The ApplicationResponse, base64. */
  XmlBase64Bytes: string | null;
  XmlDocumentKey: string | null;
  XmlFileName: string | null;
}

export const emptyDianResponse = (): DianResponse => ({
  ErrorMessage: null,
  IsValid: false,
  StatusCode: null,
  StatusDescription: null,
  StatusMessage: null,
  XmlBase64Bytes: null,
  XmlDocumentKey: null,
  XmlFileName: null,
});

/** One entry of an UploadDocumentResponse's ErrorMessageList ([D] XmlParamsResponseTrackId.cs). */
export interface TrackIdMessage {
  DocumentKey: string | null;
  ProcessedMessage: string | null;
  SenderCode: string | null;
  Success: boolean;
  XmlFileName: string | null;
}

export interface NumberRange {
  ResolutionNumber: string;
  ResolutionDate: string;
  Prefix: string;
  FromNumber: string;
  ToNumber: string;
  ValidDateFrom: string;
  ValidDateTo: string;
  TechnicalKey: string | null;
}

const member = (prefix: string, name: string, value: string | null) =>
  value === null
    ? `<${prefix}:${name} i:nil="true"/>`
    : value === ""
      ? `<${prefix}:${name}/>`
      : `<${prefix}:${name}>${escapeXml(value)}</${prefix}:${name}>`;

/** The members of a DianResponse, prefix `b` (its contract namespace declared by the caller). */
function dianResponseMembers(r: DianResponse): string {
  const errors =
    r.ErrorMessage === null
      ? `<b:ErrorMessage i:nil="true" xmlns:c="${ARRAYS}"/>`
      : r.ErrorMessage.length === 0
        ? `<b:ErrorMessage xmlns:c="${ARRAYS}"/>`
        : `<b:ErrorMessage xmlns:c="${ARRAYS}">${r.ErrorMessage.map((m) => `<c:string>${escapeXml(m)}</c:string>`).join("")}</b:ErrorMessage>`;
  return [
    errors,
    member("b", "IsValid", String(r.IsValid)),
    member("b", "StatusCode", r.StatusCode),
    member("b", "StatusDescription", r.StatusDescription),
    member("b", "StatusMessage", r.StatusMessage),
    member("b", "XmlBase64Bytes", r.XmlBase64Bytes),
    member("b", "XmlBytes", null),
    member("b", "XmlDocumentKey", r.XmlDocumentKey),
    member("b", "XmlFileName", r.XmlFileName),
  ].join("");
}

/** The envelope around an operation's result, as DIAN's WCF service writes it. */
function envelope(operation: string, result: string, now: Date): string {
  const expires = new Date(now.getTime() + 5 * 60_000);
  return (
    `<s:Envelope xmlns:s="${NS.soap}" xmlns:a="${NS.wsa}" xmlns:u="${NS.wsu}">` +
    `<s:Header><a:Action s:mustUnderstand="1">${ACTION_BASE}${operation}Response</a:Action>` +
    `<o:Security s:mustUnderstand="1" xmlns:o="${NS.wsse}"><u:Timestamp u:Id="_0">` +
    `<u:Created>${now.toISOString()}</u:Created><u:Expires>${expires.toISOString()}</u:Expires>` +
    "</u:Timestamp></o:Security></s:Header>" +
    `<s:Body><${operation}Response xmlns="${NS.wcf}">${result}</${operation}Response></s:Body></s:Envelope>`
  );
}

const result = (operation: string, contract: string, body: string) =>
  `<${operation}Result xmlns:b="${CONTRACT}${contract}" xmlns:i="${XSI}">${body}</${operation}Result>`;

/** SendBillSync's and GetStatus's answer. */
export function dianResponseEnvelope(operation: "SendBillSync" | "GetStatus", r: DianResponse, now: Date) {
  return envelope(operation, result(operation, "DianResponse", dianResponseMembers(r)), now);
}

/** GetStatusZip's answer: a list of DianResponse. */
export function statusZipEnvelope(responses: DianResponse[], now: Date): string {
  const list = responses.map((r) => `<b:DianResponse>${dianResponseMembers(r)}</b:DianResponse>`).join("");
  return envelope("GetStatusZip", result("GetStatusZip", "DianResponse", list), now);
}

/** SendTestSetAsync's answer: the batch's ZipKey, or the messages that refused it. */
export function uploadEnvelope(zipKey: string | null, errors: TrackIdMessage[] | null, now: Date): string {
  const ns = `xmlns:c="${CONTRACT}XmlParamsResponseTrackId"`;
  const list =
    errors === null
      ? `<b:ErrorMessageList i:nil="true" ${ns}/>`
      : `<b:ErrorMessageList ${ns}>${errors
          .map(
            (e) =>
              "<c:XmlParamsResponseTrackId>" +
              member("c", "DocumentKey", e.DocumentKey) +
              member("c", "ProcessedMessage", e.ProcessedMessage) +
              member("c", "SenderCode", e.SenderCode) +
              member("c", "Success", String(e.Success)) +
              member("c", "XmlFileName", e.XmlFileName) +
              "</c:XmlParamsResponseTrackId>",
          )
          .join("")}</b:ErrorMessageList>`;
  const body = `${list}${member("b", "ZipKey", zipKey)}`;
  return envelope("SendTestSetAsync", result("SendTestSetAsync", "UploadDocumentResponse", body), now);
}

/** GetNumberingRange's answer ([D] NumberRangeResponse.cs: members in their declared Order). */
export function numberingRangeEnvelope(
  code: string,
  description: string,
  ranges: NumberRange[] | null,
  now: Date,
): string {
  const ns = `xmlns:c="${CONTRACT}NumberRangeResponse"`;
  const list =
    ranges === null
      ? `<b:ResponseList i:nil="true" ${ns}/>`
      : `<b:ResponseList ${ns}>${ranges
          .map(
            (r) =>
              "<c:NumberRangeResponse>" +
              (["ResolutionNumber", "ResolutionDate", "Prefix", "FromNumber", "ToNumber"] as const)
                .map((k) => member("c", k, r[k]))
                .join("") +
              member("c", "ValidDateFrom", r.ValidDateFrom) +
              member("c", "ValidDateTo", r.ValidDateTo) +
              member("c", "TechnicalKey", r.TechnicalKey) +
              "</c:NumberRangeResponse>",
          )
          .join("")}</b:ResponseList>`;
  const body = `${member("b", "OperationCode", code)}${member("b", "OperationDescription", description)}${list}`;
  return envelope("GetNumberingRange", result("GetNumberingRange", "NumberRangeResponseList", body), now);
}

/**
 * GetXmlByDocumentKey's answer: DIAN's `EventResponse` ([D] `Gosocket.Dian.Services/Utils/EventResponse.cs`,
 * contract namespace `…/2004/07/EventResponse`, members Code, Message, XmlBytesBase64 — no Order, so
 * alphabetical); `xmlBase64` null is written nil, as WCF writes a null string.
 */
export function eventResponseEnvelope(
  code: string,
  message: string,
  xmlBase64: string | null,
  now: Date,
): string {
  const body = `${member("b", "Code", code)}${member("b", "Message", message)}${member("b", "XmlBytesBase64", xmlBase64)}`;
  return envelope("GetXmlByDocumentKey", result("GetXmlByDocumentKey", "EventResponse", body), now);
}

/**
 * A SOAP 1.2 Fault. DIAN's own faults say `s:Client` ([D] `CertificateValidator`: `new
 * FaultCode("Client")`; [F] unknown_error.xml); WCF's security layer answers `s:Sender` with the
 * subcode `wsse:InvalidSecurity`, and to an Action it does not know `s:Sender` with `wsa:ActionNotSupported`
 * (WCF's behaviour, not observed from DIAN).
 */
export function faultEnvelope(
  code: "Client" | "Sender",
  reason: string,
  subcode?: "InvalidSecurity" | "ActionNotSupported",
): string {
  const subNs = subcode === "InvalidSecurity" ? NS.wsse : NS.wsa;
  const sub = subcode ? `<s:Subcode><s:Value xmlns:a="${subNs}">a:${subcode}</s:Value></s:Subcode>` : "";
  return (
    `<s:Envelope xmlns:s="${NS.soap}" xmlns:a="${NS.wsa}">` +
    '<s:Header><a:Action s:mustUnderstand="1">http://www.w3.org/2005/08/addressing/soap/fault</a:Action></s:Header>' +
    `<s:Body><s:Fault><s:Code><s:Value>s:${code}</s:Value>${sub}</s:Code>` +
    `<s:Reason><s:Text xml:lang="en-US">${escapeXml(reason)}</s:Text></s:Reason></s:Fault></s:Body></s:Envelope>`
  );
}
