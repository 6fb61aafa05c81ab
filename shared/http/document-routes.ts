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
import { EXAMPLE } from "./examples.ts";
import { documentResultFields } from "./result-fields.ts";
import { DOCUMENT_ROLES, operation, orgScoped, PROVIDER_ERRORS, uuid } from "./route.ts";

interface DocumentRoute<F extends string, A extends "transmitida" | "emitida"> {
  /** The kind, with its accepted status as a literal (`transmitida`, `emitida`). */
  kind: DocumentKindSpec & { accepted: A };
  /** The request and answer field that names the document. */
  idField: F;
  /** "invoice", "credit note": for the reference's summaries. */
  noun: string;
  /** For the reference's examples: a document's id and where its PDF and its XML are kept. */
  example: { id: string; path: string; xmlPath: string };
}

/** A request body naming one document by `F`; the schema is built at run time with that key. */
type Body<F extends string, Extra = unknown> = { org_id: string } & Record<F, string> & Extra;

const withArticle = (noun: string) => `${/^[aeiou]/.test(noun) ? "an" : "a"} ${noun}`;
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** POST …/refresh: `{ org_id, <id> }` → `{ <id>, status, message, authority_code, checked_at }`. */
export function refreshRoute<F extends string, A extends "transmitida" | "emitida">({
  kind,
  idField,
  noun,
  example,
}: DocumentRoute<F, A>) {
  const request = orgScoped.extend({
    [idField]: uuid.meta({
      description: `${capitalised(withArticle(noun))} of this organization that was sent.`,
    }),
  }) as unknown as z.ZodType<Body<F>, Body<F>>;
  const response = z.object({
    ...({ [idField]: z.string().meta({ description: `The ${noun}, as requested.` }) } as Record<
      F,
      z.ZodString
    >),
    status: z.enum(["en_proceso", kind.accepted, "error"]).meta({
      description: `The ${noun}'s status after the query: \`${kind.accepted}\` accepted, \`error\` rejected or never received, \`en_proceso\` still undecided.`,
    }),
    ...documentResultFields("refresh"),
    authority_code: z
      .string()
      .nullable()
      .meta({ description: "The CUFE (invoice) or CUDE (note) once accepted; null before." }),
    checked_at: z.string().meta({ description: "When the authority was asked (ISO 8601)." }),
  });
  return {
    request,
    response,
    operation: operation({
      summary: `Re-query ${withArticle(noun)}'s status at the tax authority`,
      description:
        `Asks the provider now what became of ${withArticle(noun)} that was sent, and records the answer: ` +
        "accepted (with its CUFE or CUDE), rejected (with the rules it broke), or still undecided. Use it " +
        "after a pending or unknown outcome; the reconcile job asks the same of documents left open.",
      input: request,
      output: response,
      roles: DOCUMENT_ROLES,
      announces: true, // its changes go to the org's webhooks right after the answer
      firstCallAuthorizes: true, // reading the document checks the membership
      errors: ["not_found", "invalid_state", "business_rule", ...PROVIDER_ERRORS],
      example: {
        request: { org_id: EXAMPLE.org_id, [idField]: example.id } as Body<F>,
        response: {
          [idField]: example.id,
          status: kind.accepted,
          code: "accepted",
          message: `the authority accepted this ${noun}`,
          authority_message: "Documento validado por la DIAN.",
          authority_code: EXAMPLE.cufe,
          checked_at: EXAMPLE.at,
        } as z.input<typeof response>,
      },
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
  example,
}: DocumentRoute<F, A>) {
  type Request = Body<F, { regenerate: boolean }>;
  const request = orgScoped.extend({
    [idField]: uuid.meta({ description: `${capitalised(withArticle(noun))} of this organization.` }),
    regenerate: z
      .boolean()
      .default(false)
      .meta({ description: "Render the PDF again even when the kept one is current." }),
  }) as unknown as z.ZodType<Request, Body<F, { regenerate?: boolean }>>;
  const response = z.object({
    path: z.string().meta({
      description:
        "Where the PDF is in the private bucket `service-documentos`; download it with the user's session.",
    }),
    filename: z.string().meta({ description: "A file name to offer the user." }),
    stamped: z.boolean().meta({
      description: `Whether it carries the authority's stamp (CUFE/CUDE and QR): once the ${noun} is accepted.`,
    }),
    cached: z
      .boolean()
      .meta({ description: "Whether the kept PDF was current and reused, not rendered now." }),
    generated_at: z.string().meta({ description: "When the PDF was rendered (ISO 8601)." }),
    xml_path: z.string().nullable().meta({
      description:
        "The AttachedDocument XML (the UBL document and the authority's ApplicationResponse) in the same bucket, downloaded the same way; null until the authority accepted the document.",
    }),
  });
  return {
    request,
    response,
    operation: operation({
      summary: `Keep the ${noun}'s PDF current in the private bucket and say where it is`,
      description:
        `Renders the ${noun}'s PDF (the representación gráfica: once accepted, with the authority's code, ` +
        "the DIAN QR and the validation date) into the private bucket `service-documentos`, or reuses the " +
        "kept one when nothing it shows has changed, and answers its `path` (and the AttachedDocument " +
        "XML's, once accepted). Download it with the user's own session: " +
        '`supabase.storage.from("service-documentos").download(path)`.',
      input: request,
      output: response,
      roles: DOCUMENT_ROLES,
      firstCallAuthorizes: true, // reading the document checks the membership
      errors: ["not_found", "business_rule", ...PROVIDER_ERRORS],
      example: {
        request: { org_id: EXAMPLE.org_id, [idField]: example.id } as Body<F, { regenerate?: boolean }>,
        response: {
          path: example.path,
          filename: example.path.slice(example.path.lastIndexOf("/") + 1),
          stamped: true,
          cached: false,
          generated_at: EXAMPLE.at,
          xml_path: example.xmlPath,
        },
      },
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
