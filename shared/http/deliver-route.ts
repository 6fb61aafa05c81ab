/**
 * POST …/deliver for every fiscal-document kind, declared once (like ./document-routes.ts): a kind's
 * route file names its kind and the field that carries the document's id (`invoice_id`,
 * `credit_note_id`). The work is ../core/documents/deliver.ts, the same for every kind.
 */
import { z } from "zod";
import { deliverDocument } from "../core/documents/deliver.ts";
import type { DocumentKindSpec } from "../core/documents/kind.ts";
import { EmailAddress } from "../providers/deliver.ts";
import { DOCUMENT_ROLES, operation, orgScoped, PROVIDER_ERRORS, uuid } from "./route.ts";

/** `{ org_id, <id>, to? }`; the schema is built at run time with that key. */
type Body<F extends string> = { org_id: string; to?: string | undefined } & Record<F, string>;

/** `{ org_id, <id>, to? }` → `{ <id>, delivery_id, to, status, message }`. */
export function deliverRoute<F extends string>({
  kind,
  idField,
  summary,
}: {
  kind: DocumentKindSpec;
  /** The request and answer field that names the document. */
  idField: F;
  /** One line for the API reference. */
  summary: string;
}) {
  const request = orgScoped.extend({
    [idField]: uuid,
    to: EmailAddress.optional(),
  }) as unknown as z.ZodType<Body<F>, Body<F>>;
  const response = z.object({
    ...({ [idField]: z.string() } as Record<F, z.ZodString>),
    delivery_id: z.string(),
    to: z.string(),
    /** `pendiente`: a delivery of this document to this address is under way; it is not sent twice. */
    status: z.enum(["enviada", "error", "pendiente"]),
    message: z.string(),
  });
  return {
    request,
    response,
    operation: operation({
      summary,
      input: request,
      output: response,
      roles: DOCUMENT_ROLES,
      // rate_limited (in PROVIDER_ERRORS) is also the route's own hourly limits
      errors: ["not_found", "invalid_state", "business_rule", ...PROVIDER_ERRORS],
      handle: async (input, ctx) => {
        const { org_id, to, [idField]: id } = input as Body<F>;
        const { perDocument, perOrganization, windowSeconds } = ctx.deps.config.deliver;
        const limits = {
          per_document: perDocument,
          per_organization: perOrganization,
          window_seconds: windowSeconds,
        };
        const { document_id, ...rest } = await deliverDocument({
          kind,
          input: { org_id, document_id: id, to },
          ctx: { ...ctx, limits, providerTimeoutMs: ctx.deps.config.providers.timeoutMs },
        });
        return { [idField]: document_id, ...rest } as z.input<typeof response>;
      },
    }),
  };
}
