/**
 * POST /transmit — sends 1 to 50 invoices to the tax authority. HTTP 200 with one result per
 * requested invoice, in request order, even when some of them end in `error`.
 */
import { z } from "zod";
import { transmitDocuments } from "../../shared/core/documents/transmit.ts";
import { invoiceKind } from "../../shared/core/invoices/kind.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";
import { documentResultFields } from "../../shared/http/result-fields.ts";
import { DOCUMENT_ROLES, operation, orgScoped, transmitting, uuid } from "../../shared/http/route.ts";

export const MAX_INVOICES_PER_CALL = 50;

export const TransmitRequest = orgScoped.extend({
  invoice_ids: z
    .array(uuid)
    .min(1, "send at least one invoice id")
    .max(MAX_INVOICES_PER_CALL, `at most ${MAX_INVOICES_PER_CALL} invoices per call`)
    .refine((ids) => new Set(ids).size === ids.length, "invoice ids must be distinct")
    .meta({
      uniqueItems: true,
      description: "The invoices to send: 1 to 50 distinct ids of this organization.",
    }),
  reissue: z
    .boolean()
    .default(false)
    .meta({ description: "Also send again the invoices that ended in `error` (each with a new attempt)." }),
});
export type TransmitRequest = z.input<typeof TransmitRequest>;

export const TransmitResponse = z.object({
  results: z
    .array(
      z.object({
        invoice_id: z.string().meta({ description: "The invoice, as requested." }),
        status: z.enum(["pendiente", "en_proceso", "transmitida", "error"]).meta({
          description:
            "`transmitida`: accepted by the authority; `error`: rejected or not sent (see message); " +
            "`en_proceso`: sent, outcome not known yet (reconcile settles it); `pendiente`: not sent.",
        }),
        ...documentResultFields("transmission"),
      }),
    )
    .meta({ description: "One entry per requested invoice, in the order requested." }),
});
export type TransmitResponse = z.infer<typeof TransmitResponse>;

export const transmit = operation({
  summary: "Transmit 1 to 50 invoices to the tax authority",
  description:
    "Sends the listed invoices to the tax authority (DIAN) through each company's invoicing provider, " +
    "at most once each whatever the network does, and answers one result per invoice: its `status`, a " +
    "`code` to branch on (accepted, rejected with DIAN's rules in `authority_rules`, still pending, or " +
    "not sent and why) and a `message`. An accepted invoice is never sent again; one in `error` is sent " +
    "again only with `reissue: true`; one that fails the checks made before sending stays `pendiente`, " +
    "editable. The issue date and time are stamped when it is first sent.",
  input: TransmitRequest,
  output: TransmitResponse,
  roles: DOCUMENT_ROLES,
  // its changes go to the org's webhooks right after the answer, when its calls say any wait
  announces: "when_waiting",
  errors: [],
  example: {
    request: { org_id: EXAMPLE.org_id, invoice_ids: [EXAMPLE.invoice_id, EXAMPLE.second_invoice_id] },
    response: {
      results: [
        {
          invoice_id: EXAMPLE.invoice_id,
          status: "transmitida",
          code: "accepted",
          message: "the authority accepted this invoice",
          authority_message: "La factura electrónica SETP990000001 ha sido autorizada.",
        },
        {
          invoice_id: EXAMPLE.second_invoice_id,
          status: "error",
          code: "rejected",
          message:
            "the authority rejected this invoice (FAJ44b; see authority_rules); correct it, then pass reissue: true to send it again",
          authority_message:
            "Documento rechazado. FAJ44b: El número de identificación del adquiriente (999999999) no está registrado en el RUT.",
          authority_rules: [
            {
              rule: "FAJ44b",
              kind: "rechazo",
              message:
                "El número de identificación del adquiriente (999999999) no está registrado en el RUT.",
            },
          ],
        },
      ],
    },
  },
  firstCallAuthorizes: true, // the claim checks the membership
  handle: async ({ org_id, invoice_ids, reissue }, ctx) => {
    const results = await transmitDocuments({
      kind: invoiceKind,
      input: { org_id, document_ids: invoice_ids, reissue },
      ctx: transmitting(ctx),
    });
    return {
      results: results.map(({ document_id, status, ...result }) => ({
        invoice_id: document_id,
        status: status as TransmitResponse["results"][number]["status"],
        ...result,
      })),
    };
  },
});
