/**
 * POST /representation — keeps the invoice's PDF current in the private bucket and answers where it
 * is: `{ path, filename, stamped, cached, generated_at }`. The caller downloads it with their own
 * session; the bytes never pass through here.
 */
import { z } from "zod";
import {
  invoiceRepresentation,
  type RepresentationResult,
} from "../../shared/core/invoices/representation.ts";
import { DOCUMENT_ROLES, operation, orgScoped } from "../../shared/http/route.ts";
import { providerDirectory } from "./providers.ts";

export const RepresentationRequest = orgScoped.extend({
  invoice_id: z.guid({ error: "must be a UUID" }),
  regenerate: z.boolean().default(false),
});
export type RepresentationRequest = z.input<typeof RepresentationRequest>;
export type RepresentationResponse = RepresentationResult;

export const representation = operation({
  input: RepresentationRequest,
  roles: DOCUMENT_ROLES,
  handle: (input, ctx): Promise<RepresentationResponse> =>
    invoiceRepresentation({
      input: { ...input, invoice_id: input.invoice_id.toLowerCase() },
      ctx: { serviceDb: ctx.serviceDb, providers: providerDirectory(ctx), documents: ctx.deps.documents },
    }),
});
