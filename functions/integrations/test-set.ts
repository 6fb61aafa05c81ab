/**
 * POST /integrations/test-set (admin) — habilitación's test set in one call (DESIGN §14,
 * docs/dian.md "Send the test set"). For a company in habilitación whose `uat` adapter-tax
 * credential is in DIAN mode with a `test_set_id`, issues the set's invoices, credit notes and debit
 * notes (marked as the set's, numbered apart from the company's own), sends them, follows DIAN's
 * batch validation, and answers where the set stands: `{ status: "en_proceso" | "aceptado" |
 * "rechazado", test_set_id, invoices: { sent, accepted, rejected, required }, credit_notes, debit_notes,
 * message }`. Called again, it reports progress and sends only what is still missing; it never
 * sends again what DIAN accepted or rejected. Each call works within a time budget.
 */
import { z } from "zod";
import { runTestSet } from "../../shared/core/integrations/test-set.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";
import { ADMIN_ONLY, operation, orgScoped, transmitting, uuid } from "../../shared/http/route.ts";

/** At most this many documents of one kind: DIAN takes at most 50 in a test set's ZIP (brief-business §2). */
export const MAX_TEST_SET_DOCUMENTS = 50;

const count = (what: string) =>
  z
    .number()
    .int("must be a whole number")
    .min(0, "must be 0 or more")
    .max(MAX_TEST_SET_DOCUMENTS, `must be at most ${MAX_TEST_SET_DOCUMENTS}`)
    .meta({ description: what });

/**
 * One kind's numbers, as DIAN's portal shows them under "Detalles del set de pruebas". Defaults:
 * the one set observed on the portal (brief-business §2): 30 invoices, 10 credit notes and 10 debit
 * notes, of which at least 1 invoice accepted.
 */
const target = (send: number, accept: number, noun: string) =>
  z
    .strictObject({
      send: count(`The most ${noun} to send (the set's total of them). Default ${send}.`).default(send),
      accept: count(`The minimum of ${noun} DIAN must accept. Default ${accept}.`).default(accept),
    })
    .default({ send, accept })
    .meta({ description: `The set's ${noun}: \`{ send, accept }\`.` });

/** Each kind's `accept` at most its `send`, and one document at least to accept: the operation refuses the rest (422). */
export const TestSetRequest = orgScoped.extend({
  company_id: uuid.meta({ description: "A company of this organization, in habilitación (uat)." }),
  invoices: target(30, 1, "invoices"),
  credit_notes: target(10, 0, "credit notes"),
  debit_notes: target(10, 0, "debit notes"),
});
export type TestSetRequest = z.input<typeof TestSetRequest>;

const KindProgress = z
  .object({
    sent: z.number().int().meta({ description: "Documents of the kind sent to DIAN under the set." }),
    accepted: z.number().int().meta({ description: "Of them, accepted by DIAN." }),
    rejected: z.number().int().meta({
      description:
        "Of them, rejected by DIAN's validation (`error`, with its rules); not those answered with the closed set's status (GetStatusZip status 2).",
    }),
    required: z.number().int().meta({ description: "The minimum accepted the set asks for." }),
  })
  .meta({ description: "One kind's progress in the set." });

export const TestSetResponse = z.object({
  status: z.enum(["en_proceso", "aceptado", "rechazado"]).meta({
    description:
      "The set's status in DIAN's words: `aceptado` once every kind reached the minimum given (or DIAN said so), " +
      "`rechazado` once the rejections exceed what the set absorbs (or DIAN said so), else `en_proceso`: call again.",
  }),
  confirmed_by_dian: z.boolean().meta({
    description:
      "Whether DIAN itself said the set's status (GetStatusZip's \"Set de prueba … se encuentra Aceptado.\"); " +
      "false: the service worked it out from the counts and the minimums in the request, as DIAN's validator " +
      "does — check DIAN's portal before going to production.",
  }),
  test_set_id: z.string().meta({ description: "DIAN's TestSetId, from the uat credential's settings." }),
  invoices: KindProgress,
  credit_notes: KindProgress,
  debit_notes: KindProgress,
  message: z.string().meta({ description: "Where the set stands and what to do next, in English." }),
});
export type TestSetResponse = z.infer<typeof TestSetResponse>;

export const integrationTestSet = operation({
  summary: "Run DIAN's habilitación test set in one call (admin)",
  description:
    "For a company in habilitación whose uat adapter-tax credential is in DIAN mode with a test_set_id: " +
    "issues the set's invoices, credit notes and debit notes (fictitious content, marked as the set's and " +
    "numbered apart from the company's own), sends them through SendTestSetAsync, follows DIAN's " +
    "validation (GetStatusZip), and answers the set's progress. Call it again until the status is not " +
    "`en_proceso`: each call works within a time budget, sends only what is still missing and never " +
    "sends again what DIAN accepted or rejected. 422 when the company is not in DIAN mode, has no " +
    "test_set_id or is in production (prd), when a kind's `accept` exceeds its `send`, when nothing " +
    "is to be accepted, or when notes must be accepted and invoices.send is 0 (notes are of an accepted " +
    "invoice of the set). Admins only.",
  input: TestSetRequest,
  output: TestSetResponse,
  roles: ADMIN_ONLY,
  announces: true, // the documents' changes go to the org's webhooks right after the answer
  // only DIAN's own word is kept for an Idempotency-Key: a retry of anything else asks again
  isFinal: (result) => result.confirmed_by_dian,
  errors: ["not_found", "invalid_state", "business_rule", "provider_error", "provider_timeout"],
  example: {
    request: {
      org_id: EXAMPLE.org_id,
      company_id: EXAMPLE.company_id,
      invoices: { send: 30, accept: 1 },
      credit_notes: { send: 10, accept: 0 },
      debit_notes: { send: 10, accept: 0 },
    },
    response: {
      status: "aceptado",
      confirmed_by_dian: false,
      test_set_id: "1cc8a4f3-2ff9-45ff-bc33-9f0d2f0bd1b4",
      invoices: { sent: 1, accepted: 1, rejected: 0, required: 1 },
      credit_notes: { sent: 0, accepted: 0, rejected: 0, required: 0 },
      debit_notes: { sent: 0, accepted: 0, rejected: 0, required: 0 },
      message:
        "The test set reached every minimum you gave: DIAN's validator accepts a set then. Check that DIAN's portal shows it Aceptado, then go on to production (docs/dian.md, step 5).",
    },
  },
  handle: (input, ctx) =>
    runTestSet({
      input,
      ctx: { ...transmitting(ctx), budgetMs: ctx.deps.config.reconcile.budgetMs },
    }),
});
