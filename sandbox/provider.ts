import {
  type DocumentOutcome,
  REPLAYED_HEADER,
  SubmitDocumentRequest,
} from "../shared/providers/protocol.ts";
import {
  createSandboxBase,
  errorBody,
  type ReceivedLogEntry,
  readIdempotentPost,
  refuse,
  type SandboxOptions,
  type SandboxService,
} from "./common.ts";
import { createLedger, type SubmissionLogEntry } from "./ledger.ts";

export type { ReceivedLogEntry, SandboxOptions } from "./common.ts";
export { DEFAULT_KNOBS, type FailRule, type SandboxKnobs, type SandboxKnobsPatch } from "./faults.ts";
export type { SubmissionLogEntry } from "./ledger.ts";

export interface SandboxProvider extends SandboxService {
  /** Each document taken into processing, in order (copies). */
  readonly submissions: readonly SubmissionLogEntry[];
  /** Each POST /documents received, including replays and refused ones (copies). */
  readonly received: readonly ReceivedLogEntry[];
  /** Current outcome per reference. */
  readonly documents: ReadonlyMap<string, DocumentOutcome>;
}

export function createSandboxProvider(options: SandboxOptions = {}): SandboxProvider {
  const now = options.now ?? (() => new Date());
  const ledger = createLedger(now);
  const base = createSandboxBase(
    { ...options, now },
    {
      primary: "submit",
      loggedPost: "/documents",
      logsPath: "/_sandbox/submissions",
      logs: () => ({ submissions: ledger.submissions, received: base.received }),
      onReset: () => ledger.clear(),
    },
  );
  const { app, faults, withFault } = base;

  app.post("/documents", async (c) => {
    const intake = await readIdempotentPost(c, faults, "submit", SubmitDocumentRequest);
    if (intake.response) return intake.response;
    const { request, key, log, fault } = intake;

    const result = await ledger.submit(request, key, faults.knobs.pendingPolls);
    log.result = result.kind;
    if (result.kind === "conflict") {
      const message = "This idempotency key was already used with a different document.";
      return c.json(errorBody("idempotency_conflict", message), 409);
    }
    const { outcome } = result;
    if (result.kind === "replayed") {
      return withFault(c, fault, () => c.json(outcome, 200, { [REPLAYED_HEADER]: "true" }));
    }
    return withFault(c, fault, () => c.json(outcome, result.kind === "processed" ? 201 : 200));
  });

  app.get("/documents/:reference", async (c) => {
    const reference = c.req.param("reference");
    const fault = faults.draw("query", reference);
    if (fault === "error" || fault === "rate_limited") return refuse(c, fault);
    const outcome = await ledger.query(reference);
    return withFault(c, fault, () =>
      outcome
        ? c.json(outcome, 200)
        : c.json(errorBody("document_not_found", `No document with reference ${reference}.`), 404),
    );
  });

  return {
    fetch: base.service.fetch,
    setKnobs: base.service.setKnobs,
    reset: base.service.reset,
    get knobs() {
      return faults.knobs;
    },
    get submissions() {
      return ledger.submissions.map((entry) => ({ ...entry }));
    },
    get received() {
      return base.received.map((entry) => ({ ...entry }));
    },
    get documents() {
      return ledger.documents;
    },
  };
}
