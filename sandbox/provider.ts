/**
 * The sandbox adapter-tax provider (docs/sandbox.md): the provider protocol as a Hono fetch handler,
 * usable in-process (tests, the local server) or behind sandbox/server.ts. Its authority judges
 * documents by ./rules.ts and keeps its books in ./ledger.ts; ./faults.ts makes it slow, busy, hung,
 * failing or garbled on demand. Nothing here is meant for production.
 */
import { type Context, Hono } from "hono";
import { z } from "zod";
import {
  type DocumentOutcome,
  IDEMPOTENCY_HEADER,
  REPLAYED_HEADER,
  SubmitDocumentRequest,
} from "../shared/providers/protocol.ts";
import { createFaults, type FaultKind, type SandboxKnobs, SandboxKnobsPatch } from "./faults.ts";
import { createLedger, type SubmissionLogEntry } from "./ledger.ts";

export { DEFAULT_KNOBS, type FailRule, type SandboxKnobs, type SandboxKnobsPatch } from "./faults.ts";
export type { SubmissionLogEntry } from "./ledger.ts";

/** Every POST /documents that reached the sandbox, whatever became of it. */
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

export interface SandboxOptions {
  /** Accepted API keys; default: any key starting with "sk_sandbox_". */
  apiKeys?: string[];
  knobs?: SandboxKnobsPatch;
  now?: () => Date;
}

export interface SandboxProvider {
  /** The fetch handler; also a drop-in `fetch` (relative URLs such as "/_sandbox/knobs" work). */
  fetch(input: Request | string | URL, init?: RequestInit): Promise<Response>;
  /** Each document taken into processing, in order (copies). */
  readonly submissions: readonly SubmissionLogEntry[];
  /** Each POST /documents received, including replays and refused ones (copies). */
  readonly received: readonly ReceivedLogEntry[];
  /** Current outcome per reference. */
  readonly documents: ReadonlyMap<string, DocumentOutcome>;
  readonly knobs: SandboxKnobs;
  setKnobs(patch: SandboxKnobsPatch): SandboxKnobs;
  /** Forgets documents and logs, restores the initial knobs, and releases hung answers. */
  reset(): void;
}

type SandboxEnv = { Variables: { log: ReceivedLogEntry | undefined; signal: AbortSignal } };
type Ctx = Context<SandboxEnv>;

const KEY_SHAPE = /^[\x21-\x7e]{8,255}$/;

export function createSandboxProvider(options: SandboxOptions = {}): SandboxProvider {
  const now = options.now ?? (() => new Date());
  const keyOk = (key: string) =>
    options.apiKeys ? options.apiKeys.includes(key) : key.startsWith("sk_sandbox_") && key.length > 11;
  const faults = createFaults(options.knobs);
  const ledger = createLedger(now);
  const received: ReceivedLogEntry[] = [];
  let inFlight = 0;
  let resetController = new AbortController();

  /** Applies a hang or a garble to an answer that is otherwise ready. */
  async function deliver(c: Ctx, fault: FaultKind | undefined, respond: () => Response): Promise<Response> {
    if (fault === "hang") await sleep(faults.knobs.hangMs, c.get("signal"));
    if (fault === "malformed") {
      return c.body("<html>upstream garbled</html>", 200, { "content-type": "application/json" });
    }
    return respond();
  }

  const app = new Hono<SandboxEnv>();
  app.notFound((c) => c.json(errorBody("not_found", "No such endpoint."), 404));
  app.onError((error, c) => c.json(errorBody("internal", `Sandbox failure: ${error.message}`), 500));

  // ── control endpoints (no key: the sandbox is a local tool) ──
  app.get("/_sandbox/submissions", (c) => c.json({ submissions: ledger.submissions, received }));
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
    if (c.req.method === "POST" && c.req.path === "/documents") {
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

  app.post("/documents", async (c) => {
    const log = c.get("log") as ReceivedLogEntry;
    const json: unknown = await c.req.json().catch(() => undefined);
    const reference = (json as { reference?: unknown } | undefined)?.reference;
    log.reference = typeof reference === "string" ? reference : null;
    const fault = faults.draw("submit", log.reference ?? undefined);
    log.injected = fault;
    if (fault === "error" || fault === "rate_limited") return refuse(c, fault, log);

    log.result = "invalid";
    if (json === undefined) return c.json(errorBody("invalid_json", "The body is not JSON."), 400);
    const parsed = SubmitDocumentRequest.safeParse(json);
    if (!parsed.success) return c.json(errorBody("validation_failed", z.prettifyError(parsed.error)), 400);
    const key = log.idempotency_key;
    if (!key || !KEY_SHAPE.test(key)) {
      const message = `Send an ${IDEMPOTENCY_HEADER} header of 8 to 255 visible characters.`;
      return c.json(errorBody("idempotency_key_required", message), 400);
    }

    const result = await ledger.submit(parsed.data, key, faults.knobs.pendingPolls);
    log.result = result.kind;
    if (result.kind === "conflict") {
      const message = "This idempotency key was already used with a different document.";
      return c.json(errorBody("idempotency_conflict", message), 409);
    }
    const { outcome } = result;
    if (result.kind === "replayed") {
      return deliver(c, fault, () => c.json(outcome, 200, { [REPLAYED_HEADER]: "true" }));
    }
    return deliver(c, fault, () => c.json(outcome, result.kind === "processed" ? 201 : 200));
  });

  app.get("/documents/:reference", async (c) => {
    const reference = c.req.param("reference");
    const fault = faults.draw("query", reference);
    if (fault === "error" || fault === "rate_limited") return refuse(c, fault);
    const outcome = await ledger.query(reference);
    return deliver(c, fault, () =>
      outcome
        ? c.json(outcome, 200)
        : c.json(errorBody("document_not_found", `No document with reference ${reference}.`), 404),
    );
  });

  app.get("/credentials/check", async (c) => {
    const fault = faults.draw("check", undefined);
    if (fault === "error" || fault === "rate_limited") return refuse(c, fault);
    return deliver(c, fault, () => c.json({ ok: true, message: "Sandbox API key accepted." }, 200));
  });

  function reset(): void {
    resetController.abort();
    resetController = new AbortController();
    faults.reset();
    ledger.clear();
    received.length = 0;
  }

  return {
    fetch(input, init) {
      const request = input instanceof Request ? new Request(input, init) : new Request(toUrl(input), init);
      return Promise.resolve(app.fetch(request));
    },
    get submissions() {
      return ledger.submissions.map((entry) => ({ ...entry }));
    },
    get received() {
      return received.map((entry) => ({ ...entry }));
    },
    get documents() {
      return ledger.documents;
    },
    get knobs() {
      return faults.knobs;
    },
    setKnobs: (patch) => faults.set(patch),
    reset,
  };
}

function refuse(c: Ctx, fault: "error" | "rate_limited", log?: ReceivedLogEntry): Response {
  if (fault === "rate_limited") {
    if (log) log.result = "rate_limited";
    return c.json(errorBody("rate_limited", "Too many requests."), 429, { "Retry-After": "1" });
  }
  if (log) log.result = "unavailable";
  return c.json(errorBody("unavailable", "The authority is not answering; try again later."), 503);
}

function errorBody(code: string, message: string) {
  return { error: { code, message } };
}

function toUrl(input: string | URL): string | URL {
  return typeof input === "string" && input.startsWith("/") ? `http://sandbox.local${input}` : input;
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
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
