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
import { DOCUMENT_ROLES, operation, orgScoped, uuid } from "../../shared/http/route.ts";
import { providerDirectory } from "./providers.ts";

export const RepresentationRequest = orgScoped.extend({
  invoice_id: uuid,
  regenerate: z.boolean().default(false),
});
export type RepresentationRequest = z.input<typeof RepresentationRequest>;
export type RepresentationResponse = RepresentationResult;

export const representation = operation({
  input: RepresentationRequest,
  roles: DOCUMENT_ROLES,
  handle: (input, ctx): Promise<RepresentationResponse> =>
    invoiceRepresentation({
      input,
      ctx: { serviceDb: ctx.serviceDb, providers: providerDirectory(ctx), documents: ctx.deps.documents },
    }),
});
