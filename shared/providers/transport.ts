/**
 * The HTTP plumbing every provider client shares (adapter-tax, docsgen, deliver): the bearer key,
 * one timeout per call that covers the answer's body, no redirects, a cap on the answer's size,
 * validation of answers against the protocol's schemas, the credential check, and the API key
 * scrubbed from anything that could reach a message. Failures become typed ProviderErrors through
 * the one factory in ../ports/providers/errors.ts; the exchange itself is ../ports/egress/exchange.ts.
 * Nothing here retries.
 */
import type { z } from "zod";
import {
  ExchangeTimeout,
  exchange,
  type FetchLike,
  isSuccess,
  type RawAnswer,
} from "../ports/egress/exchange.ts";
import {
  type ProviderError,
  type ProviderOperation,
  type ProviderService,
  providerError,
} from "../ports/providers/errors.ts";
import { CredentialCheck, type CredentialVerdict, ProviderErrorBody } from "../ports/providers/protocol.ts";

/** What every provider client is built from: one company credential. */
export interface ProviderClientOptions {
  /** The credential's url, e.g. "https://provider.example/v1" (no trailing path needed). */
  baseUrl: string;
  apiKey: string;
  /** Per-call budget, covering the answer's body too. */
  timeoutMs: number;
  /** Defaults to the global fetch; tests pass the sandbox's or msw's. */
  fetch?: FetchLike;
}

/** A JSON answer larger than this is malformed (a protocol answer is a few kilobytes). */
export const MAX_JSON_ANSWER_BYTES = 1024 * 1024;

export interface CallInit extends RequestInit {
  /** The Accept header; default application/json. */
  accept?: string;
  /** Cap on the answer's body; default MAX_JSON_ANSWER_BYTES. */
  maxBytes?: number;
}

export interface ProviderTransport {
  call(operation: ProviderOperation, path: string, init: CallInit): Promise<RawAnswer>;
  /** The typed error for a non-2xx answer. */
  failure(operation: ProviderOperation, answer: RawAnswer): ProviderError;
  malformed(operation: ProviderOperation, answer: RawAnswer, problem: string): ProviderError;
  /** A 2xx JSON answer validated against `schema`, or a malformed error naming the first bad field. */
  json<T extends z.ZodType>(operation: ProviderOperation, schema: T, answer: RawAnswer): z.infer<T>;
  /** The provider's `error.code` of a non-2xx answer, when the body has the protocol's shape. */
  errorCode(answer: RawAnswer): string | undefined;
  /** GET credentials/check: `ok: false` for 401/403, a typed error for any other failure. */
  checkCredential(): Promise<CredentialVerdict>;
  /** Provider-supplied text, scrubbed of the key and truncated, fit for a message. */
  clean(message: string): string;
}

const MAX_PROVIDER_MESSAGE = 300;

export function createProviderTransport(
  service: ProviderService,
  client: string,
  options: ProviderClientOptions,
): ProviderTransport {
  const { apiKey, timeoutMs } = options;
  if (!apiKey) throw new TypeError(`${client}: apiKey is required`);
  if (!(timeoutMs > 0)) throw new TypeError(`${client}: timeoutMs must be positive`);
  const base = options.baseUrl.endsWith("/") ? options.baseUrl : `${options.baseUrl}/`;
  const doFetch: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  /** Provider-supplied text may echo what we sent; the key must not travel on in a message. */
  const clean = (message: string) => scrub(message, apiKey).slice(0, MAX_PROVIDER_MESSAGE);
  /**
   * An answer's JSON with the key cut out of every string, whatever the status: a provider may echo
   * what we sent in any field, and outcomes are stored, answered and read by lectores. NULs go
   * first (they are dropped before storing anyway, and must not split a key past the scrub). The
   * scrub runs inside the parse, so an answer too deep to walk is one that is not JSON.
   */
  const parse = (answer: RawAnswer) =>
    parseJson(answer, (_key, value) =>
      typeof value === "string" ? scrub(value.replaceAll("\0", ""), apiKey) : value,
    );
  const errorBody = (answer: RawAnswer) => {
    const body = ProviderErrorBody.safeParse(parse(answer));
    return body.success ? body.data.error : undefined;
  };

  async function call(operation: ProviderOperation, path: string, init: CallInit): Promise<RawAnswer> {
    const { accept = "application/json", maxBytes = MAX_JSON_ANSWER_BYTES, ...requestInit } = init;
    const headers = new Headers(requestInit.headers);
    headers.set("Authorization", `Bearer ${apiKey}`);
    headers.set("Accept", accept);
    try {
      return await exchange(
        doFetch,
        new URL(path, base),
        { ...requestInit, headers },
        { timeoutMs, maxBytes },
      );
    } catch (error) {
      if (error instanceof ExchangeTimeout)
        throw providerError({ type: "timeout", service, operation, timeoutMs });
      throw providerError({ type: "network", service, operation, cause: scrubError(error, apiKey) });
    }
  }

  function malformed(operation: ProviderOperation, answer: RawAnswer, problem: string): ProviderError {
    return providerError({ type: "malformed", service, operation, status: answer.status, problem });
  }

  function failure(operation: ProviderOperation, answer: RawAnswer): ProviderError {
    const body = errorBody(answer);
    return providerError({
      type: "response",
      service,
      operation,
      status: answer.status,
      providerCode: body?.code,
      providerMessage: body ? clean(body.message) : undefined,
      retryAfter: answer.headers.get("retry-after"),
    });
  }

  function json<T extends z.ZodType>(operation: ProviderOperation, schema: T, answer: RawAnswer): z.infer<T> {
    if (answer.truncated) return malformedThrow(operation, answer, "a body larger than expected");
    const parsed = parse(answer);
    if (parsed === NOT_JSON) return malformedThrow(operation, answer, "a body that is not JSON");
    const result = schema.safeParse(parsed);
    if (!result.success) {
      const issue = result.error.issues[0];
      const where = issue?.path.length ? issue.path.join(".") : "(body)";
      const problem = `a body that does not follow the protocol (${where}: ${clean(issue?.message ?? "invalid")})`;
      return malformedThrow(operation, answer, problem);
    }
    return result.data;
  }

  function malformedThrow(operation: ProviderOperation, answer: RawAnswer, problem: string): never {
    throw malformed(operation, answer, problem);
  }

  return {
    call,
    failure,
    malformed,
    json,
    errorCode: (answer) => errorBody(answer)?.code,
    clean,
    async checkCredential() {
      const answer = await call("check_credential", "credentials/check", { method: "GET" });
      if (answer.status === 401 || answer.status === 403) {
        const detail = clean(errorBody(answer)?.message ?? "");
        return {
          ok: false,
          message: `The provider rejected the API key (HTTP ${answer.status}).`,
          ...(detail ? { providerMessage: detail } : {}),
        };
      }
      if (!isSuccess(answer.status)) throw failure("check_credential", answer);
      const check = json("check_credential", CredentialCheck, answer);
      const words = clean(check.message);
      return {
        ok: check.ok,
        message: check.ok ? "The provider accepted the API key." : "The provider refused the API key.",
        ...(words ? { providerMessage: words } : {}),
      };
    },
  };
}

const NOT_JSON = Symbol("not-json");

function parseJson(answer: RawAnswer, reviver: (key: string, value: unknown) => unknown): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(answer.body), reviver);
  } catch {
    return NOT_JSON;
  }
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
