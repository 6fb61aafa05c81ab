import {
  ATTACHED_DOCUMENT_CONTENT_TYPE,
  DOCUMENT_NOT_ACCEPTED,
  type DocumentOutcome,
  REPLAYED_HEADER,
  SubmitDocumentRequest,
} from "../shared/ports/providers/protocol.ts";
import { sandboxAttachedDocument } from "./attached-document.ts";
import {
  createSandboxBase,
  errorBody,
  type ReceivedLogEntry,
  readIdempotentPost,
  refuse,
  type SandboxOptions,
  type SandboxService,
} from "./common.ts";
import type { FaultKind } from "./faults.ts";
import { type AdoptedOutcome, createLedger, type SubmissionLogEntry } from "./ledger.ts";
import { type SandboxSigners, sandboxSigners } from "./signers.ts";

export type { ReceivedLogEntry, SandboxOptions } from "./common.ts";
export { DEFAULT_KNOBS, type FailRule, type SandboxKnobs, type SandboxKnobsPatch } from "./faults.ts";
export type { AdoptedOutcome, SubmissionLogEntry } from "./ledger.ts";
export type { SandboxSigners } from "./signers.ts";

export interface SandboxProviderOptions extends SandboxOptions {
  /**
   * The certificates its documents, AttachedDocuments and ApplicationResponses are signed with.
   * Default: this process's sandbox certificates, generated on the first AttachedDocument (./signers.ts).
   */
  signers?: SandboxSigners | Promise<SandboxSigners>;
}

/** One GET /documents/{reference}/attached-document that passed the gate, and how it was answered. */
export interface AttachedDocumentLogEntry {
  received_at: string;
  reference: string;
  result: "served" | "not_found" | "not_accepted" | "unavailable" | "rate_limited";
  injected?: FaultKind;
}

export interface SandboxProvider extends SandboxService {
  /** Each document taken into processing, in order (copies). */
  readonly submissions: readonly SubmissionLogEntry[];
  /** Each POST /documents received, including replays and refused ones (copies). */
  readonly received: readonly ReceivedLogEntry[];
  /** Current outcome per reference. */
  readonly documents: ReadonlyMap<string, DocumentOutcome>;
  /** Each AttachedDocument request, in order (copies): "did we ask the provider again?" */
  readonly attachedDocumentRequests: readonly AttachedDocumentLogEntry[];
  /**
   * Holds a document taken in before this sandbox started (a local run's database says the
   * authority accepted it, or holds it pending) as if it had been received now: it is queried,
   * served as an AttachedDocument and deduplicated like any other (docs/sandbox.md). A reset forgets it.
   */
  adopt(doc: SubmitDocumentRequest, outcome: AdoptedOutcome): Promise<DocumentOutcome>;
}

export function createSandboxProvider(options: SandboxProviderOptions = {}): SandboxProvider {
  const now = options.now ?? (() => new Date());
  const signers = () => Promise.resolve(options.signers ?? sandboxSigners());
  // The first document taken in starts the key generation (off the main thread, ./signers.ts), so
  // that its AttachedDocument, asked for later, rarely waits for it.
  const warmSigners = () => void signers().catch(() => {});
  const ledger = createLedger(now);
  const attachedDocumentRequests: AttachedDocumentLogEntry[] = [];
  const base = createSandboxBase(
    { ...options, now },
    {
      primary: "submit",
      loggedPost: "/documents",
      logsPath: "/_sandbox/submissions",
      logs: () => ({
        submissions: ledger.submissions,
        received: base.received,
        attached_documents: attachedDocumentRequests,
      }),
      onReset: () => {
        ledger.clear();
        attachedDocumentRequests.length = 0;
      },
    },
  );
  const { app, faults, withFault } = base;

  // the certificates that verify its signatures (control endpoint: no key, like /_sandbox/*)
  app.get("/_sandbox/certificates", async (c) => {
    const { pem } = await signers();
    return c.json({ ca_pem: pem.ca, issuer_certificate_pem: pem.issuer, dian_certificate_pem: pem.dian });
  });

  app.post("/documents", async (c) => {
    const intake = await readIdempotentPost(c, faults, "submit", SubmitDocumentRequest);
    if (intake.response) return intake.response;
    const { request, key, log, fault } = intake;

    warmSigners();
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

  app.get("/documents/:reference/attached-document", async (c) => {
    const reference = c.req.param("reference");
    const fault = faults.draw("attached_document", reference);
    const log: AttachedDocumentLogEntry = {
      received_at: now().toISOString(),
      reference,
      result: "served",
      ...(fault ? { injected: fault } : {}),
    };
    attachedDocumentRequests.push(log);
    if (fault === "error" || fault === "rate_limited") {
      log.result = fault === "error" ? "unavailable" : "rate_limited";
      return refuse(c, fault);
    }
    const held = ledger.held(reference);
    if (!held) {
      log.result = "not_found";
      return c.json(errorBody("document_not_found", `No document with reference ${reference}.`), 404);
    }
    if (held.outcome.status !== "accepted") {
      log.result = "not_accepted";
      const message = `Document ${held.request.number} is not accepted by the authority (${held.outcome.status}): it has no AttachedDocument.`;
      return c.json(errorBody(DOCUMENT_NOT_ACCEPTED, message), 409);
    }
    const xml = await sandboxAttachedDocument(held.request, held.outcome, await signers());
    return withFault(c, fault, () =>
      c.body(xml, 200, { "content-type": `${ATTACHED_DOCUMENT_CONTENT_TYPE}; charset=utf-8` }),
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
    get attachedDocumentRequests() {
      return attachedDocumentRequests.map((entry) => ({ ...entry }));
    },
    adopt: async (doc, outcome) => {
      warmSigners();
      return ledger.adopt(SubmitDocumentRequest.parse(doc), outcome, faults.knobs.pendingPolls);
    },
  };
}
