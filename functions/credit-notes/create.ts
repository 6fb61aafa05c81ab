/**
 * POST /credit-notes — writes a credit note for a transmitted invoice and sends it at once.
 * HTTP 200 `{ credit_note_id, status, message }` whether the authority accepted it (`emitida`),
 * rejected it (`error`, reissuable) or has not answered yet (`en_proceso`).
 */
import { z } from "zod";
import { createCreditNote } from "../../shared/core/credit-notes/create.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";
import { DOCUMENT_ROLES, operation, orgScoped, transmitting, uuid } from "../../shared/http/route.ts";

export const CreditNoteRequest = orgScoped.extend({
  invoice_id: uuid.meta({ description: "The `transmitida` invoice the note corrects." }),
  /** DIAN correction concept (Anexo 1.9), as a string. */
  concept_code: z
    .enum(["1", "2", "3", "4", "5", "6"], {
      error: 'must be a DIAN correction concept: "1" to "6", as a string',
    })
    .meta({
      description:
        "DIAN's correction concept (Anexo Técnico 1.9): `1` partial return of goods, `2` annulment of " +
        "the invoice (credits everything still uncredited), `3` rebate or discount, `4` price " +
        "adjustment, `5` prompt-payment discount, `6` volume discount.",
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
    .meta({
      uniqueItems: true,
      description: "Lines of the invoice to credit in full; left out, every line still uncredited.",
    })
    .optional(),
});
export type CreditNoteRequest = z.input<typeof CreditNoteRequest>;

export const CreditNoteResponse = z.object({
  credit_note_id: z.string().meta({ description: "The note (the table `credit_notes`)." }),
  status: z.enum(["en_proceso", "emitida", "error"]).meta({
    description:
      "`emitida`: accepted by the authority; `error`: rejected or not sent (reissue it); `en_proceso`: " +
      "sent, outcome not known yet (reconcile settles it).",
  }),
  message: z.string().meta({ description: "What happened, for a person to read." }),
});
export type CreditNoteResponse = z.infer<typeof CreditNoteResponse>;

export const create = operation({
  summary: "Write a credit note for a transmitted invoice and send it",
  input: CreditNoteRequest,
  output: CreditNoteResponse,
  roles: DOCUMENT_ROLES,
  errors: ["not_found", "invalid_state", "business_rule"],
  example: {
    request: {
      org_id: EXAMPLE.org_id,
      invoice_id: EXAMPLE.invoice_id,
      concept_code: "1",
      reason: "Devolución de 2 unidades en mal estado",
      line_ids: [EXAMPLE.line_id],
    },
    response: {
      credit_note_id: EXAMPLE.credit_note_id,
      status: "emitida",
      message: "La nota crédito electrónica NC4 ha sido autorizada.",
    },
  },
  handle: (input, ctx) => createCreditNote({ input, ctx: transmitting(ctx) }),
});
