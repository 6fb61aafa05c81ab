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
