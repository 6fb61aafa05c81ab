/** POST /credit-notes/refresh — re-queries the authority's status of a credit note (shared/http/document-routes.ts). */
import type { z } from "zod";
import { creditNoteKind } from "../../shared/core/credit-notes/kind.ts";
import { refreshRoute } from "../../shared/http/document-routes.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";

const route = refreshRoute({
  kind: creditNoteKind,
  idField: "credit_note_id",
  noun: "credit note",
  example: {
    id: EXAMPLE.credit_note_id,
    path: `${EXAMPLE.org_id}/credit-notes/${EXAMPLE.credit_note_id}/nota-credito-NC4-2b9c0d1e7f3a.pdf`,
    xmlPath: `${EXAMPLE.org_id}/credit-notes/${EXAMPLE.credit_note_id}/ad-NC4-0c9e4b7a1d2f.xml`,
  },
});

export const RefreshRequest = route.request;
export type RefreshRequest = z.input<typeof RefreshRequest>;
export const RefreshResponse = route.response;
export type RefreshResponse = z.infer<typeof RefreshResponse>;
export const refresh = route.operation;
