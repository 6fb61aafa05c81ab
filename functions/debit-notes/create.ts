/**
 * POST /debit-notes — writes a debit note for a transmitted invoice and sends it at once: interest,
 * an expense to recover, a price change, anything else the invoice now charges more (DIAN's
 * debit-note concepts). Its lines are written as an invoice's — a description, a quantity, a unit
 * price and the same taxes and discounts or charges — and the database computes them as it computes
 * an invoice's (docs/adr/0009). HTTP 200 `{ debit_note_id, status, code, message }` whether the
 * authority accepted it (`emitida`), rejected it (`error`, reissuable) or has not answered yet
 * (`en_proceso`).
 */
import { z } from "zod";
import { createDebitNote } from "../../shared/core/debit-notes/create.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";
import { noteResponse, underIdField } from "../../shared/http/note-routes.ts";
import { DOCUMENT_ROLES, operation, orgScoped, transmitting, uuid } from "../../shared/http/route.ts";

/** A decimal written as text, without leading zeros; its bounds are its columns' (numeric(18,6)). */
const decimalText = (positive: boolean, example: string) =>
  z
    .string()
    .regex(
      new RegExp(`^${positive ? "(?=.*[1-9])" : ""}(0|[1-9][0-9]{0,11})(\\.[0-9]{1,6})?$`),
      `must be a decimal string ${positive ? "greater than 0" : "from 0"}, at most 12 digits and 6 decimals, e.g. "${example}"`,
    );

/** A number of a tax or a discount, as an invoice line writes it: a JSON number or decimal text. */
const amount = (description: string) =>
  z
    .union([z.number().min(0).max(999_999_999_999), z.string().regex(/^[0-9]{1,12}(\.[0-9]{1,6})?$/)])
    .meta({ description });

/** One tax of a line, as an invoice line's `taxes` (docs/creating-invoices.md); the database checks the rest. */
const Tax = z
  .strictObject({
    code: z
      .string()
      .regex(/^[0-9]{2}$/, 'must be DIAN\'s two-digit tax code, e.g. "01" (IVA)')
      .meta({
        description: "DIAN's tax: `01` IVA, `04` INC, `03` ICA, `22` bags, `34` IBUA, … (not withholdings).",
      }),
    percent: amount(
      "A percentage tax's rate (IVA 0, 5, 16 or 19; INC 2, 4, 8 or 16; others 0–100).",
    ).optional(),
    per_unit_amount: amount(
      "A per-unit tax's amount for every `per_quantity` units (2 decimals).",
    ).optional(),
    per_quantity: amount("The units `per_unit_amount` is for (default 1).").optional(),
    unit_measure: amount("What one unit sold measures in those units (default 1).").optional(),
    measure_unit_code: z
      .string()
      .regex(/^[A-Z0-9]{1,3}$/)
      .optional()
      .meta({ description: "UN/ECE rec. 20 unit of the measure (default `NIU`)." }),
  })
  .meta({
    description: "A tax of the line: `{ code, percent }` or, per unit, `{ code, per_unit_amount, … }`.",
  });

/** One discount or charge of a line, as an invoice line's `allowance_charges`. */
const AllowanceCharge = z
  .strictObject({
    charge: z.boolean().meta({ description: "`false` a discount, `true` a charge." }),
    reason_code: z
      .enum(["00", "01"])
      .optional()
      .meta({ description: "A discount's DIAN reason: `00`, `01`." }),
    reason: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: "Why the discount or charge, as the UBL's AllowanceChargeReason." }),
    percent: amount("A percentage of quantity × unit price.").optional(),
    amount: amount("An amount, in the invoice's currency (2 decimals).").optional(),
  })
  .meta({ description: "A discount or charge of the line: a percent or an amount." });

const DebitedLine = z
  .strictObject({
    description: z
      .string()
      .trim()
      .min(1, "must not be empty")
      .max(1000, "at most 1,000 characters")
      .meta({ description: "What is charged: the interest, the expense, the price change." }),
    quantity: decimalText(true, "1").meta({ description: "How many units, e.g. `1`." }),
    unit_price: decimalText(false, "15000").meta({
      description: "The price of one unit before taxes, in the invoice's currency (up to 6 decimals).",
    }),
    taxes: z.array(Tax).max(10, "at most 10 taxes").optional().meta({
      description: "The line's taxes, as an invoice line's; none: excluded from IVA.",
    }),
    allowance_charges: z.array(AllowanceCharge).max(10, "at most 10").optional().meta({
      description: "The line's discounts and charges, as an invoice line's; at most 10.",
    }),
    code: z
      .string()
      .trim()
      .min(1)
      .max(60)
      .optional()
      .meta({ description: "The item's code in your catalogue." }),
    unit_code: z
      .string()
      .regex(/^[A-Z0-9]{1,10}$/, "must be a UN/ECE rec. 20 unit code, e.g. 94")
      .optional()
      .meta({ description: "UN/ECE rec. 20 unit; default `94` (unit)." }),
  })
  .meta({ description: "A line the note charges: an invoice line's inputs." });

export const DebitNoteRequest = orgScoped.extend({
  invoice_id: uuid.meta({ description: "The `transmitida` invoice whose value the note raises." }),
  concept_code: z
    .enum(["1", "2", "3", "4"], { error: 'must be a DIAN debit-note concept: "1" to "4", as a string' })
    .meta({
      description:
        "DIAN's debit-note concept: `1` intereses (interest), `2` gastos por cobrar (expenses to " +
        "recover), `3` cambio del valor (a change of value), `4` otros (other).",
    }),
  reason: z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(500, "at most 500 characters")
    .meta({ description: "Why the invoice is raised; 1 to 500 characters once trimmed." }),
  lines: z
    .array(DebitedLine)
    .min(1, "list at least one line")
    .max(1000, "at most 1,000 lines")
    .meta({ description: "What the note charges, 1 to 1,000 lines, each computed as an invoice line." }),
});
export type DebitNoteRequest = z.input<typeof DebitNoteRequest>;

export const DebitNoteResponse = noteResponse("debit_note_id", "debit_notes");
export type DebitNoteResponse = z.infer<typeof DebitNoteResponse>;

export const create = operation({
  summary: "Write a debit note for a transmitted invoice and send it",
  description:
    "Writes a debit note that raises what a transmitted invoice charged (interest, expenses to recover, " +
    "a price corrected upwards, others: DIAN's four debit-note concepts), with lines written as an " +
    "invoice's (the database computes their taxes and totals), numbers it in the company's debit note " +
    "range and sends it to the authority in the same call; the answer is the note's outcome, as /transmit's.",
  input: DebitNoteRequest,
  output: DebitNoteResponse,
  roles: DOCUMENT_ROLES,
  announces: true, // its changes go to the org's webhooks right after the answer
  errors: ["not_found", "invalid_state", "business_rule"],
  example: {
    request: {
      org_id: EXAMPLE.org_id,
      invoice_id: EXAMPLE.invoice_id,
      concept_code: "1",
      reason: "Intereses de mora: 30 días sobre el saldo vencido",
      lines: [{ description: "Intereses de mora (2 % mensual)", quantity: "1", unit_price: "47600" }],
    },
    response: {
      debit_note_id: EXAMPLE.debit_note_id,
      status: "emitida",
      code: "accepted",
      message: "the authority accepted this debit note",
      authority_message: "La nota débito electrónica ND1 ha sido autorizada.",
    },
  },
  handle: async (input, ctx) =>
    underIdField("debit_note_id", await createDebitNote({ input, ctx: transmitting(ctx) })),
});
