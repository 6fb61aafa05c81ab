/**
 * POST /credit-notes/representation — keeps the credit note's PDF current in the private bucket and
 * answers where it is, with the same cache rules as an invoice's (shared/http/document-routes.ts).
 */
import type { z } from "zod";
import { creditNoteKind } from "../../shared/core/credit-notes/kind.ts";
import { representationRoute } from "../../shared/http/document-routes.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";

const route = representationRoute({
  kind: creditNoteKind,
  idField: "credit_note_id",
  noun: "credit note",
  example: {
    id: EXAMPLE.credit_note_id,
    path: `${EXAMPLE.org_id}/credit-notes/${EXAMPLE.credit_note_id}/nota-credito-NC4-2b9c0d1e7f3a.pdf`,
    xmlPath: `${EXAMPLE.org_id}/credit-notes/${EXAMPLE.credit_note_id}/ad-NC4-0c9e4b7a1d2f.xml`,
  },
});

export const RepresentationRequest = route.request;
export type RepresentationRequest = z.input<typeof RepresentationRequest>;
export const RepresentationResponse = route.response;
export type RepresentationResponse = z.infer<typeof RepresentationResponse>;
export const representation = route.operation;
