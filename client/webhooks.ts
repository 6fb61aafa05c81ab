/**
 * `verifyWebhook(secret, body, headers)`: a webhook message's signature checked as Standard Webhooks
 * says (standard-webhooks/standard-webhooks at b2fa7b8719fb75d326b591077f5d1b385cfcdfae,
 * spec/standard-webhooks.md "Signature scheme", "Webhook headers", "Verifying signatures", and its
 * reference receiver libraries/javascript/src/index.ts `Webhook.verify`): the three `webhook-*`
 * headers required; the attempt's timestamp within 5 minutes either way of now (the library's
 * `WEBHOOK_TOLERANCE_IN_SECONDS`); an HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`,
 * keyed with the `whsec_` secret's base64-decoded bytes, matching any `v1,` signature of the
 * space-separated header (the sender signs with the old secret too while it rotates; a receiver that
 * keeps both may pass both). Web Crypto only, compared by `crypto.subtle.verify` (constant time):
 * runs in browsers, Deno and Node 20 with no dependency.
 *
 *   const event = await verifyWebhook(process.env.WEBHOOK_SECRET, rawBody, request.headers);
 *   if (event.type === "invoice.transmitida") await refetch(event.data.document_id);
 *
 * Pass the body exactly as it arrived (a string or its bytes): parsing and serialising it again
 * changes the bytes and the signature no longer matches.
 */
import type { webhooks } from "./openapi.ts";

/** The message: `{ type, timestamp, data }`, `data` the event (as Realtime's: `DocumentStatusEvent`). */
export type WebhookEvent = webhooks["documentStatus"]["post"]["requestBody"]["content"]["application/json"];

/** Why a message was refused. */
export type WebhookRefusal =
  | "missing_headers"
  | "invalid_timestamp"
  | "timestamp_too_old"
  | "timestamp_too_new"
  | "no_matching_signature"
  | "body_too_large"
  | "invalid_body";

export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  readonly reason: WebhookRefusal;
  constructor(reason: WebhookRefusal, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** Fetch's `Headers`, or a plain object such as Node's `request.headers`. */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Record<string, string | readonly string[] | undefined>;

export interface VerifyWebhookOptions {
  /** Seconds a timestamp may be from now, either way (Standard Webhooks' reference: 300). */
  toleranceSeconds?: number;
  /** The largest body checked (the service's messages are under 1 KiB); a larger one is refused unread. */
  maxBodyBytes?: number;
  /** Now, in milliseconds (tests). */
  now?: () => number;
}

const PREFIX = "whsec_";
const TOLERANCE_SECONDS = 5 * 60;
const MAX_BODY_BYTES = 64 * 1024;
/** At most this many signatures are tried (a sender signs with one or two secrets). */
const MAX_SIGNATURES = 10;
const MAX_HEADER_LENGTH = 4096;

/**
 * The message, if `body` is signed with `secret` (or one of `secrets`, while you rotate) and recent;
 * otherwise throws a WebhookVerificationError saying why. A secret that is not `whsec_` + base64
 * is a TypeError.
 */
export async function verifyWebhook(
  secret: string | readonly string[],
  body: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const keys = await Promise.all((typeof secret === "string" ? [secret] : [...secret]).map(importSecret));
  if (keys.length === 0) throw new TypeError("verifyWebhook needs a secret");
  const id = header(headers, "webhook-id");
  const timestampText = header(headers, "webhook-timestamp");
  const signatureText = header(headers, "webhook-signature");
  if (!id || !timestampText || !signatureText) {
    throw new WebhookVerificationError(
      "missing_headers",
      "The webhook-id, webhook-timestamp and webhook-signature headers are required.",
    );
  }
  if ([id, timestampText, signatureText].some((value) => value.length > MAX_HEADER_LENGTH)) {
    throw new WebhookVerificationError(
      "missing_headers",
      "A webhook header is longer than any the service sends.",
    );
  }
  const timestamp = Number.parseInt(timestampText, 10);
  if (Number.isNaN(timestamp)) {
    throw new WebhookVerificationError(
      "invalid_timestamp",
      "The webhook-timestamp header is not a number of seconds.",
    );
  }
  const now = Math.floor((options.now?.() ?? Date.now()) / 1000);
  const tolerance = options.toleranceSeconds ?? TOLERANCE_SECONDS;
  if (now - timestamp > tolerance) {
    throw new WebhookVerificationError("timestamp_too_old", "The message is too old (a replay?).");
  }
  if (timestamp > now + tolerance) {
    throw new WebhookVerificationError("timestamp_too_new", "The message's timestamp is in the future.");
  }
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : new Uint8Array(body);
  if (bytes.byteLength > (options.maxBodyBytes ?? MAX_BODY_BYTES)) {
    throw new WebhookVerificationError(
      "body_too_large",
      "The body is larger than any message the service sends.",
    );
  }
  const prefix = new TextEncoder().encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.byteLength + bytes.byteLength);
  signed.set(prefix);
  signed.set(bytes, prefix.byteLength);
  const candidates = signatureText
    .split(" ")
    .slice(0, MAX_SIGNATURES)
    .map((entry) => entry.split(","))
    .filter(([version]) => version === "v1")
    .map(([, value]) => fromBase64(value ?? ""))
    .filter((value): value is Uint8Array<ArrayBuffer> => value !== undefined);
  for (const key of keys) {
    for (const candidate of candidates) {
      if (await crypto.subtle.verify("HMAC", key, candidate, signed)) return parse(bytes);
    }
  }
  throw new WebhookVerificationError(
    "no_matching_signature",
    "No signature of the message matches the secret.",
  );
}

function parse(bytes: Uint8Array): WebhookEvent {
  let message: unknown;
  try {
    message = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new WebhookVerificationError("invalid_body", "The signed body is not JSON.");
  }
  const m = message as Partial<WebhookEvent> | null;
  if (typeof m?.type !== "string" || typeof m.timestamp !== "string" || typeof m.data?.id !== "string") {
    throw new WebhookVerificationError(
      "invalid_body",
      "The signed body is not a webhook message of this service.",
    );
  }
  return m as WebhookEvent;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === "function")
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const plain = headers as Record<string, string | readonly string[] | undefined>;
  const key = Object.keys(plain).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : plain[key];
  return typeof value === "string" ? value : value?.[0];
}

async function importSecret(secret: string): Promise<CryptoKey> {
  const bytes = fromBase64(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret);
  if (!bytes || bytes.byteLength === 0) throw new TypeError("a webhook secret is whsec_ followed by base64");
  return crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}
