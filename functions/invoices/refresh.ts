/** POST /refresh — re-queries the authority's status of a transmitted invoice. */
import { z } from "zod";
import { refreshDocument } from "../../shared/core/documents/refresh.ts";
import { invoiceKind } from "../../shared/core/invoices/kind.ts";
import { DOCUMENT_ROLES, operation, orgScoped, PROVIDER_ERRORS, uuid } from "../../shared/http/route.ts";

export const RefreshRequest = orgScoped.extend({ invoice_id: uuid });
export type RefreshRequest = z.input<typeof RefreshRequest>;

export const RefreshResponse = z.object({
  invoice_id: z.string(),
  status: z.enum(["en_proceso", "transmitida", "error"]),
  message: z.string(),
  authority_code: z.string().nullable(),
  checked_at: z.string(),
});
export type RefreshResponse = z.infer<typeof RefreshResponse>;

export const refresh = operation({
  summary: "Re-query an invoice's status at the tax authority",
  input: RefreshRequest,
  output: RefreshResponse,
  roles: DOCUMENT_ROLES,
  errors: ["not_found", "invalid_state", "business_rule", ...PROVIDER_ERRORS],
  handle: async ({ org_id, invoice_id }, ctx) => {
    const { document_id, status, ...rest } = await refreshDocument({
      kind: invoiceKind,
      input: { org_id, document_id: invoice_id },
      ctx,
    });
    return { invoice_id: document_id, status: status as RefreshResponse["status"], ...rest };
  },
});
