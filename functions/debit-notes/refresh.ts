/** POST /debit-notes/refresh — re-queries the authority's status of a debit note (shared/http/document-routes.ts). */
import type { z } from "zod";
import { debitNoteKind } from "../../shared/core/debit-notes/kind.ts";
import { refreshRoute } from "../../shared/http/document-routes.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";

const route = refreshRoute({
  kind: debitNoteKind,
  idField: "debit_note_id",
  noun: "debit note",
  example: {
    id: EXAMPLE.debit_note_id,
    path: `${EXAMPLE.org_id}/debit-notes/${EXAMPLE.debit_note_id}/nota-debito-ND1-4e7a2c9b1d05.pdf`,
    xmlPath: `${EXAMPLE.org_id}/debit-notes/${EXAMPLE.debit_note_id}/ad-ND1-9b3f0e6a2c71.xml`,
  },
});

export const RefreshRequest = route.request;
export type RefreshRequest = z.input<typeof RefreshRequest>;
export const RefreshResponse = route.response;
export type RefreshResponse = z.infer<typeof RefreshResponse>;
export const refresh = route.operation;
