/**
 * POST …/deliver for every fiscal-document kind, declared once (like ./document-routes.ts): a kind's
 * route file names its kind and the field that carries the document's id (`invoice_id`,
 * `credit_note_id`). The work is ../core/documents/deliver.ts, the same for every kind.
 */
import { z } from "zod";
import { deliverDocument } from "../core/documents/deliver.ts";
import type { DocumentKindSpec } from "../core/documents/kind.ts";
import { EmailAddress } from "../ports/providers/deliver.ts";
import { EXAMPLE } from "./examples.ts";
import { resultCode, resultMessage } from "./result-fields.ts";
import { DOCUMENT_ROLES, operation, orgScoped, PROVIDER_ERRORS, uuid } from "./route.ts";

/** `{ org_id, <id>, to? }`; the schema is built at run time with that key. */
type Body<F extends string> = { org_id: string; to?: string | undefined } & Record<F, string>;

/** `{ org_id, <id>, to? }` → `{ <id>, delivery_id, to, status, message }`. */
export function deliverRoute<F extends string>({
  kind,
  idField,
  noun,
  summary,
  exampleId,
}: {
  kind: DocumentKindSpec;
  /** The request and answer field that names the document. */
  idField: F;
  /** "invoice", "credit note": for the reference's descriptions. */
  noun: string;
  /** One line for the API reference. */
  summary: string;
  /** A document id for the reference's example. */
  exampleId: string;
}) {
  const request = orgScoped.extend({
    [idField]: uuid.meta({ description: `An accepted ${noun} of this organization.` }),
    to: EmailAddress.optional().meta({ description: "Where to send it; the buyer's e-mail when left out." }),
  }) as unknown as z.ZodType<Body<F>, Body<F>>;
  const response = z.object({
    ...({ [idField]: z.string().meta({ description: `The ${noun}, as requested.` }) } as Record<
      F,
      z.ZodString
    >),
    delivery_id: z.string().meta({ description: "The delivery's record (the table `deliveries`)." }),
    to: z.string().meta({ description: "The address it was sent to." }),
    /** `pendiente`: a delivery of this document to this address is under way; it is not sent twice. */
    status: z.enum(["enviada", "error", "pendiente"]).meta({
      description:
        "`enviada`: the provider took the e-mail; `error`: it refused or failed (retried by reconcile " +
        "unless the address bounced); `pendiente`: a delivery to this address is under way, not sent twice.",
    }),
    code: resultCode("delivery"),
    message: resultMessage,
    provider_message: z.string().optional().meta({
      description:
        "The deliver provider's own words about the e-mail (a bounce's reason), as it wrote them; present when it gave them.",
    }),
  });
  return {
    request,
    response,
    operation: operation({
      description:
        `E-mails the ${noun} to its buyer (or to \`to\`) through the company's deliver provider, with its ` +
        "PDF and the AttachedDocument XML zipped as DIAN asks, and records the delivery. The same document " +
        "to the same address moments later is not sent twice (`already_sent`); deliveries per document and " +
        "per organization are limited per hour by default (429 with `Retry-After`).",
      summary,
      input: request,
      output: response,
      roles: DOCUMENT_ROLES,
      announces: true, // its changes go to the org's webhooks right after the answer
      // "under way" is about another call's delivery: a retry under the same key asks again
      isFinal: (result) => (result as { status?: string }).status !== "pendiente",
      // rate_limited (in PROVIDER_ERRORS) is also the route's own hourly limits
      errors: ["not_found", "invalid_state", "business_rule", ...PROVIDER_ERRORS],
      example: {
        request: { org_id: EXAMPLE.org_id, [idField]: exampleId } as Body<F>,
        response: {
          [idField]: exampleId,
          delivery_id: EXAMPLE.delivery_id,
          to: "facturacion@cliente.com.co",
          status: "enviada",
          code: "sent",
          message: "Sent to facturacion@cliente.com.co.",
          provider_message: "Mensaje enviado a facturacion@cliente.com.co.",
        } as z.input<typeof response>,
      },
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
