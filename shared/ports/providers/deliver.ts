/**
 * The deliver provider protocol (docs/provider-protocol.md#deliver): send one e-mail with
 * attachments, deduplicated by an Idempotency-Key, and query a message by our reference (how a
 * delivery whose outcome was never recorded is settled without sending it again). Our client (../../providers/deliver/client.ts) and the sandbox
 * (sandbox/deliver.ts) both validate with these schemas. A refused message (bounce, blocked
 * recipient) is an outcome with status `rejected`, not an error.
 */
import { z } from "zod";
import type { CredentialVerdict } from "./protocol.ts";

/** One attachment's decoded size limit, and the limit of all of a message's attachments together. */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
export const MAX_ATTACHMENTS_TOTAL_BYTES = 20 * 1024 * 1024;
export const MAX_ATTACHMENTS = 10;
export const MAX_RECIPIENTS = 50;

/** An e-mail address as the protocol accepts it; use it to check a `to` before sending. */
export const EmailAddress = z.email("expected an e-mail address").max(254);

/** A file name without path separators or control characters. */
const Filename = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^/\\\p{Cc}]+$/u, "expected a file name without / \\ or control characters")
  .refine((name) => name !== "." && name !== "..", "expected a file name");

export const DeliveryAttachment = z.object({
  filename: Filename,
  /** A bare media type, e.g. "application/pdf" (no parameters). */
  content_type: z
    .string()
    .regex(/^[A-Za-z0-9][\w!#$&^.+-]{0,126}\/[A-Za-z0-9][\w!#$&^.+-]{0,126}$/, "expected a media type"),
  content_base64: z
    .base64()
    .refine((b64) => base64Size(b64) <= MAX_ATTACHMENT_BYTES, `at most ${MAX_ATTACHMENT_BYTES} bytes`),
});
export type DeliveryAttachment = z.infer<typeof DeliveryAttachment>;

/** POST /messages body. */
export const SendMessageRequest = z
  .object({
    /** Our delivery id (UUID): the provider's key for the message. */
    reference: z.guid(),
    to: z.array(EmailAddress).min(1).max(MAX_RECIPIENTS),
    /** One line: a CR or LF here would be a header injection. */
    subject: z
      .string()
      .trim()
      .min(1)
      .max(998)
      .regex(/^[^\r\n]*$/, "expected a single line"),
    text: z.string().max(100_000),
    attachments: z.array(DeliveryAttachment).max(MAX_ATTACHMENTS),
  })
  .superRefine((message, ctx) => {
    const total = message.attachments.reduce((n, a) => n + base64Size(a.content_base64), 0);
    if (total > MAX_ATTACHMENTS_TOTAL_BYTES) {
      const text = `at most ${MAX_ATTACHMENTS_TOTAL_BYTES} bytes in all`;
      ctx.addIssue({ code: "custom", path: ["attachments"], message: text });
    }
    const names = message.attachments.map((a) => a.filename);
    if (new Set(names).size !== names.length) {
      ctx.addIssue({ code: "custom", path: ["attachments"], message: "file names must be distinct" });
    }
  });
export type SendMessageRequest = z.infer<typeof SendMessageRequest>;

export const DeliveryStatus = z.enum(["sent", "rejected"]);
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

/** The answer of POST /messages: `sent` (accepted for delivery) or `rejected` (it will not be sent). */
export const DeliveryOutcome = z.object({
  reference: z.guid(),
  provider_reference: z.string().min(1).max(200),
  status: DeliveryStatus,
  message: z.string().max(2000),
});
export type DeliveryOutcome = z.infer<typeof DeliveryOutcome>;

/** The error code of GET /messages/{reference} for a reference the provider never received. */
export const MESSAGE_NOT_FOUND = "message_not_found";

/** The path of a message's query, relative to the base URL. */
export const messagePath = (reference: string) => `messages/${encodeURIComponent(reference)}`;

/** A message as the core hands it over; the client base64-encodes the attachments. */
export interface DeliveryMessage {
  /** Our delivery id (UUID). */
  reference: string;
  to: string[];
  subject: string;
  text: string;
  attachments?: { filename: string; content_type: string; content: Uint8Array }[];
}

/** The port the core uses to e-mail a document through a company's deliver provider. */
export interface DeliveryChannel {
  /**
   * Sends `message` once per idempotency key: calling again with the same key and message (after a
   * timeout, say) is answered from the provider's store and never sends a second e-mail. Throws a
   * ProviderRequestError (nothing sent) for a message that breaks the protocol, a ProviderError
   * when no definite outcome came back (`maybeProcessed`: resend with the same key).
   */
  send(message: DeliveryMessage, options: { idempotencyKey: string }): Promise<DeliveryOutcome>;
  /**
   * The outcome of the message sent under `reference`, or null when the provider never received
   * one (its `message_not_found`; any other 404 is malformed). Throws a ProviderError when it cannot tell.
   */
  query(reference: string): Promise<DeliveryOutcome | null>;
  /** Whether the configured key authenticates; `ok: false` when the provider refuses it. */
  checkCredential(): Promise<CredentialVerdict>;
}

/** The idempotency key of a delivery: one per delivery record, kept across resends of it. */
export function deliveryIdempotencyKey(deliveryId: string): string {
  return `delivery-${deliveryId.toLowerCase()}-send`;
}

/** Decoded size of a valid base64 string. */
export function base64Size(b64: string): number {
  const padding = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  return Math.floor(b64.length / 4) * 3 - padding;
}

const BASE64 = new TextEncoder().encode("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
const PAD = 61; // "="

/** Standard base64 on Deno and Node alike (no Buffer): about 15 ms per MiB. */
export function toBase64(bytes: Uint8Array): string {
  const length = bytes.byteLength;
  const out = new Uint8Array(Math.ceil(length / 3) * 4);
  const at = (i: number) => (i < length ? (bytes[i] as number) : 0);
  const digit = (n: number) => BASE64[n & 63] as number;
  let o = 0;
  for (let i = 0; i < length; i += 3, o += 4) {
    const n = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
    out[o] = digit(n >>> 18);
    out[o + 1] = digit(n >>> 12);
    out[o + 2] = i + 1 < length ? digit(n >>> 6) : PAD;
    out[o + 3] = i + 2 < length ? digit(n) : PAD;
  }
  return new TextDecoder().decode(out);
}

export function fromBase64(b64: string): Uint8Array {
  const binary = atob(b64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
