/**
 * POST /credit-notes — writes a credit note for a transmitted invoice and sends it at once.
 * HTTP 200 `{ credit_note_id, status, message }` whether the authority accepted it (`emitida`),
 * rejected it (`error`, reissuable) or has not answered yet (`en_proceso`).
 */
import { z } from "zod";
import { createCreditNote } from "../../shared/core/credit-notes/create.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";
import { noteResponse, underIdField } from "../../shared/http/note-routes.ts";
import { DOCUMENT_ROLES, operation, orgScoped, transmitting, uuid } from "../../shared/http/route.ts";

/** A decimal > 0 written as text, without leading zeros; its bounds are its columns' (numeric(18,n)). */
const positiveDecimal = (digits: number, decimals: number, example: string) =>
  z
    .string()
    .regex(
      new RegExp(`^(?=.*[1-9])(0|[1-9][0-9]{0,${digits - 1}})(\\.[0-9]{1,${decimals}})?$`),
      `must be a decimal string greater than 0, at most ${digits} digits and ${decimals} decimals, e.g. "${example}"`,
    );

/** Concepts whose credit is an amount: rebate, price adjustment, prompt-payment and volume discounts. */
const AMOUNT_CONCEPTS = ["3", "4", "5", "6"];

const CreditedLine = z
  .strictObject({
    line_id: uuid.meta({ description: "A line of the invoice." }),
    quantity: positiveDecimal(12, 6, "2.5")
      .meta({ description: "Units returned at the line's unit price (concept 1)." })
      .optional(),
    amount: positiveDecimal(16, 2, "2000.00")
      .meta({ description: "Base amount before tax credited of the line (concepts 3 to 6)." })
      .optional(),
  })
  .refine((line) => (line.quantity === undefined) !== (line.amount === undefined), {
    message: "give either quantity or amount",
  })
  .meta({
    description: "Part of an invoice line: exactly one of a quantity of its units or a base amount of it.",
  });

export const CreditNoteRequest = orgScoped
  .extend({
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
      .min(1, "list at least one line, or leave line_ids out to credit everything still left")
      .max(1000)
      .refine((ids) => new Set(ids).size === ids.length, "line ids must be distinct")
      .meta({
        uniqueItems: true,
        description:
          "Lines credited in full: all that is left of each. Absent (and no lines): the whole invoice.",
      })
      .optional(),
    lines: z
      .array(CreditedLine)
      .min(1, "list at least one line, or leave lines out")
      .max(1000)
      .refine(
        (lines) => new Set(lines.map((l) => l.line_id)).size === lines.length,
        "each line may appear once",
      )
      .meta({
        description:
          "Partial credits instead of line_ids: a quantity of a line's units (concept 1, a return) or a base amount of it (concepts 3 to 6); each part's tax is at the line's rate, to the cent, such that a line's parts never carry more tax than the line and, once its base is all credited, exactly its tax (docs/api.md).",
      })
      .optional(),
  })
  .superRefine((body, ctx) => {
    if (body.lines === undefined) return;
    if (body.line_ids !== undefined) {
      ctx.addIssue({ code: "custom", path: ["lines"], message: "give lines or line_ids, not both" });
    }
    if (body.concept_code === "2") {
      ctx.addIssue({
        code: "custom",
        path: ["lines"],
        message: 'an annulment (concept "2") credits everything left: leave lines out',
      });
      return;
    }
    for (const [i, line] of body.lines.entries()) {
      if (line.quantity !== undefined && body.concept_code !== "1") {
        ctx.addIssue({
          code: "custom",
          path: ["lines", i, "quantity"],
          message: `a quantity returns units (concept "1"); concept "${body.concept_code}" credits an amount`,
        });
      }
      if (line.amount !== undefined && !AMOUNT_CONCEPTS.includes(body.concept_code)) {
        ctx.addIssue({
          code: "custom",
          path: ["lines", i, "amount"],
          message: 'an amount is credited under concepts "3" to "6"; concept "1" returns a quantity',
        });
      }
    }
  });
export type CreditNoteRequest = z.input<typeof CreditNoteRequest>;

export const CreditNoteResponse = noteResponse("credit_note_id", "credit_notes");
export type CreditNoteResponse = z.infer<typeof CreditNoteResponse>;

export const create = operation({
  summary: "Write a credit note for a transmitted invoice and send it",
  description:
    "Writes a credit note for lines of a transmitted invoice (a return of units, a discount, an " +
    "annulment: DIAN's correction concepts), numbers it in the company's credit note range and sends it " +
    "to the authority in the same call; the answer is the note's outcome, as /transmit's. What the notes " +
    "of an invoice credit never exceeds it. A note cannot be edited: one the authority rejected is " +
    "replaced by a new note for its lines.",
  input: CreditNoteRequest,
  output: CreditNoteResponse,
  roles: DOCUMENT_ROLES,
  announces: true, // its changes go to the org's webhooks right after the answer
  errors: ["not_found", "invalid_state", "business_rule"],
  example: {
    request: {
      org_id: EXAMPLE.org_id,
      invoice_id: EXAMPLE.invoice_id,
      concept_code: "1",
      reason: "Devolución de 2 unidades en mal estado",
      lines: [{ line_id: EXAMPLE.line_id, quantity: "2" }],
    },
    response: {
      credit_note_id: EXAMPLE.credit_note_id,
      status: "emitida",
      code: "accepted",
      message: "the authority accepted this credit note",
      authority_message: "La nota crédito electrónica NC4 ha sido autorizada.",
    },
  },
  handle: async (input, ctx) =>
    underIdField("credit_note_id", await createCreditNote({ input, ctx: transmitting(ctx) })),
});
