/**
 * deliverInvoice: e-mails a transmitted invoice to the buyer's address or the one given, through the
 * company's deliver provider, and records the delivery. A delivery has its own status (enviada /
 * error), never mixed with the invoice's fiscal status.
 *
 * What is sent is what a Colombian buyer is owed: one ZIP holding the AttachedDocument XML (the UBL
 * container of the invoice and the authority's ApplicationResponse, which a buyer's accounting system
 * books) and the stamped PDF, named as DIAN names them (shared/fiscal/co/delivery-files.ts). The XML
 * comes from the company's adapter-tax provider once, then from the bucket. When it cannot be had,
 * the delivery is recorded as `error` and nothing is e-mailed: a PDF alone is never presented as a
 * complete delivery.
 *
 * A request (not the reconcile job's retry) is first matched and counted by the database
 * (`einv_delivery_begin`): a repeat of a delivery of this document to the same address that is
 * still open or was sent in the last minute is answered with that delivery, and nothing is mailed
 * again; past the hourly limits (per document, per organization) it is refused, 429 with Retry-After.
 * Both happen before anything is rendered or fetched.
 */
import { hexDigest } from "../../crypto/digest.ts";
import type { DeliveryLimits } from "../../db/catalogue.ts";
import type { DbScope } from "../../db/port.ts";
import type { DeliveryAttachmentRecord, DocumentRecord } from "../../db/rows.ts";
import { BusinessRuleError, DomainError, InvalidStateError, RateLimitedError } from "../../errors.ts";
import { type DianDeliveryFiles, dianDeliveryFiles } from "../../fiscal/co/delivery-files.ts";
import { type DeliveryOutcome, deliveryIdempotencyKey } from "../../providers/deliver.ts";
import type { ProviderDirectory } from "../../providers/directory.ts";
import { ProviderError } from "../../providers/errors.ts";
import { ProviderRequestError } from "../../providers/transport.ts";
import type { DocumentStore } from "../../storage/port.ts";
import { zipFiles } from "../../zip.ts";
import { ensureAttachedDocument } from "../documents/attached-document.ts";
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
  /** `pendiente`: a delivery to this address is already under way; it is not sent again. */
  status: "enviada" | "error" | "pendiente";
  message: string;
}

export interface DeliverContext {
  serviceDb: DbScope;
  providers: ProviderDirectory;
  documents: DocumentStore;
  /** Who asked; null for the reconcile job's retries. */
  actorId: string | null;
  /** Set by the reconcile job: this delivery retries a failed one, under its provider reference. */
  retry?: { of: string; sendId: string };
  /** A request's limits (config `deliver`); null only for the reconcile job's retries. */
  limits: DeliveryLimits | null;
  /** The per-call provider timeout, which sizes the delivery's lease (see `deliveryLeaseSeconds`). */
  providerTimeoutMs: number;
  /**
   * The request's Idempotency-Key. A retried request whose first try failed after the message may
   * have left (a 502/504 releases the key) sends it under the same provider reference and key, so
   * the provider delivers it once.
   */
  idempotencyKey?: string;
}

/**
 * How long an open delivery is held by the call that opened it: its three provider calls (render,
 * XML, send), each within the provider timeout, and a margin. The reconcile job asks the provider
 * about an open delivery only once this lease has run out, never while the call may still send.
 */
export function deliveryLeaseSeconds(providerTimeoutMs: number): number {
  return Math.ceil((3 * providerTimeoutMs) / 1000) + 30;
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

  // The provider's reference and idempotency key: a retry's first try's; one derived from the
  // request's Idempotency-Key (the same on every retry of that request); else the delivery's own.
  const keyedSendId = ctx.idempotencyKey
    ? uuidFrom(
        await hexDigest("SHA-256", `${input.org_id}|deliver|${input.invoice_id}|${ctx.idempotencyKey}`),
      )
    : null;
  const begun = await ctx.serviceDb.call("einv_delivery_begin", {
    p_org_id: input.org_id,
    p_invoice_id: input.invoice_id,
    p_recipient: to,
    p_actor_id: ctx.actorId,
    p_send_id: ctx.retry?.sendId ?? keyedSendId,
    p_limits: ctx.retry ? null : ctx.limits,
    p_lease_seconds: deliveryLeaseSeconds(ctx.providerTimeoutMs),
  });
  if (begun.rate_limited) {
    const { scope, limit, retry_after_seconds } = begun.rate_limited;
    const what = scope === "document" ? "this invoice" : "this organization";
    throw new RateLimitedError(
      `Too many deliveries of ${what}: at most ${limit} are sent per window; ` +
        `try again in ${retry_after_seconds} s.`,
      retry_after_seconds,
    );
  }
  const delivery_id = begun.delivery_id;
  if (begun.existing) {
    const { existing } = begun;
    return {
      invoice_id: existing.invoice_id,
      delivery_id,
      to: existing.to,
      status: existing.status,
      message:
        existing.status === "pendiente"
          ? `A delivery of this invoice to ${existing.to} is already under way (begun ${existing.created_at}); ` +
            "it is not sent again, and its outcome is recorded once known."
          : `This invoice was already sent to ${existing.to} moments ago; it is not sent again. ${existing.message ?? ""}`.trim(),
    };
  }
  if (ctx.retry) {
    await ctx.serviceDb.call("einv_delivery_link_retry", {
      p_org_id: input.org_id,
      p_delivery_id: delivery_id,
      p_retry_of: ctx.retry.of,
    });
  }
  const sendId = ctx.retry?.sendId ?? keyedSendId ?? delivery_id;
  // A provider failure (nothing says the buyer got it) is tried again later by the reconcile job.
  const retryLater = () =>
    ctx.serviceDb
      .call("einv_delivery_retry_later", {
        p_org_id: input.org_id,
        p_delivery_id: delivery_id,
        p_send_id: sendId,
      })
      .catch(() => {});

  let pdf: Uint8Array;
  try {
    pdf = await stampedPdf(ctx, input, invoice);
  } catch (error) {
    const why = error instanceof DomainError ? ` ${error.message}` : "";
    const message = storable(`Not sent: the invoice's PDF could not be produced.${why}`);
    await recordFailure(ctx, input.org_id, delivery_id, message).catch(() => {});
    if (error instanceof ProviderError) await retryLater();
    throw error;
  }

  let xml: Uint8Array;
  try {
    xml = (await ensureAttachedDocument({ ctx, kind: invoiceKind, orgId: input.org_id, record: invoice }))
      .bytes;
  } catch (error) {
    // Without the XML the buyer would get a PDF and nothing to book: the delivery fails, unsent.
    const why = error instanceof DomainError ? ` ${error.message}` : "";
    const message =
      "Not sent: the invoice's AttachedDocument (XML) could not be obtained from the tax provider, " +
      `and the PDF alone is not a complete delivery.${why}`;
    await recordFailure(ctx, input.org_id, delivery_id, storable(message)).catch(() => {});
    if (error instanceof ProviderError) await retryLater();
    throw error;
  }

  let files: DianDeliveryFiles;
  let zip: Uint8Array;
  try {
    ({ files, zip } = await packageForBuyer(ctx, input.org_id, delivery_id, invoice, xml, pdf));
  } catch (error) {
    await recordFailure(ctx, input.org_id, delivery_id, "Not sent: internal error.").catch(() => {});
    throw error;
  }

  // Company names are free text: a CR/LF in a subject would be a header injection, so it is one line.
  const issuer = oneLine(document.company.trade_name) || oneLine(document.company.legal_name);
  let outcome: DeliveryOutcome | ProviderError;
  try {
    outcome = await channel.send(
      {
        reference: sendId,
        to: [to],
        subject: oneLine(`Factura electrónica ${document.number} de ${issuer}`),
        text:
          `Adjuntamos la factura electrónica ${document.number} de ${issuer}, validada por la DIAN ` +
          `(CUFE ${fiscal.authority_code}). El archivo ${files.zip} contiene el documento electrónico ` +
          `(${files.xml}, el AttachedDocument con la factura y la respuesta de la DIAN) y su ` +
          `representación gráfica (${files.pdf}).`,
        attachments: [{ filename: files.zip, content_type: "application/zip", content: zip }],
      },
      { idempotencyKey: deliveryIdempotencyKey(sendId) },
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
  // The delivery is recorded as failed, to be retried; the caller still learns that the provider
  // failed (502/504).
  if (outcome instanceof ProviderError) {
    await retryLater();
    throw outcome;
  }
  return {
    invoice_id: recorded.invoice_id,
    delivery_id: recorded.delivery_id,
    to: recorded.to,
    status: recorded.status,
    message: recorded.message,
  };
}

/** The stamped PDF, made current first; read back from the bucket when it already was. */
async function stampedPdf(
  ctx: DeliverContext,
  input: DeliverInput,
  invoice: DocumentRecord<"invoice">,
): Promise<Uint8Array> {
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
  return pdf;
}

/**
 * The ZIP the buyer gets — the XML and the PDF under DIAN's names, its time fixed at the validation
 * (the same invoice, the same archive) — listed on the delivery before it is sent.
 */
async function packageForBuyer(
  ctx: DeliverContext,
  orgId: string,
  deliveryId: string,
  { document, fiscal }: DocumentRecord<"invoice">,
  xml: Uint8Array,
  pdf: Uint8Array,
): Promise<{ files: DianDeliveryFiles; zip: Uint8Array }> {
  const files = dianDeliveryFiles({
    issuerNit: document.company.nit,
    number: document.number,
    issueDate: document.issue_date,
  });
  const validatedAt = new Date(fiscal.transmitted_at ?? `${document.issue_date}T12:00:00Z`);
  const zip = await zipFiles(
    [
      { name: files.xml, bytes: xml },
      { name: files.pdf, bytes: pdf },
    ],
    validatedAt,
  );
  const attachments: DeliveryAttachmentRecord[] = [
    {
      filename: files.zip,
      content_type: "application/zip",
      size: zip.byteLength,
      files: [
        { filename: files.xml, size: xml.byteLength },
        { filename: files.pdf, size: pdf.byteLength },
      ],
    },
  ];
  await ctx.serviceDb.call("einv_delivery_attachments", {
    p_org_id: orgId,
    p_delivery_id: deliveryId,
    p_attachments: attachments,
  });
  return { files, zip };
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

/** A digest's first 128 bits as a UUID (version 8: custom), so it can be a provider's reference. */
function uuidFrom(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
