/**
 * The HTTP plumbing every provider client shares (adapter-tax, docsgen, deliver): the bearer key,
 * one timeout per call that covers the answer's body, no redirects, a cap on the answer's size,
 * validation of answers against the protocol's schemas, the credential check, and the API key
 * scrubbed from anything that could reach a message. Failures become typed ProviderErrors through
 * the one factory in ./errors.ts. Nothing here retries.
 */
import type { z } from "zod";
import { readCapped } from "../bytes.ts";
import { deadline } from "./deadline.ts";
import { type ProviderError, type ProviderOperation, type ProviderService, providerError } from "./errors.ts";
import { CredentialCheck, type CredentialVerdict, ProviderErrorBody } from "./protocol.ts";

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

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

/**
 * A request we refused to send because it breaks the protocol (a bug, or data the caller should
 * have checked first, such as a stored e-mail address). Nothing reached the provider.
 */
export class ProviderRequestError extends TypeError {
  override name = "ProviderRequestError";
  readonly operation: ProviderOperation;
  /** One entry per problem: the field path and what is wrong with it. */
  readonly details: { field: string; message: string }[];

  constructor(operation: ProviderOperation, details: { field: string; message: string }[]) {
    super(`invalid ${operation} request: ${details.map((d) => `${d.field}: ${d.message}`).join("; ")}`);
    this.operation = operation;
    this.details = details;
  }
}

/** Validates what we are about to send; the parsed value drops unknown keys (so no stray secrets). */
export function checkRequest<T extends z.ZodType>(
  operation: ProviderOperation,
  schema: T,
  value: unknown,
): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ProviderRequestError(
    operation,
    result.error.issues.map((i) => ({ field: i.path.join(".") || "(body)", message: i.message })),
  );
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  /** At most the call's `maxBytes`; `truncated` says whether more was sent. */
  body: Uint8Array;
  truncated: boolean;
}

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

/** The call's deadline passed before its answer's body was read. */
export class ExchangeTimeout extends Error {
  override name = "ExchangeTimeout";
}

/**
 * One HTTP request and its answer's body, read up to `maxBytes`, all within `timeoutMs`; redirects
 * returned, never followed (an API has no reason to send one, and following it could carry a key
 * elsewhere or reach an internal host the URL policy never checked). Throws ExchangeTimeout when
 * the deadline passes, or what the fetch threw (a lost connection). Every provider client's calls
 * go through it, DIAN's SOAP calls too (shared/fiscal/co/dian/service.ts).
 */
export async function exchange(
  doFetch: FetchLike,
  url: string | URL,
  init: RequestInit,
  limits: { timeoutMs: number; maxBytes: number },
): Promise<RawAnswer> {
  // cleared when the call ends, so that nothing holds the answer afterwards (./deadline.ts)
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

const NOT_JSON = Symbol("not-json");

function parseJson(answer: RawAnswer, reviver: (key: string, value: unknown) => unknown): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(answer.body), reviver);
  } catch {
    return NOT_JSON;
  }
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
