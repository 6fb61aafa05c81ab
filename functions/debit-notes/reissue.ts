/** POST /debit-notes/reissue — sends again a debit note that ended in `error` (409 otherwise): shared/http/note-routes.ts. */
import type { z } from "zod";
import { debitNoteKind } from "../../shared/core/debit-notes/kind.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";
import { reissueRoute } from "../../shared/http/note-routes.ts";
import { DebitNoteResponse } from "./create.ts";

const route = reissueRoute({
  kind: debitNoteKind,
  idField: "debit_note_id",
  response: DebitNoteResponse,
  description:
    "Sends again a debit note in `error` (never received by the provider, or stopped before it left), " +
    "or one a finished transmission left `en_proceso`. One that may have reached the provider is asked " +
    "about first and never sent twice.",
  example: {
    id: EXAMPLE.debit_note_id,
    response: {
      debit_note_id: EXAMPLE.debit_note_id,
      status: "emitida",
      code: "accepted",
      message: "the authority accepted this debit note",
      authority_message: "La nota débito electrónica ND2 ha sido autorizada.",
    },
  },
});

export const ReissueRequest = route.request;
export type ReissueRequest = z.input<typeof ReissueRequest>;
export const reissue = route.operation;
