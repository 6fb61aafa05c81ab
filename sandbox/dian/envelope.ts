/**
 * A request to DIAN's `WcfDianCustomerServices.svc` as the stand-in reads it: a SOAP 1.2 envelope
 * whose header carries WS-Addressing (`wsa:Action`, `wsa:To`) and WS-Security (Timestamp,
 * BinarySecurityToken, the signature over `wsa:To`), and whose body holds one `wcf:` operation with
 * its parameters (brief §1; [D] `IWcfDianCustomerServices.cs`; [O] `templates.xml`). WCF dispatches on
 * the Action, so the stand-in does too.
 */
import { ACTION_BASE, NS } from "./answers.ts";
import { child, type Element, elements, parseXml, textOf, type XmlDocument } from "./xml-read.ts";

export const OPERATIONS = [
  "SendBillSync",
  "SendTestSetAsync",
  "GetStatusZip",
  "GetStatus",
  "GetNumberingRange",
  "GetXmlByDocumentKey",
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** Each operation's parameters ([D] IWcfDianCustomerServices.cs), all read as text. */
const PARAMETERS: Record<Operation, readonly string[]> = {
  SendBillSync: ["fileName", "contentFile"],
  SendTestSetAsync: ["fileName", "contentFile", "testSetId"],
  GetStatusZip: ["trackId"],
  GetStatus: ["trackId"],
  GetNumberingRange: ["accountCode", "accountCodeT", "softwareCode"],
  GetXmlByDocumentKey: ["trackId"],
};

/** Longest value accepted for a parameter other than contentFile (the message's size bounds that). */
const MAX_PARAMETER = 1_000;

export interface SoapRequest {
  doc: XmlDocument;
  envelope: Element;
  header: Element;
  action: string;
  operation: Operation;
  params: Record<string, string>;
}

/** Why an envelope is not one the service can dispatch; `kind` picks the fault. */
export class EnvelopeError extends Error {
  constructor(
    readonly kind: "malformed" | "action",
    message: string,
  ) {
    super(message);
  }
}

/** The operation a Action names, or null. */
export function operationOfAction(action: string): Operation | null {
  if (!action.startsWith(ACTION_BASE)) return null;
  const name = action.slice(ACTION_BASE.length);
  return (OPERATIONS as readonly string[]).includes(name) ? (name as Operation) : null;
}

/** Reads an envelope; throws EnvelopeError. */
export function readEnvelope(text: string): SoapRequest {
  let doc: XmlDocument;
  try {
    doc = parseXml(text);
  } catch (error) {
    throw new EnvelopeError("malformed", (error as Error).message);
  }
  const envelope = doc.documentElement as Element;
  if (envelope.namespaceURI !== NS.soap || envelope.localName !== "Envelope") {
    throw new EnvelopeError("malformed", "The message is not a SOAP 1.2 envelope.");
  }
  const header = child(envelope, NS.soap, "Header");
  const body = child(envelope, NS.soap, "Body");
  if (!header || !body) throw new EnvelopeError("malformed", "The envelope has no Header or no Body.");
  const action = textOf(child(header, NS.wsa, "Action")) ?? "";
  const operation = operationOfAction(action);
  if (!operation) {
    throw new EnvelopeError(
      "action",
      `The message with Action '${action.slice(0, 200)}' cannot be processed at the receiver, due to a ContractFilter mismatch at the EndpointDispatcher.`,
    );
  }
  const call = elements(body)[0];
  if (!call || call.namespaceURI !== NS.wcf || call.localName !== operation) {
    throw new EnvelopeError("malformed", `The body does not hold the operation ${operation}.`);
  }
  const params: Record<string, string> = {};
  for (const name of PARAMETERS[operation]) {
    const value = textOf(child(call, NS.wcf, name));
    if (value === undefined) continue;
    if (name !== "contentFile" && value.length > MAX_PARAMETER) {
      throw new EnvelopeError(
        "malformed",
        `The parameter ${name} is longer than ${MAX_PARAMETER} characters.`,
      );
    }
    params[name] = value;
  }
  return { doc, envelope, header, action, operation, params };
}
