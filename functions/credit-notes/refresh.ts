/** POST /credit-notes/refresh — re-queries the authority's status of a credit note (shared/http/document-routes.ts). */
import type { z } from "zod";
import { creditNoteKind } from "../../shared/core/credit-notes/kind.ts";
import { refreshRoute } from "../../shared/http/document-routes.ts";

const route = refreshRoute({ kind: creditNoteKind, idField: "credit_note_id", noun: "credit note" });

export const RefreshRequest = route.request;
export type RefreshRequest = z.input<typeof RefreshRequest>;
export const RefreshResponse = route.response;
export type RefreshResponse = z.infer<typeof RefreshResponse>;
export const refresh = route.operation;
