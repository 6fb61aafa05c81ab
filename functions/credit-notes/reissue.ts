/** POST /credit-notes/reissue — sends again a credit note that ended in `error` (409 otherwise): shared/http/note-routes.ts. */
import type { z } from "zod";
import { creditNoteKind } from "../../shared/core/credit-notes/kind.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";
import { reissueRoute } from "../../shared/http/note-routes.ts";
import { CreditNoteResponse } from "./create.ts";

const route = reissueRoute({
  kind: creditNoteKind,
  idField: "credit_note_id",
  response: CreditNoteResponse,
  description:
    "Sends again a credit note in `error` (never received by the provider, or stopped before it left), " +
    "or one a finished transmission left `en_proceso`. One that may have reached the provider is asked " +
    "about first and never sent twice. A note the authority rejected is rejected again as it is: issue a " +
    "new note for its lines instead.",
  example: {
    id: EXAMPLE.credit_note_id,
    response: {
      credit_note_id: EXAMPLE.credit_note_id,
      status: "emitida",
      code: "accepted",
      message: "the authority accepted this credit note",
      authority_message: "La nota crédito electrónica NC2 ha sido autorizada.",
    },
  },
});

export const ReissueRequest = route.request;
export type ReissueRequest = z.input<typeof ReissueRequest>;
export const reissue = route.operation;
