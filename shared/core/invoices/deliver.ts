/**
 * deliverInvoice: e-mails a transmitted invoice's stamped PDF through the company's deliver
 * provider, to the buyer's address or the one given, and records the delivery. A delivery has its
 * own status (enviada / error), never mixed with the invoice's fiscal status.
 */
import type { DbScope } from "../../db/port.ts";
import type { DocumentRecord } from "../../db/rows.ts";
import { BusinessRuleError, InvalidStateError } from "../../errors.ts";
import { type DeliveryOutcome, deliveryIdempotencyKey } from "../../providers/deliver.ts";
import type { ProviderDirectory } from "../../providers/directory.ts";
import { ProviderError } from "../../providers/errors.ts";
import { ProviderRequestError } from "../../providers/transport.ts";
import type { DocumentStore } from "../../storage/port.ts";
import { storable } from "../documents/outcome.ts";
import { ensureDocumentPdf } from "../documents/representation.ts";
import { invoiceKind } from "./kind.ts";

export interface DeliverInput {
  org_id: string;
  invoice_id: string;
  /** Overrides the buyer's e-mail address. */
  to?: string | undefined;
}

export interface DeliverResult {
  invoice_id: string;
  delivery_id: string;
  to: string;
  status: "enviada" | "error";
  message: string;
}

export interface DeliverContext {
  serviceDb: DbScope;
  providers: ProviderDirectory;
  documents: DocumentStore;
  actorId: string;
}

export async function deliverInvoice({
  ctx,
  input,
}: {
  ctx: DeliverContext;
  input: DeliverInput;
}): Promise<DeliverResult> {
  const invoice = (await ctx.serviceDb.call("einv_document_get", {
    p_org_id: input.org_id,
    p_kind: "invoice",
    p_document_id: input.invoice_id,
  })) as DocumentRecord<"invoice">;
  const { document, fiscal } = invoice;
  if (fiscal.status !== "transmitida" || !fiscal.environment) {
    throw new InvalidStateError(`Only a transmitted invoice can be delivered; this one is ${fiscal.status}.`);
  }
  const to = input.to ?? document.buyer_email;
  if (!to) {
    throw new BusinessRuleError(
      "The invoice has no buyer e-mail address; pass `to` with the address to send it to.",
    );
  }
  const channel = await ctx.providers.deliveryChannel(input.org_id, document.company_id, fiscal.environment);

  // The stamped PDF, made current first; read back from the bucket when it already was.
  const pdfInput = { org_id: input.org_id, document_id: input.invoice_id };
  const rendered = await ensureDocumentPdf({
    ctx,
    kind: invoiceKind,
    input: { ...pdfInput, regenerate: false },
    record: invoice,
  });
  const pdf =
    rendered.bytes ??
    (await ctx.documents.get(rendered.result.path)) ??
    (await ensureDocumentPdf({ ctx, kind: invoiceKind, input: { ...pdfInput, regenerate: true } })).bytes;
  if (!pdf) throw new Error(`the PDF of invoice ${input.invoice_id} could not be produced`);

  const { delivery_id } = await ctx.serviceDb.call("einv_delivery_begin", {
    p_org_id: input.org_id,
    p_invoice_id: input.invoice_id,
    p_recipient: to,
    p_actor_id: ctx.actorId,
  });
  // Company names are free text: a CR/LF in a subject would be a header injection, so it is one line.
  const issuer = oneLine(document.company.trade_name) || oneLine(document.company.legal_name);
  let outcome: DeliveryOutcome | ProviderError;
  try {
    outcome = await channel.send(
      {
        reference: delivery_id,
        to: [to],
        subject: oneLine(`Factura electrónica ${document.number} de ${issuer}`),
        text:
          `Adjuntamos la factura electrónica ${document.number} de ${issuer}, validada por la DIAN ` +
          `(CUFE ${fiscal.authority_code}).`,
        attachments: [
          { filename: `factura-${document.number}.pdf`, content_type: "application/pdf", content: pdf },
        ],
      },
      { idempotencyKey: deliveryIdempotencyKey(delivery_id) },
    );
  } catch (error) {
    if (error instanceof ProviderError) {
      outcome = error;
    } else if (error instanceof ProviderRequestError) {
      // Refused before sending (nothing reached the provider): the stored data breaks the protocol,
      // e.g. a buyer address that is not one. The delivery is closed as failed, the caller told why.
      const problems = error.details.map((d) => `${d.field}: ${d.message}`).join("; ");
      const message = `The e-mail could not be sent: the message is not valid (${problems}).`;
      await recordFailure(ctx, input.org_id, delivery_id, message);
      throw new BusinessRuleError(message, { cause: error });
    } else {
      // Never leave the delivery `pendiente` behind an unexpected failure.
      await recordFailure(
        ctx,
        input.org_id,
        delivery_id,
        "The e-mail could not be sent: internal error.",
      ).catch(() => {});
      throw error;
    }
  }
  const sent = !(outcome instanceof ProviderError) && outcome.status === "sent";
  const recorded = await ctx.serviceDb.call("einv_delivery_record", {
    p_org_id: input.org_id,
    p_delivery_id: delivery_id,
    p_status: sent ? "enviada" : "error",
    p_message: storable(outcome.message),
    p_provider_reference: outcome instanceof ProviderError ? null : outcome.provider_reference,
  });
  // The delivery is recorded as failed; the caller still learns that the provider failed (502/504).
  if (outcome instanceof ProviderError) throw outcome;
  return {
    invoice_id: recorded.invoice_id,
    delivery_id: recorded.delivery_id,
    to: recorded.to,
    status: recorded.status,
    message: recorded.message,
  };
}

async function recordFailure(ctx: DeliverContext, orgId: string, deliveryId: string, message: string) {
  await ctx.serviceDb.call("einv_delivery_record", {
    p_org_id: orgId,
    p_delivery_id: deliveryId,
    p_status: "error",
    p_message: message,
    p_provider_reference: null,
  });
}

/** One line of text: control characters (CR, LF, tab, …), line separators and runs of spaces become one space. */
function oneLine(value: unknown): string {
  return typeof value === "string" ? value.replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, " ").trim() : "";
}
