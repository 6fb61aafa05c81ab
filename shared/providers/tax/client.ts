/**
 * HTTP client for an adapter-tax provider (docs/provider-protocol.md). Each call has its own
 * timeout, every answer is validated, and every failure is a typed ProviderError whose message
 * never contains the API key (../transport.ts). It never retries: whether and when to resend is the
 * core's decision, and after an unknown outcome the answer is a query by our reference, not a resend.
 */

import { isSuccess, type RawAnswer } from "../../ports/egress/exchange.ts";
import {
  ATTACHED_DOCUMENT_CONTENT_TYPE,
  attachedDocumentPath,
  attachedDocumentProblem,
  DocumentOutcome,
  IDEMPOTENCY_HEADER,
  idempotencyKey,
  MAX_ATTACHED_DOCUMENT_BYTES,
  type SubmitDocumentRequest,
  type TaxAdapter,
} from "../../ports/providers/protocol.ts";
import { createProviderTransport, type ProviderClientOptions } from "../transport.ts";

export type { FetchLike } from "../../ports/egress/exchange.ts";
export type TaxClientOptions = ProviderClientOptions;

/** Builds the TaxAdapter that talks to one provider with one credential. */
export function createTaxClient(options: TaxClientOptions): TaxAdapter {
  const http = createProviderTransport("adapter-tax", "createTaxClient", options);

  /** A valid outcome for another document is as unusable as garbage (and must not be recorded). */
  function outcomeFor(operation: "submit" | "query", answer: RawAnswer, reference: string): DocumentOutcome {
    const outcome = http.json(operation, DocumentOutcome, answer);
    if (outcome.reference.toLowerCase() !== reference.toLowerCase()) {
      throw http.malformed(operation, answer, "the outcome of a different document");
    }
    return outcome;
  }

  return {
    async submit(document: SubmitDocumentRequest, submitOptions = {}) {
      const answer = await http.call("submit", "documents", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          [IDEMPOTENCY_HEADER]: idempotencyKey(document.reference, submitOptions.attempt ?? 1),
        },
        body: JSON.stringify(document),
      });
      if (!isSuccess(answer.status)) throw http.failure("submit", answer);
      return outcomeFor("submit", answer, document.reference);
    },

    async query(reference: string) {
      const path = `documents/${encodeURIComponent(reference)}`;
      const answer = await http.call("query", path, { method: "GET" });
      if (answer.status === 404) {
        // Only the protocol's own "not found" means "never received": a 404 from a wrong URL or a
        // proxy must not be read as "safe to send", or a document could be sent twice.
        if (http.errorCode(answer) === "document_not_found") return null;
        throw http.malformed("query", answer, "a 404 that is not the protocol's document_not_found");
      }
      if (!isSuccess(answer.status)) throw http.failure("query", answer);
      return outcomeFor("query", answer, reference);
    },

    async attachedDocument(reference: string, { authorityCode }: { authorityCode: string }) {
      const answer = await http.call("attached_document", attachedDocumentPath(reference), {
        method: "GET",
        accept: `${ATTACHED_DOCUMENT_CONTENT_TYPE}, text/xml`,
        maxBytes: MAX_ATTACHED_DOCUMENT_BYTES,
      });
      // 409 document_not_accepted, 404 document_not_found: a typed `rejected` error with that code.
      if (!isSuccess(answer.status)) throw http.failure("attached_document", answer);
      if (answer.truncated) {
        const problem = `an AttachedDocument larger than ${MAX_ATTACHED_DOCUMENT_BYTES} bytes`;
        throw http.malformed("attached_document", answer, problem);
      }
      const problem = attachedDocumentProblem(answer.body, authorityCode);
      if (problem) throw http.malformed("attached_document", answer, problem);
      // The XML goes to the buyer as it is (editing it would break its signature): one that echoes
      // our key is refused, never scrubbed and passed on.
      if (new TextDecoder().decode(answer.body).includes(options.apiKey)) {
        throw http.malformed("attached_document", answer, "an AttachedDocument that holds the API key");
      }
      return answer.body;
    },

    checkCredential: () => http.checkCredential(),
  };
}
