/**
 * POST /debit-notes/representation — keeps the debit note's PDF current in the private bucket and
 * answers where it is, with the same cache rules as an invoice's (shared/http/document-routes.ts).
 */
import type { z } from "zod";
import { debitNoteKind } from "../../shared/core/debit-notes/kind.ts";
import { representationRoute } from "../../shared/http/document-routes.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";

const route = representationRoute({
  kind: debitNoteKind,
  idField: "debit_note_id",
  noun: "debit note",
  example: {
    id: EXAMPLE.debit_note_id,
    path: `${EXAMPLE.org_id}/debit-notes/${EXAMPLE.debit_note_id}/nota-debito-ND1-4e7a2c9b1d05.pdf`,
    xmlPath: `${EXAMPLE.org_id}/debit-notes/${EXAMPLE.debit_note_id}/ad-ND1-9b3f0e6a2c71.xml`,
  },
});

export const RepresentationRequest = route.request;
export type RepresentationRequest = z.input<typeof RepresentationRequest>;
export const RepresentationResponse = route.response;
export type RepresentationResponse = z.infer<typeof RepresentationResponse>;
export const representation = route.operation;
