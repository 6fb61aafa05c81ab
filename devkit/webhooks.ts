/**
 * Webhooks in tests, the bench and the local run: an endpoint of an organization made directly in
 * the database (with its secret sealed as the service seals it), and a receiver standing in for a
 * customer's server — a fetch handler (Request → Response) that records every message it gets,
 * with knobs for the ways a real one misbehaves: down, slow, an error status, 410 Gone, a redirect,
 * a huge answer. It checks nothing itself: the tests verify what it recorded with the
 * `standardwebhooks` package, the reference implementation.
 */

import type { SecretBox } from "../shared/crypto/secret-box.ts";
import { newWebhookSecret, webhookSecretIdentity } from "../shared/events/signature.ts";
import type { TestDatabase } from "./database.ts";

/** An endpoint of `orgId` at `url`, enabled, every event type unless `events` says; and its secret. */
export async function createWebhookEndpoint(
  db: Pick<TestDatabase, "superuser">,
  secretBox: SecretBox,
  orgId: string,
  url: string,
  options: { events?: string[] } = {},
): Promise<{ id: string; secret: string }> {
  const id = crypto.randomUUID();
  const secret = newWebhookSecret();
  const sealed = await secretBox.seal(secret, webhookSecretIdentity(orgId, id));
  await db.superuser(
    `insert into public.webhook_endpoints (id, org_id, url, events, secret_ciphertext, secret_key_id)
     values ($1, $2, $3, case when $4::text is null then null
                              else array(select jsonb_array_elements_text($4::text::jsonb)) end, $5, $6)`,
    [id, orgId, url, options.events ? JSON.stringify(options.events) : null, sealed, secretBox.keyId],
  );
  return { id, secret };
}

/** One message as the receiver got it: the headers Standard Webhooks defines, and the raw body. */
export interface ReceivedMessage {
  url: string;
  id: string;
  timestamp: string;
  signature: string;
  /** `User-Agent`, or null when none was sent. */
  userAgent: string | null;
  body: string;
  /** The status the receiver answered with. */
  answered: number;
}

/** What the receiver does with the next messages (each knob applies until it is changed). */
export interface ReceiverKnobs {
  /** Answer with this status (default 204). */
  status?: number;
  /** Throw as a refused connection would, before reading anything: the endpoint is down. */
  down?: boolean;
  /** Wait this long before answering (the sender's timeout may end it first). */
  delayMs?: number;
  /** Sent with the status (e.g. `location` for a redirect, `retry-after`). */
  headers?: Record<string, string>;
  /** Answer with this many bytes of body. */
  bodyBytes?: number;
}

export interface WebhookReceiver {
  /** The handler: give it to the app as its provider fetch (or route to it from one). */
  fetch(request: Request): Promise<Response>;
  received: ReceivedMessage[];
  /** Messages that reached the receiver, answered or not (a slow one counts when it arrives). */
  arrivals: number;
  set(knobs: ReceiverKnobs): void;
  reset(): void;
}

export function createWebhookReceiver(): WebhookReceiver {
  let knobs: ReceiverKnobs = {};
  const receiver: WebhookReceiver = {
    received: [],
    arrivals: 0,
    set(next) {
      knobs = next;
    },
    reset() {
      knobs = {};
      receiver.received.length = 0;
      receiver.arrivals = 0;
    },
    async fetch(request) {
      const now = knobs;
      if (now.down) {
        throw new TypeError("fetch failed", {
          cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
        });
      }
      receiver.arrivals++;
      const body = await request.text();
      if (now.delayMs) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, now.delayMs);
          request.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(request.signal.reason);
          });
        });
      }
      const status = now.status ?? 204;
      receiver.received.push({
        url: request.url,
        id: request.headers.get("webhook-id") ?? "",
        timestamp: request.headers.get("webhook-timestamp") ?? "",
        signature: request.headers.get("webhook-signature") ?? "",
        userAgent: request.headers.get("user-agent"),
        body,
        answered: status,
      });
      return new Response(status === 204 || status === 304 ? null : bodyOf(now.bodyBytes), {
        status,
        headers: now.headers ?? {},
      });
    },
  };
  return receiver;
}

/**
 * `bytes` of body made as they are read, 64 KiB at a time, as a hostile endpoint streams them: a
 * sender that stops reading costs the receiver nothing more (building 20 MiB up front took longer
 * than the sender's whole timeout on a loaded machine).
 */
function bodyOf(bytes: number | undefined): ReadableStream<Uint8Array> | null {
  if (!bytes) return null;
  const chunk = new Uint8Array(64 * 1024).fill(0x78);
  let left = bytes;
  return new ReadableStream({
    pull(controller) {
      if (left <= 0) return controller.close();
      const size = Math.min(left, chunk.length);
      left -= size;
      controller.enqueue(chunk.subarray(0, size));
    },
  });
}
