/**
 * POST /credit-notes/representation — keeps the credit note's PDF current in the private bucket and
 * answers where it is, with the same cache rules as an invoice's (shared/http/document-routes.ts).
 */
import type { z } from "zod";
import { creditNoteKind } from "../../shared/core/credit-notes/kind.ts";
import { representationRoute } from "../../shared/http/document-routes.ts";

const route = representationRoute({ kind: creditNoteKind, idField: "credit_note_id", noun: "credit note" });

export const RepresentationRequest = route.request;
export type RepresentationRequest = z.input<typeof RepresentationRequest>;
export const RepresentationResponse = route.response;
export type RepresentationResponse = z.infer<typeof RepresentationResponse>;
export const representation = route.operation;
