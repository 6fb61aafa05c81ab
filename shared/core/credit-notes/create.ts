/**
 * createCreditNote: writes a credit note for a transmitted invoice and sends it at once. The
 * database creates and claims it in one transaction (what it credits of each line, its totals and
 * tax, per-line balances and numbering hold under concurrency: supabase/migrations/…_credit_notes.sql);
 * the lifecycle sends it with its CUDE and the invoice's CUFE as billing reference and records what
 * the authority said (../notes/send.ts).
 */

import type { CreditedLine } from "../../kernel/rows.ts";
import type { TransmitContext } from "../documents/transmit.ts";
import { type NoteResult, noteClaimArguments, sendNewNote } from "../notes/send.ts";
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

export async function createCreditNote({
  ctx,
  input,
}: {
  ctx: TransmitContext;
  input: CreateCreditNoteInput;
}): Promise<NoteResult> {
  const entry = await ctx.serviceDb.call("einv_credit_note_create", {
    p_org_id: input.org_id,
    p_invoice_id: input.invoice_id,
    p_concept_code: input.concept_code,
    p_reason: input.reason,
    p_lines: creditedLines(input),
    ...noteClaimArguments(ctx),
  });
  return sendNewNote({ ctx, kind: creditNoteKind, orgId: input.org_id, entry });
}

/** The request's lines as the database takes them: whole lines are lines with nothing more said. */
function creditedLines(input: CreateCreditNoteInput): CreditedLine[] | null {
  return input.lines ?? input.line_ids?.map((line_id) => ({ line_id })) ?? null;
}
