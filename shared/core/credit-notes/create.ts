/**
 * createCreditNote: writes a credit note for a transmitted invoice and sends it at once. The
 * database creates and claims it in one transaction (what it credits of each line, its totals and
 * tax, per-line balances and numbering hold under concurrency: supabase/migrations/…_credit_notes.sql);
 * the lifecycle sends it with its CUDE and the invoice's CUFE as billing reference and records what
 * the authority said.
 */

import type { AuthorityRule, TransmissionCode } from "../../kernel/result-codes.ts";
import type { CreditedLine } from "../../kernel/rows.ts";
import {
  leaseSeconds,
  sendClaimed,
  type TransmitContext,
  type TransmitResult,
} from "../documents/transmit.ts";
import type { CreditNoteStatus } from "./kind.ts";
import { creditNoteKind } from "./kind.ts";

/** What to credit: `line_ids`, `lines`, or neither (everything still left of the invoice). */
export interface CreateCreditNoteInput {
  org_id: string;
  invoice_id: string;
  /** DIAN correction concept "1"–"6". */
  concept_code: string;
  reason: string;
  /** Lines of the invoice to credit, each in full (all that is left of it). */
  line_ids?: string[] | undefined;
  /** Or parts of lines: a quantity of units (concept 1) or a base amount (concepts 3–6) of each. */
  lines?: CreditedLine[] | undefined;
}

export interface CreditNoteResult {
  credit_note_id: string;
  status: CreditNoteStatus;
  code: TransmissionCode;
  message: string;
  authority_message?: string;
  authority_rules?: AuthorityRule[];
}

export async function createCreditNote({
  ctx,
  input,
}: {
  ctx: TransmitContext;
  input: CreateCreditNoteInput;
}): Promise<CreditNoteResult> {
  const entry = await ctx.serviceDb.call("einv_credit_note_create", {
    p_org_id: input.org_id,
    p_invoice_id: input.invoice_id,
    p_concept_code: input.concept_code,
    p_reason: input.reason,
    p_lines: creditedLines(input),
    p_actor_id: ctx.actorId,
    p_lease_seconds: leaseSeconds(1, ctx),
    // issued now, by the service's clock, in Colombia's time (DESIGN §12)
    p_issued_at: ctx.clock.now().toISOString(),
  });
  const [result] = await sendClaimed({ ctx, kind: creditNoteKind, orgId: input.org_id, claims: [entry] });
  if (!result) throw new Error("the credit note's transmission returned no result");
  return toCreditNoteResult(result);
}

/** The request's lines as the database takes them: whole lines are lines with nothing more said. */
function creditedLines(input: CreateCreditNoteInput): CreditedLine[] | null {
  return input.lines ?? input.line_ids?.map((line_id) => ({ line_id })) ?? null;
}

/** A lifecycle result in the credit-note routes' words. */
export function toCreditNoteResult({ document_id, status, ...rest }: TransmitResult): CreditNoteResult {
  return { credit_note_id: document_id, status: status as CreditNoteStatus, ...rest };
}
