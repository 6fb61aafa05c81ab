/**
 * POST /debit-notes/deliver — e-mails an accepted (`emitida`) debit note's AttachedDocument and
 * stamped PDF, in one ZIP, to the buyer, or to `to`, exactly as /deliver does an invoice's
 * (shared/http/deliver-route.ts): the same records, repeats, limits and retries; DIAN's subject with
 * type 92. Answers `{ debit_note_id, delivery_id, to, status, message }`.
 */
import type { z } from "zod";
import { debitNoteKind } from "../../shared/core/debit-notes/kind.ts";
import { deliverRoute } from "../../shared/http/deliver-route.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";

const route = deliverRoute({
  kind: debitNoteKind,
  idField: "debit_note_id",
  noun: "debit note",
  exampleId: EXAMPLE.debit_note_id,
  summary: "E-mail an accepted debit note with its PDF and AttachedDocument",
});

export const DeliverRequest = route.request;
export type DeliverRequest = z.input<typeof DeliverRequest>;
export const DeliverResponse = route.response;
export type DeliverResponse = z.infer<typeof DeliverResponse>;
export const deliver = route.operation;
