/**
 * createDebitNote: writes a debit note for a transmitted invoice and sends it at once. The database
 * computes its lines as it computes an invoice's (the amounts module: taxes, discounts and charges,
 * DIAN's rounding), numbers it from the company's debit-note sequence and claims it, in one
 * transaction (supabase/migrations/…_debit_notes.sql); the lifecycle sends it with its CUDE and the
 * invoice's CUFE as billing reference and records what the authority said (../notes/send.ts).
 */
import type { DebitedLine } from "../../kernel/rows.ts";
import type { TransmitContext } from "../documents/transmit.ts";
import { type NoteResult, noteClaimArguments, sendNewNote } from "../notes/send.ts";
import { debitNoteKind } from "./kind.ts";

export interface CreateDebitNoteInput {
  org_id: string;
  invoice_id: string;
  /** DIAN debit-note concept "1"–"4": intereses, gastos por cobrar, cambio del valor, otros. */
  concept_code: string;
  reason: string;
  /** What is charged, each line an invoice line's inputs. */
  lines: DebitedLine[];
}

export async function createDebitNote({
  ctx,
  input,
}: {
  ctx: TransmitContext;
  input: CreateDebitNoteInput;
}): Promise<NoteResult> {
  const entry = await ctx.serviceDb.call("einv_debit_note_create", {
    p_org_id: input.org_id,
    p_invoice_id: input.invoice_id,
    p_concept_code: input.concept_code,
    p_reason: input.reason,
    p_lines: input.lines,
    ...noteClaimArguments(ctx),
  });
  return sendNewNote({ ctx, kind: debitNoteKind, orgId: input.org_id, entry });
}
