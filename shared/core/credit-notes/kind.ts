/**
 * Credit notes, the second kind of fiscal document: what the lifecycle (shared/core/documents) needs
 * to know about them. Content in `credit_notes` and `credit_note_lines`, created by the service
 * (./create.ts); accepted means `emitida`; the authority code is the CUDE (with the company's software
 * PIN), and the invoice's CUFE travels as the billing reference.
 */
import type { CreditNoteDocumentRow, Environment } from "../../db/rows.ts";
import { BusinessRuleError } from "../../errors.ts";
import { isoTimeWithOffset } from "../../pdf/format.ts";
import { toCreditNotePdfModel } from "../../pdf/model.ts";
import { renderStatusOf } from "../../providers/docsgen.ts";
import { SubmitDocumentRequest } from "../../providers/protocol.ts";
import type { DocumentKindSpec, PreparedDocument } from "../documents/kind.ts";
import {
  buyerProblems,
  buyerRequest,
  issuerRequest,
  linesRequest,
  totalsRequest,
} from "../documents/request.ts";

/** A credit note's status: `emitida` once accepted; `error` reissuable; `en_proceso` while unknown. */
export type CreditNoteStatus = "en_proceso" | "emitida" | "error";

export const creditNoteKind: DocumentKindSpec<"credit_note"> & { accepted: "emitida" } = {
  kind: "credit_note",
  accepted: "emitida",
  unsent: "error",
  words: {
    noun: "credit note",
    alreadyAccepted: "already issued: the authority accepted this credit note",
    howToResend: "send it again with /credit-notes/reissue",
    whileInProgress:
      "use /credit-notes/refresh to ask the authority, or /credit-notes/reissue once it is idle",
  },
  folder: "credit-notes",
  prepare: prepareCreditNote,
  pdfModel: (document, fiscal) => toCreditNotePdfModel(document, fiscal),
  renderRequest(document, fiscal, environment, stamp) {
    const prepared = prepareCreditNote(document, environment);
    if (!prepared.ok) {
      throw new BusinessRuleError(`The credit note cannot be rendered: ${prepared.problems.join("; ")}.`);
    }
    const { kind: _kind, reference, issuer, ...data } = prepared.request;
    const { software_pin: _secret, technical_key: _none, ...publicIssuer } = issuer;
    return {
      kind: "credit_note",
      reference,
      document: { ...data, issuer: publicIssuer, status: renderStatusOf(fiscal.status), ...(stamp ?? {}) },
    };
  },
  fileName: (document, fingerprint) => `nota-credito-${document.number}-${fingerprint}.pdf`,
};

/**
 * The checks before a note is sent, then its submit request. Its lines and totals were copied from
 * a transmitted invoice by the database, so what can still be missing is the company's software
 * PIN (its CUDE's secret), the invoice's CUFE, or buyer data.
 */
export function prepareCreditNote(doc: CreditNoteDocumentRow, environment: Environment): PreparedDocument {
  const problems: string[] = [];
  if (!doc.company.software_pin) {
    problems.push("the company has no DIAN software PIN, which a credit note's CUDE needs");
  }
  if (!doc.billing_reference.authority_code) problems.push("the credited invoice has no CUFE");
  problems.push(...buyerProblems(doc));
  if (doc.lines.length === 0) problems.push("the credit note has no lines");
  if (problems.length > 0) return { ok: false, problems };

  const parsed = SubmitDocumentRequest.safeParse({
    kind: "credit_note",
    reference: doc.id,
    environment,
    number: doc.number,
    issue_date: doc.issue_date,
    issue_time: isoTimeWithOffset(doc.issue_time),
    currency: doc.currency,
    issuer: issuerRequest(doc.company, { software_pin: doc.company.software_pin }),
    buyer: buyerRequest(doc),
    lines: linesRequest(doc.lines),
    totals: totalsRequest(doc),
    billing_reference: doc.billing_reference,
    correction: { concept_code: doc.concept_code, reason: doc.reason },
  });
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) };
  }
  return { ok: true, request: parsed.data };
}
