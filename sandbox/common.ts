/**
 * What the three sandbox services (adapter-tax, docsgen, deliver) share: the Hono app with its
 * control endpoints (`/_sandbox/knobs`, `/_sandbox/reset`, a log), the protocol gate (the request
 * log, `sk_sandbox_` API keys, the concurrency limit, latency), the credential check, and the way
 * injected faults (./faults.ts) turn a ready answer into a hung, failing or garbled one.
 */

import { type Context, Hono } from "hono";
import { z } from "zod";
import { hexDigest } from "../shared/crypto/digest.ts";
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_SHAPE } from "../shared/ports/providers/protocol.ts";
import {
  createFaults,
  type FaultKind,
  type Faults,
  type FaultTarget,
  type SandboxKnobs,
  SandboxKnobsPatch,
} from "./faults.ts";

/** Options every sandbox service takes. */
export interface SandboxOptions {
  /** Accepted API keys; default: any key starting with "sk_sandbox_". */
  apiKeys?: string[];
  knobs?: SandboxKnobsPatch;
  now?: () => Date;
}

/** Every logged POST (a submit, a message) that reached the sandbox, whatever became of it. */
export interface ReceivedLogEntry {
  received_at: string;
  reference: string | null;
  idempotency_key: string | null;
  result:
    | "processed"
    | "replayed"
    | "duplicate"
    | "invalid"
    | "conflict"
    | "unauthorized"
    | "rate_limited"
    | "unavailable"
    | "abandoned";
  injected?: FaultKind;
}

export type SandboxFetch = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/** The handle every sandbox service has. */
export interface SandboxService {
  /** The fetch handler; also a drop-in `fetch` (relative URLs such as "/_sandbox/knobs" work). */
  fetch: SandboxFetch;
  readonly knobs: SandboxKnobs;
  setKnobs(patch: SandboxKnobsPatch): SandboxKnobs;
  /** Forgets what it holds and its logs, restores the initial knobs, and releases hung answers. */
  reset(): void;
}

export type SandboxEnv = { Variables: { log: ReceivedLogEntry | undefined; signal: AbortSignal } };
export type Ctx = Context<SandboxEnv>;

export interface SandboxBaseSpec {
  /** The operation a failNext rule without `on` applies to. */
  primary: FaultTarget;
  /** The POST path whose every request goes into `received` (e.g. "/documents"). */
  loggedPost?: string;
  /** The control endpoint serving the service's logs, e.g. "/_sandbox/submissions". */
  logsPath: string;
  logs(): unknown;
  /** Forgets the service's own state; the base resets knobs, `received` and hung answers. */
  onReset(): void;
}

export interface SandboxBase {
  /** The app, with control endpoints, the gate and GET /credentials/check; add the protocol routes. */
  app: Hono<SandboxEnv>;
  faults: Faults;
  now: () => Date;
  received: ReceivedLogEntry[];
  /** Sends `respond()` unless `fault` hangs it first or garbles it (with `garbled`, default HTML). */
  withFault(
    c: Ctx,
    fault: FaultKind | undefined,
    respond: () => Response,
    garbled?: () => Response,
  ): Promise<Response>;
  service: SandboxService;
}

/** Whether a request's Idempotency-Key is one the protocol allows (8 to 255 visible characters). */
export function validIdempotencyKey(key: string | null): key is string {
  return key !== null && IDEMPOTENCY_KEY_SHAPE.test(key);
}

export function createSandboxBase(options: SandboxOptions, spec: SandboxBaseSpec): SandboxBase {
  const now = options.now ?? (() => new Date());
  const keyOk = (key: string) =>
    options.apiKeys ? options.apiKeys.includes(key) : key.startsWith("sk_sandbox_") && key.length > 11;
  const faults = createFaults(options.knobs, spec.primary);
  const received: ReceivedLogEntry[] = [];
  let inFlight = 0;
  let resetController = new AbortController();

  const app = new Hono<SandboxEnv>();
  app.notFound((c) => c.json(errorBody("not_found", "No such endpoint."), 404));
  app.onError((error, c) => c.json(errorBody("internal", `Sandbox failure: ${error.message}`), 500));

  // ── control endpoints (no key: the sandbox is a local tool) ──
  app.get(spec.logsPath, (c) => c.json(spec.logs() as object));
  app.get("/_sandbox/knobs", (c) => c.json(faults.knobs));
  app.post("/_sandbox/knobs", async (c) => {
    const patch = SandboxKnobsPatch.safeParse(await c.req.json().catch(() => null));
    if (!patch.success) return c.json(errorBody("validation_failed", z.prettifyError(patch.error)), 400);
    return c.json(faults.set(patch.data));
  });
  app.post("/_sandbox/reset", (c) => {
    reset();
    return c.json({ ok: true });
  });

  // ── the protocol: log, authenticate, limit, wait ──
  app.use("*", async (c, next) => {
    if (c.req.path.startsWith("/_sandbox/")) return next();
    let log: ReceivedLogEntry | undefined;
    if (c.req.method === "POST" && c.req.path === spec.loggedPost) {
      const key = c.req.header(IDEMPOTENCY_HEADER) ?? null;
      log = { received_at: now().toISOString(), reference: null, idempotency_key: key, result: "processed" };
      received.push(log);
    }
    c.set("log", log);
    const token = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
    if (!token || !keyOk(token)) {
      if (log) log.result = "unauthorized";
      return c.json(errorBody("unauthorized", "Invalid or missing API key."), 401);
    }
    if (faults.knobs.concurrencyLimit > 0 && inFlight >= faults.knobs.concurrencyLimit) {
      if (log) log.result = "rate_limited";
      return c.json(errorBody("rate_limited", "Too many requests in flight."), 429, { "Retry-After": "1" });
    }
    inFlight++;
    try {
      const signal = AbortSignal.any([c.req.raw.signal, resetController.signal]);
      c.set("signal", signal);
      if (!(await sleep(faults.knobs.latencyMs, signal))) {
        if (log) log.result = "abandoned";
        return c.json(errorBody("abandoned", "The client went away."), 503);
      }
      await next();
    } finally {
      inFlight--;
    }
  });

  app.get("/credentials/check", async (c) => {
    const fault = faults.draw("check", undefined);
    if (fault === "error" || fault === "rate_limited") return refuse(c, fault);
    return withFault(c, fault, () => c.json({ ok: true, message: "Sandbox API key accepted." }, 200));
  });

  async function withFault(
    c: Ctx,
    fault: FaultKind | undefined,
    respond: () => Response,
    garbled = () => c.body("<html>upstream garbled</html>", 200, { "content-type": "application/json" }),
  ): Promise<Response> {
    if (fault === "hang") await sleep(faults.knobs.hangMs, c.get("signal"));
    return fault === "malformed" ? garbled() : respond();
  }

  function reset(): void {
    resetController.abort();
    resetController = new AbortController();
    faults.reset();
    received.length = 0;
    spec.onReset();
  }

  return {
    app,
    faults,
    now,
    received,
    withFault,
    service: {
      fetch: (input, init) => Promise.resolve(app.fetch(toRequest(input, init))),
      get knobs() {
        return faults.knobs;
      },
      setKnobs: (patch) => faults.set(patch),
      reset,
    },
  };
}

/** The answer to an injected error or rate limit: nothing was processed. */
export function refuse(c: Ctx, fault: "error" | "rate_limited", log?: ReceivedLogEntry): Response {
  if (fault === "rate_limited") {
    if (log) log.result = "rate_limited";
    return c.json(errorBody("rate_limited", "Too many requests."), 429, { "Retry-After": "1" });
  }
  if (log) log.result = "unavailable";
  return c.json(errorBody("unavailable", "The service is not answering; try again later."), 503);
}

/**
 * The intake every idempotent POST shares (a submit, a message): log the reference, let a fault
 * refuse it, then require a body that fits `schema` and a well-formed Idempotency-Key. Returns the
 * answer to send, or the request to process.
 */
export async function readIdempotentPost<T>(
  c: Ctx,
  faults: Faults,
  operation: FaultTarget,
  schema: z.ZodType<T>,
): Promise<
  | { response: Response }
  | { response?: undefined; request: T; key: string; log: ReceivedLogEntry; fault: FaultKind | undefined }
> {
  const log = c.get("log") as ReceivedLogEntry;
  const json: unknown = await c.req.json().catch(() => undefined);
  const reference = (json as { reference?: unknown } | undefined)?.reference;
  log.reference = typeof reference === "string" ? reference : null;
  const fault = faults.draw(operation, log.reference ?? undefined);
  log.injected = fault;
  if (fault === "error" || fault === "rate_limited") return { response: refuse(c, fault, log) };

  log.result = "invalid";
  if (json === undefined)
    return { response: c.json(errorBody("invalid_json", "The body is not JSON."), 400) };
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    return { response: c.json(errorBody("validation_failed", z.prettifyError(parsed.error)), 400) };
  }
  const key = log.idempotency_key;
  if (!validIdempotencyKey(key)) return { response: missingIdempotencyKey(c) };
  return { request: parsed.data, key, log, fault };
}

/** The answer when the Idempotency-Key is missing or malformed. */
export function missingIdempotencyKey(c: Ctx): Response {
  const message = `Send an ${IDEMPOTENCY_HEADER} header of 8 to 255 visible characters.`;
  return c.json(errorBody("idempotency_key_required", message), 400);
}

export function errorBody(code: string, message: string) {
  return { error: { code, message } };
}

/** Hex SHA-256 of a request's canonical JSON: what an idempotency store compares. */
export function fingerprint(value: unknown): Promise<string> {
  return hexDigest("SHA-256", JSON.stringify(value));
}

/** A fetch's arguments as one Request; a path such as "/_sandbox/knobs" resolves to http://sandbox.local. */
export function toRequest(input: Request | string | URL, init?: RequestInit): Request {
  if (input instanceof Request) return new Request(input, init);
  return new Request(
    typeof input === "string" && input.startsWith("/") ? `http://sandbox.local${input}` : input,
    init,
  );
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
