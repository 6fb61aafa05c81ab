/**
 * HTTP client for a deliver provider (docs/provider-protocol.md#deliver): POST /messages with an
 * Idempotency-Key, and GET /messages/{reference} to learn what became of one. The message is checked before it leaves (addresses, one-line subject, attachment
 * sizes); the answer must be the outcome of this very message.
 */

import { isSuccess } from "../../ports/egress/exchange.ts";
import {
  type DeliveryChannel,
  DeliveryOutcome,
  MAX_ATTACHMENT_BYTES,
  MESSAGE_NOT_FOUND,
  messagePath,
  SendMessageRequest,
  toBase64,
} from "../../ports/providers/deliver.ts";
import { checkRequest, ProviderRequestError } from "../../ports/providers/errors.ts";
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_SHAPE } from "../../ports/providers/protocol.ts";
import { createProviderTransport, type ProviderClientOptions } from "../transport.ts";

export type DeliveryClientOptions = ProviderClientOptions;

/** Builds the DeliveryChannel that talks to one deliver provider with one credential. */
export function createDeliveryClient(options: DeliveryClientOptions): DeliveryChannel {
  const http = createProviderTransport("deliver", "createDeliveryClient", options);

  return {
    async send(message, { idempotencyKey }) {
      if (!IDEMPOTENCY_KEY_SHAPE.test(idempotencyKey)) {
        const detail = "expected 8 to 255 visible ASCII characters";
        throw new ProviderRequestError("send", [{ field: "idempotencyKey", message: detail }]);
      }
      const attachments = message.attachments ?? [];
      attachments.forEach((a, i) => {
        // Checked before encoding, so an oversized file is never copied into base64.
        if (a.content.byteLength > MAX_ATTACHMENT_BYTES) {
          const detail = `at most ${MAX_ATTACHMENT_BYTES} bytes (got ${a.content.byteLength})`;
          throw new ProviderRequestError("send", [{ field: `attachments.${i}`, message: detail }]);
        }
      });
      const body = checkRequest("send", SendMessageRequest, {
        reference: message.reference,
        to: message.to,
        subject: message.subject,
        text: message.text,
        attachments: attachments.map((a) => ({
          filename: a.filename,
          content_type: a.content_type,
          content_base64: toBase64(a.content),
        })),
      });
      const answer = await http.call("send", "messages", {
        method: "POST",
        headers: { "Content-Type": "application/json", [IDEMPOTENCY_HEADER]: idempotencyKey },
        body: JSON.stringify(body),
      });
      if (!isSuccess(answer.status)) throw http.failure("send", answer);
      const outcome = http.json("send", DeliveryOutcome, answer);
      if (outcome.reference.toLowerCase() !== message.reference.toLowerCase()) {
        throw http.malformed("send", answer, "the outcome of a different message");
      }
      return outcome;
    },

    async query(reference) {
      const answer = await http.call("message_query", messagePath(reference), { method: "GET" });
      if (answer.status === 404) {
        // Only the protocol's own "not found" means "never received": a 404 from a wrong URL or a
        // proxy must not be read as "safe to send again".
        if (http.errorCode(answer) === MESSAGE_NOT_FOUND) return null;
        throw http.malformed(
          "message_query",
          answer,
          `a 404 that is not the protocol's ${MESSAGE_NOT_FOUND}`,
        );
      }
      if (!isSuccess(answer.status)) throw http.failure("message_query", answer);
      const outcome = http.json("message_query", DeliveryOutcome, answer);
      if (outcome.reference.toLowerCase() !== reference.toLowerCase()) {
        throw http.malformed("message_query", answer, "the outcome of a different message");
      }
      return outcome;
    },

    checkCredential: () => http.checkCredential(),
  };
}
