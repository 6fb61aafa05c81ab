/**
 * deliverDocument: e-mails an accepted document of any kind — an invoice, a credit note — to the
 * buyer's address or the one given, through the company's deliver provider, and records the
 * delivery. A delivery has its own status (enviada / error), never mixed with the document's fiscal
 * status. The routes per kind are thin declarations (shared/http/deliver-route.ts), and the
 * reconcile job retries deliveries of either kind through this same path.
 *
 * What is sent is what a Colombian buyer is owed: one ZIP holding the AttachedDocument XML (the UBL
 * container of the invoice or note and the authority's ApplicationResponse, which a buyer's
 * accounting system books) and the stamped PDF, named as DIAN names them after the delivery's
 * package (shared/co/delivery-files.ts), with the message of shared/co/delivery-email.ts. The XML comes from the company's adapter-tax
 * provider once, then from the bucket. When it cannot be had, the delivery is recorded as `error`
 * and nothing is e-mailed: a PDF alone is never presented as a complete delivery.
 *
 * A request (not the reconcile job's retry) is first matched and counted by the database
 * (`einv_delivery_begin`): a repeat of a delivery of this document to the same address that is
 * still open or was sent in the last minute is answered with that delivery, and nothing is mailed
 * again; past the hourly limits (per document, per organization) it is refused, 429 with Retry-After.
 * Both happen before anything is rendered or fetched. Beginning it also names its package: the
 * issuer's next consecutive of the year (a retry keeps its first try's).
 *
 * The steps, in order: check the state, begin the delivery, gather the PDF and the XML, compose the
 * message, send and record. How a delivery ends, and which failures are retried, is
 * ./delivery-outcome.ts.
 */

import { buyerEmail } from "../../co/delivery-email.ts";
import type { DeliveryPackage } from "../../co/delivery-files.ts";
import type { SoftwareMaker } from "../../co/software.ts";
import { hexDigest } from "../../crypto/digest.ts";
import { BusinessRuleError, InvalidStateError, RateLimitedError } from "../../kernel/errors.ts";
import type { DeliveryCode } from "../../kernel/result-codes.ts";
import type {
  DeliveryAttachmentRecord,
  DocumentKind,
  DocumentRecord,
  Environment,
} from "../../kernel/rows.ts";
import type { DeliveryLimits } from "../../ports/db/catalogue.ts";
import type { DbScope } from "../../ports/db/port.ts";
import type { ProviderDirectory } from "../../ports/providers/directory.ts";
import type { DocumentStore } from "../../ports/storage.ts";
import { ensureAttachedDocument } from "./attached-document.ts";
import { beforeSending, domainReason, type OpenDelivery, sendAndRecord } from "./delivery-outcome.ts";
import { type BuyerPackage, packageForBuyer, stampedPdf } from "./delivery-package.ts";
import type { DocumentKindSpec } from "./kind.ts";
import { storable } from "./outcome.ts";

export interface DeliverInput {
  org_id: string;
  document_id: string;
  /** Overrides the buyer's e-mail address. */
  to?: string | undefined;
}

export interface DeliverResult {
  document_id: string;
  delivery_id: string;
  to: string;
  /** `pendiente`: a delivery to this address is already under way; it is not sent again. */
  status: "enviada" | "error" | "pendiente";
  code: DeliveryCode;
  message: string;
  /** The deliver provider's own words about the e-mail, as it wrote them (`deliveries.message`). */
  provider_message?: string;
}

export interface DeliverContext {
  serviceDb: DbScope;
  providers: ProviderDirectory;
  documents: DocumentStore;
  /** The software printed on the PDF (config `software`); the request's `deps` give it otherwise. */
  software?: SoftwareMaker;
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
   * the provider delivers it once; the reference is derived from the key and the address.
   */
  idempotencyKey?: string;
}

/**
 * How long an open delivery is held by the call that opened it: what may follow the opening, each
 * step within the provider timeout (a name resolution and a call for the render, a second render
 * when the stored PDF is stale, the AttachedDocument, the send: at most seven), and a minute for
 * storage and the database. The reconcile job asks the provider about an open delivery only once
 * this lease has run out, never while the call may still send it.
 */
export function deliveryLeaseSeconds(providerTimeoutMs: number): number {
  if (!Number.isFinite(providerTimeoutMs) || providerTimeoutMs <= 0) {
    throw new Error(`a provider timeout is needed to lease a delivery, not ${providerTimeoutMs}`);
  }
  return Math.ceil((DELIVERY_STEPS * providerTimeoutMs) / 1000) + 60;
}

/** The most provider steps a delivery takes, each within the provider timeout (`deliveryLeaseSeconds`). */
export const DELIVERY_STEPS = 7;

/** E-mails one accepted document to its buyer (or `to`) and answers the delivery as recorded. */
export async function deliverDocument<K extends DocumentKind>({
  ctx,
  kind,
  input,
}: {
  ctx: DeliverContext;
  kind: DocumentKindSpec<K>;
  input: DeliverInput;
}): Promise<DeliverResult> {
  const { record, environment } = await deliverable(ctx, kind, input.org_id, input.document_id);
  const to = recipient(kind, record, input.to);
  const channel = await ctx.providers.deliveryChannel(input.org_id, record.document.company_id, environment);

  const begun = await beginDelivery(ctx, kind, input, to);
  if ("answer" in begun) return begun.answer;
  const { open: delivery, package: parcelName } = begun;

  const pdf = await beforeSending(ctx, delivery, stampedPdf(ctx, kind, input.org_id, record), (error) =>
    storable(`Not sent: the ${kind.words.noun}'s PDF could not be produced.${domainReason(error)}`),
  );
  // Without the XML the buyer would get a PDF and nothing to book: the delivery fails, unsent.
  const xml = await beforeSending(
    ctx,
    delivery,
    ensureAttachedDocument({ ctx, kind, orgId: input.org_id, record }).then((attached) => attached.bytes),
    (error) =>
      storable(
        `Not sent: the ${kind.words.noun}'s AttachedDocument (XML) could not be obtained from the tax provider, ` +
          `and the PDF alone is not a complete delivery.${domainReason(error)}`,
      ),
  );
  const parcel = await beforeSending(
    ctx,
    delivery,
    packageListed(ctx, delivery, record, parcelName, xml, pdf),
    () => "Not sent: internal error.",
  );

  const { document, fiscal } = record;
  const email = buyerEmail({
    kind: kind.kind,
    number: document.number,
    company: document.company,
    authorityCode: fiscal.authority_code,
    corrects: "billing_reference" in document ? document.billing_reference : undefined,
    files: parcel.files,
  });
  const recorded = await sendAndRecord(ctx, delivery, channel, {
    reference: delivery.sendId,
    to: [to],
    ...email,
    attachments: [{ filename: parcel.files.zip, content_type: "application/zip", content: parcel.zip }],
  });
  // a 200 in `error` is the provider's refusal (a bounce, a blocked address): its failures are thrown
  const sent = recorded.status === "enviada";
  return {
    document_id: recorded.document_id,
    delivery_id: recorded.delivery_id,
    to: recorded.to,
    status: recorded.status,
    code: sent ? "sent" : "delivery_rejected",
    message: sent
      ? `Sent to ${recorded.to}.`
      : `The delivery provider refused the e-mail to ${recorded.to} (see provider_message); it is not ` +
        "tried again: deliver it again with a corrected `to`.",
    ...(recorded.message ? { provider_message: recorded.message } : {}),
  };
}

/** The document, read whole; only one the authority accepted is delivered. */
async function deliverable<K extends DocumentKind>(
  ctx: DeliverContext,
  kind: DocumentKindSpec<K>,
  orgId: string,
  documentId: string,
): Promise<{ record: DocumentRecord<K>; environment: Environment }> {
  const record = (await ctx.serviceDb.call("einv_document_get", {
    p_org_id: orgId,
    p_kind: kind.kind,
    p_document_id: documentId,
  })) as DocumentRecord<K>;
  const { status, environment } = record.fiscal;
  if (status !== kind.accepted || !environment) {
    throw new InvalidStateError(
      `Only ${/^[aeiou]/.test(kind.words.noun) ? "an" : "a"} ${kind.words.noun} the authority accepted (${kind.accepted}) can be delivered; this one is ${status}.`,
    );
  }
  return { record, environment };
}

/** The address given, else the buyer's. */
function recipient(kind: DocumentKindSpec, { document }: DocumentRecord, to: string | undefined): string {
  const address = to ?? document.buyer_email;
  if (!address) {
    throw new BusinessRuleError(
      `The ${kind.words.noun} has no buyer e-mail address; pass \`to\` with the address to send it to.`,
    );
  }
  return address;
}

/**
 * Opens the delivery (`einv_delivery_begin`), or answers the repeat it matched, or refuses past the
 * limits. A retry of the reconcile job is linked to the delivery it retries.
 */
async function beginDelivery(
  ctx: DeliverContext,
  kind: DocumentKindSpec,
  input: DeliverInput,
  to: string,
): Promise<{ open: OpenDelivery; package: DeliveryPackage } | { answer: DeliverResult }> {
  const { noun } = kind.words;
  // The provider's reference and idempotency key: a retry's first try's; one derived from the
  // request's Idempotency-Key and the address (the same on every retry of that request; a key
  // released by a 502/504 and reused for another address is another message); else the delivery's own.
  const keyedSendId = ctx.idempotencyKey
    ? uuidFrom(
        await hexDigest(
          "SHA-256",
          // JSON: an address and a key may both hold any separator
          JSON.stringify([input.org_id, "deliver", input.document_id, to, ctx.idempotencyKey]),
        ),
      )
    : null;
  const begun = await ctx.serviceDb.call("einv_delivery_begin", {
    p_org_id: input.org_id,
    p_kind: kind.kind,
    p_document_id: input.document_id,
    p_recipient: to,
    p_actor_id: ctx.actorId,
    p_send_id: ctx.retry?.sendId ?? keyedSendId,
    p_retry_of: ctx.retry?.of ?? null,
    p_limits: ctx.retry ? null : ctx.limits,
    p_lease_seconds: deliveryLeaseSeconds(ctx.providerTimeoutMs),
  });
  if (begun.rate_limited) {
    const { scope, limit, retry_after_seconds } = begun.rate_limited;
    const what = scope === "document" ? `this ${noun}` : "this organization";
    throw new RateLimitedError(
      `Too many deliveries of ${what}: at most ${limit} are sent per window; ` +
        `try again in ${retry_after_seconds} s.`,
      retry_after_seconds,
    );
  }
  const deliveryId = begun.delivery_id;
  if (begun.existing) {
    const { existing } = begun;
    const open = existing.status === "pendiente";
    return {
      answer: {
        document_id: existing.document_id,
        delivery_id: deliveryId,
        to: existing.to,
        status: existing.status,
        code: open ? "delivery_in_progress" : "already_sent",
        message: open
          ? `A delivery of this ${noun} to ${existing.to} is already under way (begun ${existing.created_at}); ` +
            "it is not sent again, and its outcome is recorded once known."
          : `This ${noun} was already sent to ${existing.to} moments ago; it is not sent again.`,
        ...(!open && existing.message ? { provider_message: existing.message } : {}),
      },
    };
  }
  return {
    open: { orgId: input.org_id, deliveryId, sendId: ctx.retry?.sendId ?? keyedSendId ?? deliveryId },
    package: { year: begun.package_year, consecutive: begun.package_number },
  };
}

/** The buyer's ZIP, listed on the delivery before it is sent. */
async function packageListed(
  ctx: DeliverContext,
  delivery: OpenDelivery,
  record: DocumentRecord,
  name: DeliveryPackage,
  xml: Uint8Array,
  pdf: Uint8Array,
): Promise<BuyerPackage> {
  const parcel = await packageForBuyer(record, name, xml, pdf);
  const { files, zip } = parcel;
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
    p_org_id: delivery.orgId,
    p_delivery_id: delivery.deliveryId,
    p_attachments: attachments,
  });
  return parcel;
}

/** A digest's first 128 bits as a UUID (version 8: custom), so it can be a provider's reference. */
function uuidFrom(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
