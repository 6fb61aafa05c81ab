/** POST /credit-notes/reissue — sends again a credit note that ended in `error` (409 otherwise). */
import type { z } from "zod";
import { reissueCreditNote } from "../../shared/core/credit-notes/reissue.ts";
import { DOCUMENT_ROLES, operation, orgScoped, transmitting, uuid } from "../../shared/http/route.ts";
import { CreditNoteResponse } from "./create.ts";

export const ReissueRequest = orgScoped.extend({ credit_note_id: uuid });
export type ReissueRequest = z.input<typeof ReissueRequest>;

export const reissue = operation({
  summary: "Send again a credit note that ended in error (or was left in progress)",
  input: ReissueRequest,
  output: CreditNoteResponse,
  roles: DOCUMENT_ROLES,
  errors: ["not_found", "invalid_state"],
  handle: (input, ctx) => reissueCreditNote({ input, ctx: transmitting(ctx) }),
});
