/**
 * The sandbox authority's books, without HTTP: which documents it holds, under which idempotency
 * keys, and what it decided. A key is answered from the store (never processed twice); a reference
 * that is accepted or pending is never processed again under any key; a rejected one may be, under
 * a new key (the next attempt). A document it took in before this process started (whose outcome
 * the caller's books record) is adopted: held as if received, never judged again.
 */
import type {
  DocumentOutcome,
  RuleViolation,
  SubmitDocumentRequest,
} from "../shared/ports/providers/protocol.ts";
import { DUPLICATE_RULE, judge, stamp } from "./rules.ts";

/** One document the sandbox took into processing (a replay or a refused request is not one). */
export interface SubmissionLogEntry {
  provider_reference: string;
  reference: string;
  idempotency_key: string;
  number: string;
  /** The status it was given on arrival (a pending one may have been accepted since). */
  status: DocumentOutcome["status"];
  received_at: string;
}

export type SubmitResult =
  | { kind: "processed" | "replayed" | "duplicate"; outcome: DocumentOutcome }
  | { kind: "conflict" };

interface Submission {
  request: SubmitDocumentRequest;
  outcome: DocumentOutcome;
  pendingPollsLeft: number;
}

/**
 * What the books of record say the authority decided about a document it holds: accepted (with the
 * code, QR text and instant on record; with neither code nor QR text, the sandbox stamps it now) or
 * still pending.
 */
export interface AdoptedOutcome {
  provider_reference: string;
  status: "accepted" | "pending";
  authority_code?: string;
  qr_text?: string;
  validated_at?: string;
}

export interface Ledger {
  submit(doc: SubmitDocumentRequest, idempotencyKey: string, pendingPolls: number): Promise<SubmitResult>;
  /** The current outcome, advancing a pending document by one poll; null when never received. */
  query(reference: string): Promise<DocumentOutcome | null>;
  /** The document held under `reference` as it arrived, and its current outcome (nothing advances). */
  held(reference: string): { request: SubmitDocumentRequest; outcome: DocumentOutcome } | null;
  /**
   * Holds `doc` with `outcome`, as if it had been received (no submission is logged, no rule is
   * applied): an accepted one takes part in the duplicate rule, a pending one is accepted after
   * `pendingPolls` queries. A reference already held keeps what it has. Answers the held outcome.
   */
  adopt(doc: SubmitDocumentRequest, outcome: AdoptedOutcome, pendingPolls: number): Promise<DocumentOutcome>;
  readonly submissions: SubmissionLogEntry[];
  readonly documents: Map<string, DocumentOutcome>;
  clear(): void;
}

/** How the authority's messages name the document. */
function documentName(doc: SubmitDocumentRequest): string {
  return {
    invoice: "La factura electrónica",
    credit_note: "La nota crédito electrónica",
    debit_note: "La nota débito electrónica",
  }[doc.kind];
}

export function createLedger(now: () => Date): Ledger {
  /** Idempotency store: key → the submission it produced and the body it came with. */
  const byKey = new Map<string, { submission: Submission; fingerprint: string }>();
  const byReference = new Map<string, Submission>();
  /** CUFE → the reference it was accepted for. */
  const acceptedCufes = new Map<string, string>();
  const submissions: SubmissionLogEntry[] = [];

  function accepted(
    doc: SubmitDocumentRequest,
    providerReference: string,
    stamped: Stamp,
    validatedAt = now().toISOString(),
    notices: RuleViolation[] = [],
  ): DocumentOutcome {
    acceptedCufes.set(stamped.cufe, doc.reference);
    return {
      reference: doc.reference,
      provider_reference: providerReference,
      status: "accepted",
      authority_code: stamped.cufe,
      qr_text: stamped.qrText,
      message: `${documentName(doc)} ${doc.number} ha sido autorizada.`,
      ...(notices.length > 0 ? { errors: notices } : {}),
      validated_at: validatedAt,
    };
  }

  function pending(
    doc: SubmitDocumentRequest,
    providerReference: string,
    notices: RuleViolation[] = [],
  ): DocumentOutcome {
    return {
      reference: doc.reference,
      provider_reference: providerReference,
      status: "pending",
      message: `${documentName(doc)} ${doc.number} está en proceso de validación.`,
      ...(notices.length > 0 ? { errors: notices } : {}),
    };
  }

  async function decide(doc: SubmitDocumentRequest, providerReference: string): Promise<DocumentOutcome> {
    const verdict = judge(doc);
    if (verdict.status === "rejected") return rejected(doc, providerReference, verdict.errors);
    // what is left of a verdict that does not reject: DIAN's notifications, reported with the outcome
    if (verdict.status === "pending") return pending(doc, providerReference, verdict.errors);
    const stamped = await stamp(doc);
    const owner = acceptedCufes.get(stamped.cufe);
    if (owner && owner !== doc.reference) {
      const message = "Documento procesado anteriormente: el CUFE ya fue registrado.";
      return rejected(doc, providerReference, [{ code: DUPLICATE_RULE, kind: "rechazo", message }]);
    }
    return accepted(doc, providerReference, stamped, undefined, verdict.errors);
  }

  return {
    async submit(doc, key, pendingPolls) {
      const fingerprint = JSON.stringify(doc);
      const previous = byKey.get(key);
      if (previous) {
        if (previous.fingerprint !== fingerprint) return { kind: "conflict" };
        return { kind: "replayed", outcome: previous.submission.outcome };
      }
      const current = byReference.get(doc.reference);
      if (current && current.outcome.status !== "rejected") {
        byKey.set(key, { submission: current, fingerprint });
        return { kind: "duplicate", outcome: current.outcome };
      }
      const providerReference = `sbx_${crypto.randomUUID()}`;
      const submission = {
        request: doc,
        outcome: await decide(doc, providerReference),
        pendingPollsLeft: pendingPolls,
      };
      byKey.set(key, { submission, fingerprint });
      byReference.set(doc.reference, submission);
      submissions.push({
        provider_reference: providerReference,
        reference: doc.reference,
        idempotency_key: key,
        number: doc.number,
        status: submission.outcome.status,
        received_at: now().toISOString(),
      });
      return { kind: "processed", outcome: submission.outcome };
    },

    async query(reference) {
      const submission = byReference.get(reference);
      if (!submission) return null;
      if (submission.outcome.status === "pending") {
        if (submission.pendingPollsLeft > 0) {
          submission.pendingPollsLeft--;
        } else {
          const { outcome: was, request: doc } = submission;
          submission.outcome = accepted(doc, was.provider_reference, await stamp(doc), undefined, was.errors);
        }
      }
      return submission.outcome;
    },

    held(reference) {
      const submission = byReference.get(reference);
      return submission ? { request: submission.request, outcome: submission.outcome } : null;
    },

    async adopt(doc, outcome, pendingPolls) {
      const current = byReference.get(doc.reference);
      if (current) return current.outcome;
      const reference = outcome.provider_reference;
      let adopted: DocumentOutcome;
      if (outcome.status === "pending") {
        adopted = pending(doc, reference);
      } else if (outcome.authority_code !== undefined) {
        if (!outcome.qr_text) throw new Error(`${doc.reference}: an authority code without its QR text`);
        const recorded = { cufe: outcome.authority_code, qrText: outcome.qr_text };
        adopted = accepted(doc, reference, recorded, outcome.validated_at);
      } else {
        adopted = accepted(doc, reference, await stamp(doc), outcome.validated_at);
      }
      byReference.set(doc.reference, { request: doc, outcome: adopted, pendingPollsLeft: pendingPolls });
      return adopted;
    },

    submissions,
    get documents() {
      return new Map([...byReference].map(([reference, s]) => [reference, s.outcome]));
    },

    clear() {
      byKey.clear();
      byReference.clear();
      acceptedCufes.clear();
      submissions.length = 0;
    },
  };
}

type Stamp = Awaited<ReturnType<typeof stamp>>;

function rejected(
  doc: SubmitDocumentRequest,
  providerReference: string,
  errors: RuleViolation[],
): DocumentOutcome {
  return {
    reference: doc.reference,
    provider_reference: providerReference,
    status: "rejected",
    message: `Documento rechazado. ${errors.map((e) => `${e.code}: ${e.message}`).join(" ")}`,
    errors,
  };
}
