/**
 * One HTTP exchange leaving the service, as every outgoing call makes it (the protocol providers,
 * DIAN's SOAP calls, webhook messages): one timeout that covers the answer's body, no redirects
 * followed, the answer's body capped. The fetch it is given is the egress's (./egress.ts): resolved,
 * checked and pinned before this runs.
 */
import { readCapped } from "../../kernel/bytes.ts";
import { deadline } from "../../kernel/deadline.ts";

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface RawAnswer {
  status: number;
  headers: Headers;
  /** At most the call's `maxBytes`; `truncated` says whether more was sent. */
  body: Uint8Array;
  truncated: boolean;
}

/** The call's deadline passed before its answer's body was read. */
export class ExchangeTimeout extends Error {
  override name = "ExchangeTimeout";
}

/**
 * One HTTP request and its answer's body, read up to `maxBytes`, all within `timeoutMs`; redirects
 * returned, never followed (an API has no reason to send one, and following it could carry a key
 * elsewhere or reach an internal host the URL policy never checked). Throws ExchangeTimeout when
 * the deadline passes, or what the fetch threw (a lost connection). Every provider client's calls
 * go through it, DIAN's SOAP calls too (shared/providers/dian/service.ts).
 */
export async function exchange(
  doFetch: FetchLike,
  url: string | URL,
  init: RequestInit,
  limits: { timeoutMs: number; maxBytes: number },
): Promise<RawAnswer> {
  // cleared when the call ends, so that nothing holds the answer afterwards (../../kernel/deadline.ts)
  const { signal, stop } = deadline(limits.timeoutMs);
  try {
    // Raced against the signal too, so a fetch that ignores it (an in-process handler) still times out.
    return await Promise.race([
      (async () => {
        const response = await doFetch(url, { ...init, signal, redirect: "manual" });
        return {
          status: response.status,
          headers: response.headers,
          ...(await readAnswer(response, limits.maxBytes)),
        };
      })(),
      aborted(signal),
    ]);
  } catch (error) {
    if (signal.aborted) throw new ExchangeTimeout("the call's deadline passed");
    throw error;
  } finally {
    stop();
  }
}

export function isSuccess(status: number): boolean {
  return status >= 200 && status <= 299;
}

/** The answer's body, capped: refused unread when its declared length is already over the cap. */
async function readAnswer(
  response: Response,
  max: number,
): Promise<{ body: Uint8Array; truncated: boolean }> {
  if (response.body && Number(response.headers.get("content-length") ?? 0) > max) {
    void response.body.cancel().catch(() => {});
    return { body: new Uint8Array(0), truncated: true };
  }
  const { bytes, truncated } = await readCapped(response.body, max);
  return { body: bytes, truncated };
}

/** Rejects when `signal` aborts (it cannot have yet: its timer fires only once the event loop turns). */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}
