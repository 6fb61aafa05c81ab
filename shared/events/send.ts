/**
 * One attempt to deliver a webhook message: a POST of the signed body with Standard Webhooks'
 * headers, through the same egress as a provider call — the URL policy (https, no userinfo, query or
 * fragment, no private, loopback or link-local host unless local development allows them), the host
 * resolved and every address checked, the connection pinned to a checked address — and bounded the
 * same ways: one timeout over the whole exchange, redirects never followed, at most a few KiB of
 * the answer read (and thrown away). Anything but a 2xx is a failure (spec/standard-webhooks.md,
 * "Delivery success and failure"): 410 Gone says the receiver wants no more; a Retry-After is
 * honoured by the retry's schedule. Nothing the endpoint says is kept: the outcome is in our words.
 */
import { readCapped } from "../kernel/bytes.ts";
import { deadline } from "../kernel/deadline.ts";
import { type Egress, HostResolutionError, reach, UnsafeProviderUrlError } from "../ports/egress/egress.ts";
import { assertProviderUrl } from "../ports/egress/url-policy.ts";

/** A signed message, as sent to every endpoint it goes to. */
export interface WebhookMessage {
  /** `webhook-id`: the event's id (the same on every retry, so a receiver can dedupe), or a ping's. */
  id: string;
  /** `webhook-timestamp`: this attempt's, in seconds. */
  timestamp: number;
  body: string;
  /** `webhook-signature`. */
  signature: string;
}

export interface AttemptResult {
  delivered: boolean;
  status?: number;
  /** What went wrong, for an admin to read. */
  error?: string;
  retry_after_seconds?: number;
  gone?: boolean;
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivateUrls: boolean;
}

/**
 * `User-Agent` of every message: the service by name (a product and a comment, RFC 9110 §10.1.5),
 * not the runtime's default (`Deno/2.x` where the runtime's fetch sends it, none over a pinned connection).
 */
export const WEBHOOK_USER_AGENT = "einvoicing-service (webhooks)";

/** An answer's body is read up to this much, then dropped: a receiver has nothing to tell us. */
const MAX_ANSWER_BYTES = 4096;

export async function sendWebhook(
  egress: Egress,
  url: string,
  message: WebhookMessage,
  options: SendOptions,
): Promise<AttemptResult> {
  const { signal, stop } = deadline(options.timeoutMs);
  try {
    const target = assertProviderUrl(url, { allowPrivate: options.allowPrivateUrls, noun: "webhook" });
    const fetch = await reach(egress, target, {
      allowPrivate: options.allowPrivateUrls,
      timeoutMs: options.timeoutMs,
      noun: "webhook",
    });
    const exchange = (async () => {
      const response = await fetch(target, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": WEBHOOK_USER_AGENT,
          "webhook-id": message.id,
          "webhook-timestamp": String(message.timestamp),
          "webhook-signature": message.signature,
        },
        body: message.body,
        redirect: "manual",
        signal,
      });
      await readCapped(response.body, MAX_ANSWER_BYTES);
      return response;
    })();
    const response = await Promise.race([exchange, aborted(signal)]);
    return outcomeOf(response);
  } catch (error) {
    if (signal.aborted) return { delivered: false, error: `no answer within ${options.timeoutMs} ms` };
    if (error instanceof UnsafeProviderUrlError)
      return { delivered: false, error: `not sent: ${error.message}` };
    if (error instanceof HostResolutionError) return { delivered: false, error: error.message };
    return { delivered: false, error: "the endpoint could not be reached (the connection failed)" };
  } finally {
    stop();
  }
}

function outcomeOf(response: Response): AttemptResult {
  const status = response.status;
  if (status >= 200 && status <= 299) return { delivered: true, status };
  if (status === 410)
    return { delivered: false, status, gone: true, error: "the endpoint answered 410 Gone" };
  const retryAfter = retryAfterSeconds(response.headers.get("retry-after"));
  return {
    delivered: false,
    status,
    error:
      status >= 300 && status <= 399
        ? `the endpoint answered a redirect (HTTP ${status}), which is never followed: save its final url`
        : `the endpoint answered HTTP ${status}`,
    ...(retryAfter === undefined ? {} : { retry_after_seconds: retryAfter }),
  };
}

/** Retry-After as seconds (a number of seconds, or an HTTP date), at most a day; undefined if unusable. */
function retryAfterSeconds(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = /^\d{1,9}$/.test(value.trim())
    ? Number(value.trim())
    : (Date.parse(value) - Date.now()) / 1000;
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(Math.ceil(seconds), 86_400) : undefined;
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}
