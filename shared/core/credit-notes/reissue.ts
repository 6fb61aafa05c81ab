/**
 * reissueCreditNote: sends again a credit note that ended in `error`, or one left `en_proceso` by a
 * transmission that is over (its outcome unknown: a timeout, a call that died). A note that may
 * have reached the provider is asked about first (the lifecycle's claim decides), and re-sent only
 * when the provider never got it or definitely rejected it. An `emitida` note, one a transmission
 * holds right now, or one a later note replaced (`descartada`, even while this call ran) is 409.
 */
import { BusyError, InvalidStateError } from "../../kernel/errors.ts";
import { type TransmitContext, transmitDocuments } from "../documents/transmit.ts";
import { type CreditNoteResult, toCreditNoteResult } from "./create.ts";
import { creditNoteKind } from "./kind.ts";

export async function reissueCreditNote({
  ctx,
  input,
}: {
  ctx: TransmitContext;
  input: { org_id: string; credit_note_id: string };
}): Promise<CreditNoteResult> {
  const note = await ctx.serviceDb.call("einv_document_get", {
    p_org_id: input.org_id,
    p_kind: "credit_note",
    p_document_id: input.credit_note_id,
  });
  const { status, in_flight } = note.fiscal;
  if (in_flight) throw new BusyError("A transmission of this credit note is in progress; try again shortly.");
  if (status !== "error" && status !== "en_proceso") {
    throw new InvalidStateError(
      `Only a credit note in error (or left in progress) can be reissued; this one is ${status}.`,
    );
  }
  const [result] = await transmitDocuments({
    ctx,
    kind: creditNoteKind,
    input: { org_id: input.org_id, document_ids: [input.credit_note_id], reissue: true },
  });
  if (!result) throw new Error("the credit note's transmission returned no result");
  // A later note took this one's lines between the read above and the claim: it is never sent.
  if (result.status === "descartada") {
    throw new InvalidStateError(
      "This credit note was replaced meanwhile by a later credit note that credits its lines; it is not sent again.",
    );
  }
  return toCreditNoteResult(result);
}
