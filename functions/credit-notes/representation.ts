/**
 * POST /credit-notes/representation — keeps the credit note's PDF current in the private bucket and
 * answers where it is, with the same cache rules as an invoice's.
 */
import { z } from "zod";
import { creditNoteKind } from "../../shared/core/credit-notes/kind.ts";
import { documentRepresentation } from "../../shared/core/documents/representation.ts";
import { DOCUMENT_ROLES, operation, orgScoped, PROVIDER_ERRORS, uuid } from "../../shared/http/route.ts";

export const RepresentationRequest = orgScoped.extend({
  credit_note_id: uuid,
  regenerate: z.boolean().default(false),
});
export type RepresentationRequest = z.input<typeof RepresentationRequest>;

export const RepresentationResponse = z.object({
  path: z.string(),
  filename: z.string(),
  stamped: z.boolean(),
  cached: z.boolean(),
  generated_at: z.string(),
});
export type RepresentationResponse = z.infer<typeof RepresentationResponse>;

export const representation = operation({
  summary: "Keep the credit note's PDF current in the private bucket and say where it is",
  input: RepresentationRequest,
  output: RepresentationResponse,
  roles: DOCUMENT_ROLES,
  errors: ["not_found", "business_rule", ...PROVIDER_ERRORS],
  handle: ({ org_id, credit_note_id, regenerate }, ctx) =>
    documentRepresentation({
      kind: creditNoteKind,
      input: { org_id, document_id: credit_note_id, regenerate },
      ctx,
    }),
});
