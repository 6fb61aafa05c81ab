/**
 * The client of DIAN's web service: the six operations this project calls, each one signed SOAP
 * request (./soap.ts) posted once and its answer read (./answers.ts). The HTTP plumbing is the one
 * every provider client uses (../../ports/egress/exchange.ts `exchange`): one timeout per call that
 * covers the answer's body, redirects never followed, the answer capped at DIAN's message limit.
 * Every failure becomes a typed provider error (./failures.ts); what an answer means for a document
 * is ./outcome.ts's business, not this module's. Nothing here retries: after a send that got no
 * answer, the adapter asks GetStatus first.
 */
import { ExchangeTimeout, exchange, type FetchLike } from "../../ports/egress/exchange.ts";
import { ProviderRequestError } from "../../ports/providers/errors.ts";
import {
  type DianAnswer,
  type DianResponse,
  type DianResults,
  type EventResponse,
  type NumberRangeResponseList,
  readAnswer,
  type UploadDocumentResponse,
} from "./answers.ts";
import type { Signer } from "./certificate.ts";
import { dianError, providerOperation } from "./failures.ts";
import { packDocument, type SubmissionFiles } from "./package.ts";
import { buildEnvelope, type DianOperation, type DianRequests, dianContentType } from "./soap.ts";
import { MAX_ANSWER_BYTES, MalformedAnswerError } from "./soap-reader.ts";

/** DIAN's endpoints (brief §1); `?wsdl` gives the WSDL. */
export const DIAN_URLS = {
  uat: "https://vpfe-hab.dian.gov.co/WcfDianCustomerServices.svc",
  prd: "https://vpfe.dian.gov.co/WcfDianCustomerServices.svc",
} as const;

export interface DianServiceOptions {
  /** The endpoint posted to (DIAN's, or the local stand-in's): also the envelope's `wsa:To`. */
  url: string;
  /** The company's certificate and key (./certificate.ts `openPkcs12`). */
  signer: Signer;
  /** Defaults to the global fetch; the composition root passes the egress-checked one. */
  fetch?: FetchLike;
  /** Per call, covering the answer's body. DIAN's own operations time out at 59 s. */
  timeoutMs: number;
  /** The clock of the Timestamp and of the ZIP's entry. */
  now?: () => Date;
  /** Makes each envelope's Ids; default a random UUID. */
  newId?: () => string;
}

/** A signed document to send: its bytes and the names of its file and ZIP (./package.ts). */
export interface DianDocumentFile {
  files: SubmissionFiles;
  /** The signed XML, exactly as signed. */
  xml: Uint8Array;
}

export interface DianService {
  /** Sends one document for validation; DIAN answers with its verdict. */
  sendBillSync(document: DianDocumentFile): Promise<DianResponse>;
  /** Habilitación: sends one document of the company's test set; DIAN answers with a ZipKey. */
  sendTestSetAsync(document: DianDocumentFile, testSetId: string): Promise<UploadDocumentResponse>;
  /** The answers about a SendTestSetAsync batch, by its ZipKey. */
  getStatusZip(zipKey: string): Promise<DianResponse[]>;
  /** DIAN's verdict on a document, by its CUFE/CUDE. */
  getStatus(documentKey: string): Promise<DianResponse>;
  /** The issuer's numbering ranges DIAN holds for the software. */
  getNumberingRange(query: DianRequests["GetNumberingRange"]): Promise<NumberRangeResponseList>;
  /**
   * The XML DIAN holds under a CUFE/CUDE — the signed document exactly as DIAN received it — or
   * why not (./document-copy.ts reads the answer). A read: a failure never "may have processed".
   */
  getXmlByDocumentKey(documentKey: string): Promise<EventResponse>;
}

const FILE_NAME = /^[A-Za-z0-9._-]{1,200}$/;
const SHORT_ID = /^[A-Za-z0-9-]{1,100}$/;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DOCUMENT_KEY = /^[0-9a-f]{96}$/i;
const NIT = /^[0-9]{5,15}$/;

/** The client for one company's certificate and one endpoint. */
export function createDianService(options: DianServiceOptions): DianService {
  const { url, signer, timeoutMs } = options;
  if (!(timeoutMs > 0)) throw new TypeError("createDianService: timeoutMs must be positive");
  if (!/^https?:\/\//.test(url)) throw new TypeError("createDianService: url must be an http(s) URL");
  const doFetch: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  const now = options.now ?? (() => new Date());
  const newId = options.newId ?? (() => crypto.randomUUID());

  async function call<O extends DianOperation>(
    operation: O,
    params: DianRequests[O],
  ): Promise<DianResults[O]> {
    const envelope = await buildEnvelope(operation, params, { url, signer, created: now(), id: newId() });
    if (envelope.bytes.byteLength > MAX_ANSWER_BYTES) {
      throw new ProviderRequestError(providerOperation(operation), [
        { field: "xml", message: `the request would exceed DIAN's ${MAX_ANSWER_BYTES}-byte message limit` },
      ]);
    }
    let answer: Awaited<ReturnType<typeof exchange>>;
    try {
      answer = await exchange(
        doFetch,
        url,
        {
          method: "POST",
          headers: { "Content-Type": dianContentType(operation), Accept: "application/soap+xml" },
          body: envelope.bytes as Uint8Array<ArrayBuffer>,
        },
        { timeoutMs, maxBytes: MAX_ANSWER_BYTES },
      );
    } catch (error) {
      if (error instanceof ExchangeTimeout) throw dianError(operation, { type: "timeout", timeoutMs });
      throw dianError(operation, { type: "network", cause: plainError(error) });
    }
    const { status } = answer;
    if (answer.truncated) {
      throw dianError(operation, {
        type: "malformed",
        status,
        problem: `a body over ${MAX_ANSWER_BYTES} bytes`,
      });
    }
    let read: DianAnswer<O> | MalformedAnswerError;
    try {
      read = readAnswer(operation, answer.body);
    } catch (error) {
      if (!(error instanceof MalformedAnswerError)) throw error;
      read = error;
    }
    // WCF answers a Fault with HTTP 500 (or 400): the Fault says more than the status
    if (!(read instanceof MalformedAnswerError) && "fault" in read) {
      throw dianError(operation, { type: "fault", status, fault: read.fault });
    }
    if (status < 200 || status > 299) {
      throw dianError(operation, { type: "http", status, retryAfter: answer.headers.get("retry-after") });
    }
    if (read instanceof MalformedAnswerError)
      throw dianError(operation, { type: "malformed", status, problem: read.problem });
    return read.result;
  }

  async function send(document: DianDocumentFile) {
    const operation = providerOperation("SendBillSync");
    if (!FILE_NAME.test(document.files.zip) || !FILE_NAME.test(document.files.xml)) {
      throw new ProviderRequestError(operation, [
        { field: "files", message: "expected file names of letters, digits, . _ -" },
      ]);
    }
    return packDocument(document.files, document.xml, now());
  }

  return {
    async sendBillSync(document) {
      return call("SendBillSync", await send(document));
    },
    async sendTestSetAsync(document, testSetId) {
      check("submit", "testSetId", testSetId, SHORT_ID);
      return call("SendTestSetAsync", { ...(await send(document)), testSetId });
    },
    async getStatusZip(zipKey) {
      check("query", "zipKey", zipKey, GUID);
      return call("GetStatusZip", { trackId: zipKey });
    },
    async getStatus(documentKey) {
      check("query", "documentKey", documentKey, DOCUMENT_KEY);
      return call("GetStatus", { trackId: documentKey.toLowerCase() });
    },
    async getNumberingRange(query) {
      check("check_credential", "accountCode", query.accountCode, NIT);
      check("check_credential", "accountCodeT", query.accountCodeT, NIT);
      check("check_credential", "softwareCode", query.softwareCode, SHORT_ID);
      return call("GetNumberingRange", query);
    },
    async getXmlByDocumentKey(documentKey) {
      check("attached_document", "documentKey", documentKey, DOCUMENT_KEY);
      return call("GetXmlByDocumentKey", { trackId: documentKey.toLowerCase() });
    },
  };
}

function check(
  operation: "submit" | "query" | "check_credential" | "attached_document",
  field: string,
  value: string,
  shape: RegExp,
): void {
  if (!shape.test(value))
    throw new ProviderRequestError(operation, [{ field, message: `not a valid ${field}` }]);
}

/** A network error's name and message only (its cause chain may hold the request). */
function plainError(error: unknown): Error {
  if (!(error instanceof Error)) return new Error("network error");
  const copy = new Error(error.message);
  copy.name = error.name;
  return copy;
}
