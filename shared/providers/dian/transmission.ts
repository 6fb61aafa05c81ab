/**
 * One company's documents through DIAN's web service (DIAN direct, DESIGN §10): what a submit, a
 * status query and the buyer's AttachedDocument take, in DIAN's terms. Built on the document builder
 * (./document.ts), the client (./service.ts) and the meaning of DIAN's answers (./outcome.ts); the
 * TaxAdapter that plugs this into the lifecycle (./adapter.ts) only translates.
 *
 * - A submit builds the document and signs it now: its SigningTime is the instant of signing in
 *   Colombia's offset, never a copy of its issue date (DESIGN §12; Odoo's `_dian_sign_xml` takes the
 *   current Bogotá time too). A resend after an unknown outcome carries the same document (the
 *   lifecycle keeps its issue date and time, so its CUFE/CUDE, which DIAN knows it by) with a later
 *   signature. DIAN wants the signing date to be the issue date (FAD09e/CAD09e): the lifecycle
 *   stamps the issue date when it first sends a document, and the signature follows at once. It is
 *   zipped alone and sent: in habilitación
 *   with the company's test set id through SendTestSetAsync, whose batch is polled briefly with
 *   GetStatusZip and otherwise left pending under its ZipKey; else through SendBillSync.
 * - A query asks GetStatusZip about a test set batch still pending (its ZipKey is the provider
 *   reference), else GetStatus by the CUFE/CUDE (DIAN knows documents by their code, not by our
 *   reference): the one recorded from DIAN's last answer, else recomputed from the document (after
 *   an answer lost in transit). DIAN answering 66 means it never received the document.
 * - The AttachedDocument wraps the signed document as DIAN holds it (GetXmlByDocumentKey: the bytes
 *   DIAN validated, never a rebuild — a rebuild would carry today's certificate, and after a new
 *   numbering resolution or software PIN another CUFE/CUDE) and DIAN's ApplicationResponse, which
 *   DIAN keeps and GetStatus hands back, signed by the issuer with today's certificate. The facts
 *   around them (number, dates, parties) come from our records of the document.
 */

import { colombianTime } from "../../co/time.ts";
import { ProviderError, ProviderMalformedError } from "../../ports/providers/errors.ts";
import type { DocumentKind, SubmitDocumentRequest } from "../../ports/providers/protocol.ts";
import { type AttachedDocumentFacts, buildAttachedDocument } from "./attached-document.ts";
import type { Signer } from "./certificate.ts";
import { buildSignedDocument, type SignedDocument } from "./document.ts";
import { documentCopy } from "./document-copy.ts";
import { type DianDocumentInput, type DianSoftware, dianInputProblem } from "./input.ts";
import { type NumberingVerdict, numberingVerdict } from "./numbering.ts";
import { batchOutcome, type DianOutcome, sendOutcome, statusOutcome } from "./outcome.ts";
import { type SubmissionFiles, submissionFiles } from "./package.ts";
import type { DianService } from "./service.ts";
import { uploadOutcome } from "./test-set.ts";
import { buildUnsignedDocument } from "./ubl.ts";

export interface DianTransmissionOptions {
  service: DianService;
  /** The company's certificate and key. */
  signer: Signer;
  /** The software DIAN registered (its id and PIN, and who provides it). */
  software: DianSoftware;
  /** Habilitación's test set id: documents go to SendTestSetAsync while it is set. */
  testSetId: string | null;
  /** GetStatusZip polls after a test set upload, and the wait before each (a batch takes seconds). */
  batchPolls?: number;
  batchPollMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * The service's clock (../../ports/clock.ts): a document is signed at its instant, and an acceptance
   * is recorded at it. Default the system's.
   */
  now?: () => Date;
}

/** What DIAN answered about a document, with what the lifecycle records besides. */
export type DianResult = DianOutcome & {
  /** The CUFE/CUDE of the document as we built it. */
  authorityCode: string;
  qrText: string;
  /** A pending test set batch's ZipKey (the reference to ask about it again), else the code. */
  reference: string;
};

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DOCUMENT_KEY = /^[0-9a-f]{96}$/i;

/** Why DIAN mode cannot make `request` into a DIAN document, or null (checked before anything is sent). */
export function dianProblem(request: SubmitDocumentRequest, software: DianSoftware): string | null {
  const problem = dianInputProblem(dianInput(request, software));
  return problem && `DIAN mode: ${problem}`;
}

/** The builder's input: the document, the software, and for an invoice its numbering resolution. */
export function dianInput(request: SubmitDocumentRequest, software: DianSoftware): DianDocumentInput {
  const n = request.numbering;
  return {
    document: request,
    dian: {
      software,
      ...(n && request.kind === "invoice"
        ? {
            resolution: {
              number: n.resolution_number,
              start_date: n.start_date,
              end_date: n.end_date,
              prefix: n.prefix,
              from: n.from,
              to: n.to,
            },
          }
        : {}),
    },
  };
}

/**
 * The document's file names. DIAN does not enforce them (./package.ts); the consecutive comes from
 * our reference, so a resend of a document travels under the same names.
 */
export function filesOf(request: SubmitDocumentRequest): SubmissionFiles {
  return submissionFiles({
    kind: request.kind as DocumentKind,
    issuerNit: request.issuer.nit,
    package: {
      year: Number(request.issue_date.slice(0, 4)),
      consecutive: Number.parseInt(request.reference.replaceAll("-", "").slice(0, 7), 16),
    },
  });
}

export interface DianTransmission {
  submit(request: SubmitDocumentRequest): Promise<DianResult>;
  /** What DIAN holds about the document; `reference` is the provider reference last recorded. */
  query(request: SubmitDocumentRequest, reference: string | null): Promise<DianResult>;
  /** The buyer's AttachedDocument of a document DIAN accepted under `authorityCode`. */
  attachedDocument(request: SubmitDocumentRequest, authorityCode: string): Promise<Uint8Array>;
  /** GetNumberingRange for the certificate's NIT and the software. */
  checkSoftware(issuerNit: string): Promise<NumberingVerdict>;
}

export function createDianTransmission(options: DianTransmissionOptions): DianTransmission {
  const { service, signer, software } = options;
  const polls = options.batchPolls ?? 2;
  const pollMs = options.batchPollMs ?? 500;
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? (() => new Date());

  const sign = (request: SubmitDocumentRequest): Promise<SignedDocument> =>
    buildSignedDocument(dianInput(request, software), signer, { signingTime: colombianTime(now()) });

  const result = (
    outcome: DianOutcome,
    code: { authorityCode: string; qrText: string },
    reference = code.authorityCode,
  ): DianResult => ({ ...outcome, ...code, reference });

  /**
   * A test set batch: polled a little, then left pending under its ZipKey for reconcile. DIAN holds
   * the batch once it answered with the ZipKey, so a poll that fails (a timeout, a 5xx, garbage, a
   * refusal of the query) settles nothing: the document is pending, never "not sent" — an error
   * thrown from here would be a read's, which the lifecycle takes for "nothing was processed".
   */
  async function settleBatch(zipKey: string, code: { authorityCode: string; qrText: string }) {
    const expected = { documentKey: code.authorityCode };
    let outcome: DianOutcome | null = null;
    for (let poll = 0; poll < polls; poll++) {
      await sleep(pollMs);
      try {
        outcome = batchOutcome(await service.getStatusZip(zipKey), expected);
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        break;
      }
      if (outcome.status !== "pending") return result(outcome, code);
    }
    const pending: DianOutcome = outcome ?? {
      status: "pending",
      statusCode: "",
      rules: [],
      authorityMessage: "",
      message: "DIAN took the test set batch; its result will be asked for again.",
    };
    return result(pending, code, zipKey);
  }

  return {
    async submit(request) {
      const signed = await sign(request);
      const code = { authorityCode: signed.authorityCode, qrText: signed.qrText };
      const file = { files: filesOf(request), xml: signed.xml };
      if (options.testSetId && request.environment === "uat") {
        const upload = uploadOutcome(await service.sendTestSetAsync(file, options.testSetId));
        if (upload.status === "rejected") {
          return result({ ...upload, statusCode: "" }, code);
        }
        return settleBatch(upload.zipKey, code);
      }
      return result(sendOutcome(await service.sendBillSync(file), { documentKey: code.authorityCode }), code);
    },

    async query(request, reference) {
      const unsigned = await buildUnsignedDocument(dianInput(request, software));
      // The code DIAN answered with is the one it knows the document by: recomputing it would use
      // today's technical key and PIN, which a new numbering resolution or software changes.
      const known = reference && DOCUMENT_KEY.test(reference) ? reference.toLowerCase() : null;
      const code = {
        authorityCode: known ?? unsigned.authorityCode,
        // the QR text names the code (../../co/cufe.ts dianQrText): the recorded one, when there is one
        qrText: known ? unsigned.qrText.replaceAll(unsigned.authorityCode, known) : unsigned.qrText,
      };
      const expected = { documentKey: code.authorityCode };
      if (reference && GUID.test(reference)) {
        const batch = batchOutcome(await service.getStatusZip(reference), expected);
        if (batch.status !== "pending") return result(batch, code);
        // DIAN may know the document by its code although the batch's answer lags (or was lost)
        const byCode = statusOutcome(await service.getStatus(code.authorityCode), expected);
        return byCode.status === "not_found" ? result(batch, code, reference) : result(byCode, code);
      }
      return result(statusOutcome(await service.getStatus(code.authorityCode), expected), code);
    },

    async attachedDocument(request, authorityCode) {
      const code = authorityCode.toLowerCase();
      const expected = { documentKey: code };
      const status = statusOutcome(await service.getStatus(code), expected);
      if (status.status !== "accepted") {
        throw new NotAcceptedError(
          `DIAN holds no accepted document with this CUFE/CUDE (${status.message})`,
          status.status === "not_found" ? "document_not_found" : "document_not_accepted",
        );
      }
      if (!status.applicationResponse) {
        throw new NotAcceptedError(
          "DIAN's answer carried no ApplicationResponse to put in the AttachedDocument",
          "document_not_accepted",
        );
      }
      const copy = documentCopy(await service.getXmlByDocumentKey(code), expected);
      if (!copy.found) {
        throw new NotAcceptedError(
          `DIAN holds no copy of the signed document (${copy.message})`,
          "document_not_found",
        );
      }
      const facts: AttachedDocumentFacts = {
        kind: request.kind,
        reference: request.reference,
        number: request.number,
        issue_date: request.issue_date,
        issue_time: request.issue_time,
        environment: request.environment,
        issuer: request.issuer,
        buyer: request.buyer,
        authority_code: code,
      };
      try {
        // buildAttachedDocument checks that DIAN's copy is our signed document with this code
        return await buildAttachedDocument(
          { document: copy.xml, applicationResponse: status.applicationResponse, facts },
          signer,
        );
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        throw new ProviderMalformedError(
          `DIAN's answers do not make the AttachedDocument: ${error.message}.`,
          {
            service: "adapter-tax",
            operation: "attached_document",
            maybeProcessed: false,
          },
        );
      }
    },

    async checkSoftware(issuerNit) {
      const query = {
        accountCode: issuerNit,
        accountCodeT: software.provider_nit ?? issuerNit,
        softwareCode: software.id,
      };
      return numberingVerdict(await service.getNumberingRange(query), query);
    },
  };
}

/** DIAN holds no accepted document to build an AttachedDocument from; `code` is the protocol's word for it. */
export class NotAcceptedError extends Error {
  override name = "NotAcceptedError";
  constructor(
    message: string,
    readonly code: "document_not_found" | "document_not_accepted",
  ) {
    super(message);
  }
}
