/**
 * HTTP client for an adapter-tax provider (docs/provider-protocol.md). Each call has its own
 * timeout, every answer is validated, and every failure is a typed ProviderError whose message
 * never contains the API key. It never retries: whether and when to resend is the core's decision,
 * and after an unknown outcome the answer is `resolveUnknown`, not a resend.
 */
import type { z } from "zod";
import { type ProviderOperation, providerError } from "./errors.ts";
import {
  CredentialCheck,
  DocumentOutcome,
  IDEMPOTENCY_HEADER,
  idempotencyKey,
  ProviderErrorBody,
  type SubmitDocumentRequest,
  type TaxAdapter,
} from "./protocol.ts";

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface TaxClientOptions {
  /** The credential's url, e.g. "https://provider.example/v1" (no trailing path needed). */
  baseUrl: string;
  apiKey: string;
  /** Per-call budget, covering the answer's body too. */
  timeoutMs: number;
  /** Defaults to the global fetch; tests pass the sandbox's or msw's. */
  fetch?: FetchLike;
}

const MAX_PROVIDER_MESSAGE = 300;

/** Builds the TaxAdapter that talks to one provider with one credential. */
export function createTaxClient(options: TaxClientOptions): TaxAdapter {
  const { apiKey, timeoutMs } = options;
  if (!apiKey) throw new TypeError("createTaxClient: apiKey is required");
  if (!(timeoutMs > 0)) throw new TypeError("createTaxClient: timeoutMs must be positive");
  const base = options.baseUrl.endsWith("/") ? options.baseUrl : `${options.baseUrl}/`;
  const doFetch: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  /** Provider-supplied text may echo what we sent; the key must not travel on in a message. */
  const clean = (message: string) => scrub(message, apiKey).slice(0, MAX_PROVIDER_MESSAGE);

  async function call(operation: ProviderOperation, path: string, init: RequestInit): Promise<RawAnswer> {
    const signal = AbortSignal.timeout(timeoutMs);
    const headers = new Headers(init.headers);
    headers.set("Authorization", `Bearer ${apiKey}`);
    headers.set("Accept", "application/json");
    try {
      // Raced against the signal too, so a fetch that ignores it (an in-process handler) still times out.
      return await Promise.race([
        (async () => {
          // No redirects: a provider API has no reason to send one, and following it could carry
          // the key elsewhere or reach an internal host the URL policy never checked.
          const response = await doFetch(new URL(path, base), {
            ...init,
            headers,
            signal,
            redirect: "manual",
          });
          return { status: response.status, headers: response.headers, text: await response.text() };
        })(),
        aborted(signal),
      ]);
    } catch (error) {
      if (signal.aborted) throw providerError({ type: "timeout", operation, timeoutMs });
      throw providerError({ type: "network", operation, cause: scrubError(error, apiKey) });
    }
  }

  function failure(operation: ProviderOperation, answer: RawAnswer): Error {
    const body = ProviderErrorBody.safeParse(parseJson(answer.text));
    return providerError({
      type: "response",
      operation,
      status: answer.status,
      providerCode: body.success ? body.data.error.code : undefined,
      providerMessage: body.success ? clean(body.data.error.message) : undefined,
      retryAfter: answer.headers.get("retry-after"),
    });
  }

  function parse<T extends z.ZodType>(
    operation: ProviderOperation,
    schema: T,
    answer: RawAnswer,
  ): z.infer<T> {
    const json = parseJson(answer.text);
    if (json === NOT_JSON) {
      throw providerError({
        type: "malformed",
        operation,
        status: answer.status,
        problem: "a body that is not JSON",
      });
    }
    const result = schema.safeParse(json);
    if (!result.success) {
      const issue = result.error.issues[0];
      const where = issue?.path.length ? issue.path.join(".") : "(body)";
      throw providerError({
        type: "malformed",
        operation,
        status: answer.status,
        problem: `a body that does not follow the protocol (${where}: ${clean(issue?.message ?? "invalid")})`,
      });
    }
    return result.data;
  }

  /** A valid outcome for another document is as unusable as garbage (and must not be recorded). */
  function outcomeFor(operation: ProviderOperation, answer: RawAnswer, reference: string): DocumentOutcome {
    const outcome = parse(operation, DocumentOutcome, answer);
    if (outcome.reference.toLowerCase() !== reference.toLowerCase()) {
      const problem = "the outcome of a different document";
      throw providerError({ type: "malformed", operation, status: answer.status, problem });
    }
    return outcome;
  }

  return {
    async submit(document: SubmitDocumentRequest, submitOptions = {}) {
      const answer = await call("submit", "documents", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          [IDEMPOTENCY_HEADER]: idempotencyKey(document.reference, submitOptions.attempt ?? 1),
        },
        body: JSON.stringify(document),
      });
      if (!isSuccess(answer.status)) throw failure("submit", answer);
      return outcomeFor("submit", answer, document.reference);
    },

    async query(reference: string) {
      const answer = await call("query", `documents/${encodeURIComponent(reference)}`, { method: "GET" });
      if (answer.status === 404) {
        // Only the protocol's own "not found" means "never received": a 404 from a wrong URL or a
        // proxy must not be read as "safe to send", or a document could be sent twice.
        const body = ProviderErrorBody.safeParse(parseJson(answer.text));
        if (body.success && body.data.error.code === "document_not_found") return null;
        throw providerError({
          type: "malformed",
          operation: "query",
          status: 404,
          problem: "a 404 that is not the protocol's document_not_found",
        });
      }
      if (!isSuccess(answer.status)) throw failure("query", answer);
      return outcomeFor("query", answer, reference);
    },

    async checkCredential() {
      const answer = await call("check_credential", "credentials/check", { method: "GET" });
      if (answer.status === 401 || answer.status === 403) {
        const body = ProviderErrorBody.safeParse(parseJson(answer.text));
        const detail = body.success ? clean(body.data.error.message) : "";
        return {
          ok: false,
          message: `The provider rejected the API key (HTTP ${answer.status})${detail ? `: ${detail}` : "."}`,
        };
      }
      if (!isSuccess(answer.status)) throw failure("check_credential", answer);
      const check = parse("check_credential", CredentialCheck, answer);
      return { ok: check.ok, message: clean(check.message) };
    },
  };
}

/**
 * Resolves an unknown submit outcome (timeout, lost connection, 5xx, garbage) by asking the provider.
 * Returns the provider's outcome, or null when the provider never received the document: only then
 * is it safe to send again, with the same attempt (same idempotency key). Throws a ProviderError if
 * the query itself fails, in which case the outcome stays unknown.
 */
export function resolveUnknown(adapter: TaxAdapter, reference: string): Promise<DocumentOutcome | null> {
  return adapter.query(reference);
}

interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
}

const NOT_JSON = Symbol("not-json");

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

function isSuccess(status: number): boolean {
  return status >= 200 && status <= 299;
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

function scrub(text: string, secret: string): string {
  return secret ? text.split(secret).join("[redacted]") : text;
}

/** A network error's message may quote a URL or header; keep its name and a scrubbed message only. */
function scrubError(error: unknown, secret: string): Error {
  if (!(error instanceof Error)) return new Error("network error");
  const copy = new Error(scrub(error.message, secret));
  copy.name = error.name;
  return copy;
}
