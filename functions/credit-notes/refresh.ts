/** POST /credit-notes/refresh — re-queries the authority's status of a credit note. */
import { z } from "zod";
import { creditNoteKind } from "../../shared/core/credit-notes/kind.ts";
import { refreshDocument } from "../../shared/core/documents/refresh.ts";
import { DOCUMENT_ROLES, operation, orgScoped, PROVIDER_ERRORS, uuid } from "../../shared/http/route.ts";

export const RefreshRequest = orgScoped.extend({ credit_note_id: uuid });
export type RefreshRequest = z.input<typeof RefreshRequest>;

export const RefreshResponse = z.object({
  credit_note_id: z.string(),
  status: z.enum(["en_proceso", "emitida", "error"]),
  message: z.string(),
  authority_code: z.string().nullable(),
  checked_at: z.string(),
});
export type RefreshResponse = z.infer<typeof RefreshResponse>;

export const refresh = operation({
  summary: "Re-query a credit note's status at the tax authority",
  input: RefreshRequest,
  output: RefreshResponse,
  roles: DOCUMENT_ROLES,
  errors: ["not_found", "invalid_state", "business_rule", ...PROVIDER_ERRORS],
  handle: async ({ org_id, credit_note_id }, ctx) => {
    const { document_id, status, ...rest } = await refreshDocument({
      kind: creditNoteKind,
      input: { org_id, document_id: credit_note_id },
      ctx,
    });
    return { credit_note_id: document_id, status: status as RefreshResponse["status"], ...rest };
  },
});
