/**
 * What every kind of note (credit notes, debit notes) answers alike, declared once beside
 * ./document-routes.ts and ./deliver-route.ts: the answer of a route that sends a note (its create
 * and its reissue) and the reissue route itself. A kind's route file names its kind, the field that
 * carries the note's id (`credit_note_id`) and its table.
 */
import { z } from "zod";
import type { DocumentKindSpec } from "../core/documents/kind.ts";
import type { NoteKind } from "../core/notes/kind.ts";
import { type NoteResult, reissueNote } from "../core/notes/send.ts";
import { EXAMPLE } from "./examples.ts";
import { documentResultFields } from "./result-fields.ts";
import { DOCUMENT_ROLES, operation, orgScoped, transmitting, uuid } from "./route.ts";

/** `{ <id>, status, code, message, authority_message?, authority_rules? }`. */
export function noteResponse<F extends string>(idField: F, table: string) {
  return z.object({
    ...({
      [idField]: z.string().meta({ description: `The note (the table \`${table}\`).` }),
    } as Record<F, z.ZodString>),
    status: z.enum(["en_proceso", "emitida", "error"]).meta({
      description:
        "`emitida`: accepted by the authority; `error`: rejected or not sent (reissue it); `en_proceso`: " +
        "sent, outcome not known yet (reconcile settles it).",
    }),
    ...documentResultFields("transmission"),
  });
}

/** A note's result under its route's id field. */
export function underIdField<F extends string>(idField: F, { document_id, ...rest }: NoteResult) {
  return { [idField]: document_id, ...rest } as Record<F, string> & Omit<NoteResult, "document_id">;
}

/** POST …/reissue: `{ org_id, <id> }` → the note's answer; 409 unless it is in error (or left in progress). */
export function reissueRoute<F extends string, K extends NoteKind>({
  kind,
  idField,
  response,
  description,
  example,
}: {
  kind: DocumentKindSpec<K>;
  idField: F;
  response: ReturnType<typeof noteResponse<F>>;
  /** What the route does, for people (the API reference's text). */
  description: string;
  example: { id: string; response: z.input<ReturnType<typeof noteResponse<F>>> };
}) {
  const { noun } = kind.words;
  type Body = { org_id: string } & Record<F, string>;
  const request = orgScoped.extend({
    [idField]: uuid.meta({
      description: `A ${noun} of this organization in \`error\` (or left \`en_proceso\`).`,
    }),
  }) as unknown as z.ZodType<Body, Body>;
  return {
    request,
    operation: operation({
      summary: `Send again a ${noun} that ended in error (or was left in progress)`,
      description,
      input: request,
      output: response,
      roles: DOCUMENT_ROLES,
      announces: true, // its changes go to the org's webhooks right after the answer
      errors: ["not_found", "invalid_state"],
      example: {
        request: { org_id: EXAMPLE.org_id, [idField]: example.id } as Body,
        response: example.response,
      },
      handle: async (input, ctx) => {
        const { org_id, [idField]: id } = input as Body;
        const result = await reissueNote({
          kind,
          input: { org_id, document_id: id },
          ctx: transmitting(ctx),
        });
        return underIdField(idField, result) as z.input<typeof response>;
      },
    }),
  };
}
