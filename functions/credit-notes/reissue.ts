/** POST /credit-notes/reissue — sends again a credit note that ended in `error` (409 otherwise). */
import type { z } from "zod";
import { reissueCreditNote } from "../../shared/core/credit-notes/reissue.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";
import { DOCUMENT_ROLES, operation, orgScoped, transmitting, uuid } from "../../shared/http/route.ts";
import { CreditNoteResponse } from "./create.ts";

export const ReissueRequest = orgScoped.extend({
  credit_note_id: uuid.meta({
    description: "A credit note of this organization in `error` (or left `en_proceso`).",
  }),
});
export type ReissueRequest = z.input<typeof ReissueRequest>;

export const reissue = operation({
  summary: "Send again a credit note that ended in error (or was left in progress)",
  description:
    "Sends again a credit note in `error` (never received by the provider, or stopped before it left), " +
    "or one a finished transmission left `en_proceso`. One that may have reached the provider is asked " +
    "about first and never sent twice. A note the authority rejected is rejected again as it is: issue a " +
    "new note for its lines instead.",
  input: ReissueRequest,
  output: CreditNoteResponse,
  roles: DOCUMENT_ROLES,
  announces: true, // its changes go to the org's webhooks right after the answer
  errors: ["not_found", "invalid_state"],
  example: {
    request: { org_id: EXAMPLE.org_id, credit_note_id: EXAMPLE.credit_note_id },
    response: {
      credit_note_id: EXAMPLE.credit_note_id,
      status: "emitida",
      code: "accepted",
      message: "the authority accepted this credit note",
      authority_message: "La nota crédito electrónica NC2 ha sido autorizada.",
    },
  },
  handle: (input, ctx) => reissueCreditNote({ input, ctx: transmitting(ctx) }),
});
