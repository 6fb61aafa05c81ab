/**
 * POST /credit-notes — writes a credit note for a transmitted invoice and sends it at once.
 * HTTP 200 `{ credit_note_id, status, message }` whether the authority accepted it (`emitida`),
 * rejected it (`error`, reissuable) or has not answered yet (`en_proceso`).
 */
import { z } from "zod";
import { createCreditNote } from "../../shared/core/credit-notes/create.ts";
import { DOCUMENT_ROLES, operation, orgScoped, transmitting, uuid } from "../../shared/http/route.ts";

export const CreditNoteRequest = orgScoped.extend({
  invoice_id: uuid,
  /** DIAN correction concept (Anexo 1.9), as a string. */
  concept_code: z.enum(["1", "2", "3", "4", "5", "6"], {
    error: 'must be a DIAN correction concept: "1" to "6", as a string',
  }),
  reason: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(500, "at most 500 characters")
    .meta({ description: "Why the invoice is credited; 1 to 500 characters once trimmed." }),
  line_ids: z
    .array(uuid)
    .min(1, "list at least one line, or leave line_ids out to credit every line still uncredited")
    .max(1000)
    .refine((ids) => new Set(ids).size === ids.length, "line ids must be distinct")
    .meta({ uniqueItems: true })
    .optional(),
});
export type CreditNoteRequest = z.input<typeof CreditNoteRequest>;

export const CreditNoteResponse = z.object({
  credit_note_id: z.string(),
  status: z.enum(["en_proceso", "emitida", "error"]),
  message: z.string(),
});
export type CreditNoteResponse = z.infer<typeof CreditNoteResponse>;

export const create = operation({
  summary: "Write a credit note for a transmitted invoice and send it",
  input: CreditNoteRequest,
  output: CreditNoteResponse,
  roles: DOCUMENT_ROLES,
  errors: ["not_found", "invalid_state", "business_rule"],
  handle: (input, ctx) => createCreditNote({ input, ctx: transmitting(ctx) }),
});
