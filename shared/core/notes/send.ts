/**
 * Creating and reissuing a note of any kind. A kind's create function in the database writes the
 * note and claims it in one transaction (…_notes.sql says what every kind does there); what is left
 * is the lifecycle's: send the claimed note with its CUDE and the invoice's CUFE as billing
 * reference, and record what the authority said. A reissue sends again a note that ended in
 * `error` (or was left `en_proceso` by a transmission that is over), asking first when it may have
 * reached the provider.
 */
import { BusyError, InvalidStateError } from "../../kernel/errors.ts";
import type { AuthorityRule, TransmissionCode } from "../../kernel/result-codes.ts";
import type { ClaimEntry } from "../../kernel/rows.ts";
import type { DocumentKindSpec } from "../documents/kind.ts";
import {
  leaseSeconds,
  sendClaimed,
  type TransmitContext,
  type TransmitResult,
  transmitDocuments,
} from "../documents/transmit.ts";
import type { NoteKind, NoteStatus } from "./kind.ts";

/** What a note's routes answer of a transmission, with the note's id as `document_id`. */
export interface NoteResult {
  document_id: string;
  status: NoteStatus;
  code: TransmissionCode;
  message: string;
  authority_message?: string;
  authority_rules?: AuthorityRule[];
}

/** The arguments every kind's create function takes after the request's own: who, the lease, when. */
export function noteClaimArguments(ctx: TransmitContext) {
  return {
    p_actor_id: ctx.actorId,
    p_lease_seconds: leaseSeconds(1, ctx),
    // issued now, by the service's clock, in Colombia's time (DESIGN §12)
    p_issued_at: ctx.clock.now().toISOString(),
  };
}

/** Sends a note its kind's create function just wrote and claimed, and records the outcome. */
export async function sendNewNote<K extends NoteKind>({
  ctx,
  kind,
  orgId,
  entry,
}: {
  ctx: TransmitContext;
  kind: DocumentKindSpec<K>;
  orgId: string;
  entry: ClaimEntry<K>;
}): Promise<NoteResult> {
  const [result] = await sendClaimed({ ctx, kind, orgId, claims: [entry] });
  if (!result) throw new Error(`the ${kind.words.noun}'s transmission returned no result`);
  return noteResult(result);
}

/**
 * Sends again a note in `error`, or one left `en_proceso` by a transmission that is over. A note that
 * may have reached the provider is asked about first (the lifecycle's claim decides), and re-sent only
 * when the provider never got it or definitely rejected it. An `emitida` note, one a transmission holds
 * right now, or one a later note replaced (`descartada`, even while this call ran) is 409.
 */
export async function reissueNote<K extends NoteKind>({
  ctx,
  kind,
  input,
}: {
  ctx: TransmitContext;
  kind: DocumentKindSpec<K>;
  input: { org_id: string; document_id: string };
}): Promise<NoteResult> {
  const { noun } = kind.words;
  const note = await ctx.serviceDb.call("einv_document_get", {
    p_org_id: input.org_id,
    p_kind: kind.kind,
    p_document_id: input.document_id,
  });
  const { status, in_flight } = note.fiscal;
  if (in_flight) throw new BusyError(`A transmission of this ${noun} is in progress; try again shortly.`);
  if (status !== "error" && status !== "en_proceso") {
    throw new InvalidStateError(
      `Only a ${noun} in error (or left in progress) can be reissued; this one is ${status}.`,
    );
  }
  const [result] = await transmitDocuments({
    ctx,
    kind,
    input: { org_id: input.org_id, document_ids: [input.document_id], reissue: true },
  });
  if (!result) throw new Error(`the ${noun}'s transmission returned no result`);
  // A later note took this one's lines between the read above and the claim: it is never sent.
  if (result.status === "descartada") {
    throw new InvalidStateError(
      `This ${noun} was replaced meanwhile by a later ${noun} that credits its lines; it is not sent again.`,
    );
  }
  return noteResult(result);
}

function noteResult({ status, ...rest }: TransmitResult): NoteResult {
  return { status: status as NoteStatus, ...rest };
}
