/**
 * POST /credit-notes/deliver — e-mails an accepted (`emitida`) credit note's AttachedDocument and
 * stamped PDF, in one ZIP, to the buyer, or to `to`, exactly as /deliver does an invoice's
 * (shared/http/deliver-route.ts): the same records, repeats, limits and retries. Answers
 * `{ credit_note_id, delivery_id, to, status, message }`.
 */
import type { z } from "zod";
import { creditNoteKind } from "../../shared/core/credit-notes/kind.ts";
import { deliverRoute } from "../../shared/http/deliver-route.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";

const route = deliverRoute({
  kind: creditNoteKind,
  idField: "credit_note_id",
  noun: "credit note",
  exampleId: EXAMPLE.credit_note_id,
  summary: "E-mail an accepted credit note with its PDF and AttachedDocument",
});

export const DeliverRequest = route.request;
export type DeliverRequest = z.input<typeof DeliverRequest>;
export const DeliverResponse = route.response;
export type DeliverResponse = z.infer<typeof DeliverResponse>;
export const deliver = route.operation;
