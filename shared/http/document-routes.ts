/**
 * The two operations every fiscal-document kind answers alike — re-query its status at the
 * authority, keep its PDF current — declared once. A kind's route file names its kind and the
 * field that carries the document's id (`invoice_id`, `credit_note_id`); docs/openapi.json shows
 * each kind's pair with its own field and accepted status.
 */
import { z } from "zod";
import type { DocumentKindSpec } from "../core/documents/kind.ts";
import { refreshDocument } from "../core/documents/refresh.ts";
import { documentRepresentation } from "../core/documents/representation.ts";
import { DOCUMENT_ROLES, operation, orgScoped, PROVIDER_ERRORS, uuid } from "./route.ts";

interface DocumentRoute<F extends string, A extends "transmitida" | "emitida"> {
  /** The kind, with its accepted status as a literal (`transmitida`, `emitida`). */
  kind: DocumentKindSpec & { accepted: A };
  /** The request and answer field that names the document. */
  idField: F;
  /** "invoice", "credit note": for the reference's summaries. */
  noun: string;
}

/** A request body naming one document by `F`; the schema is built at run time with that key. */
type Body<F extends string, Extra = unknown> = { org_id: string } & Record<F, string> & Extra;

const withArticle = (noun: string) => `${/^[aeiou]/.test(noun) ? "an" : "a"} ${noun}`;

/** POST …/refresh: `{ org_id, <id> }` → `{ <id>, status, message, authority_code, checked_at }`. */
export function refreshRoute<F extends string, A extends "transmitida" | "emitida">({
  kind,
  idField,
  noun,
}: DocumentRoute<F, A>) {
  const request = orgScoped.extend({ [idField]: uuid }) as unknown as z.ZodType<Body<F>, Body<F>>;
  const response = z.object({
    ...({ [idField]: z.string() } as Record<F, z.ZodString>),
    status: z.enum(["en_proceso", kind.accepted, "error"]),
    message: z.string(),
    authority_code: z.string().nullable(),
    checked_at: z.string(),
  });
  return {
    request,
    response,
    operation: operation({
      summary: `Re-query ${withArticle(noun)}'s status at the tax authority`,
      input: request,
      output: response,
      roles: DOCUMENT_ROLES,
      firstCallAuthorizes: true, // reading the document checks the membership
      errors: ["not_found", "invalid_state", "business_rule", ...PROVIDER_ERRORS],
      handle: async (input, ctx) => {
        const { org_id, [idField]: id } = input;
        const { document_id, ...rest } = await refreshDocument({
          kind,
          input: { org_id, document_id: id },
          ctx,
        });
        return { [idField]: document_id, ...rest } as z.input<typeof response>;
      },
    }),
  };
}

/**
 * POST …/representation: `{ org_id, <id>, regenerate? }` →
 * `{ path, filename, stamped, cached, generated_at, xml_path }`.
 */
export function representationRoute<F extends string, A extends "transmitida" | "emitida">({
  kind,
  idField,
  noun,
}: DocumentRoute<F, A>) {
  type Request = Body<F, { regenerate: boolean }>;
  const request = orgScoped.extend({
    [idField]: uuid,
    regenerate: z.boolean().default(false),
  }) as unknown as z.ZodType<Request, Body<F, { regenerate?: boolean }>>;
  const response = z.object({
    path: z.string(),
    filename: z.string(),
    stamped: z.boolean(),
    cached: z.boolean(),
    generated_at: z.string(),
    xml_path: z
      .string()
      .nullable()
      .describe(
        "The AttachedDocument XML (the UBL document and the authority's ApplicationResponse) in the same bucket, downloaded the same way; null until the authority accepted the document",
      ),
  });
  return {
    request,
    response,
    operation: operation({
      summary: `Keep the ${noun}'s PDF current in the private bucket and say where it is`,
      input: request,
      output: response,
      roles: DOCUMENT_ROLES,
      firstCallAuthorizes: true, // reading the document checks the membership
      errors: ["not_found", "business_rule", ...PROVIDER_ERRORS],
      handle: (input, ctx) => {
        const {
          org_id,
          regenerate,
          [idField]: id,
        } = input as {
          org_id: string;
          regenerate: boolean;
        } & Record<F, string>;
        return documentRepresentation({ kind, input: { org_id, document_id: id, regenerate }, ctx });
      },
    }),
  };
}
