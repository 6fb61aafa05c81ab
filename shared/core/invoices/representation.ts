/**
 * invoiceRepresentation: keeps an invoice's PDF in the documents bucket current and says where it
 * is. "Current" means the fingerprint of everything the PDF shows (document, fiscal status,
 * authority code, template, renderer) matches the stored record; otherwise — or on `regenerate` —
 * the PDF is rendered again: by the company's docsgen provider when it has one, else by the
 * built-in renderer, and stamped with the CUFE and the DIAN QR once the invoice is accepted.
 */
import type { DbScope, InvoiceRecord, RepresentationRow } from "../../db/port.ts";
import { BusinessRuleError } from "../../errors.ts";
import type { ValidationStamp } from "../../pdf/model.ts";
import type { ProviderDirectory } from "../../providers/directory.ts";
import type { RenderRequest } from "../../providers/docsgen.ts";
import { renderStatusOf } from "../../providers/docsgen.ts";
import { type DocumentStore, documentPath } from "../../storage/port.ts";
import { prepareInvoice } from "./document.ts";

export interface RepresentationInput {
  org_id: string;
  invoice_id: string;
  regenerate: boolean;
}

export interface RepresentationResult {
  path: string;
  filename: string;
  stamped: boolean;
  cached: boolean;
  generated_at: string;
}

export interface RepresentationContext {
  serviceDb: DbScope;
  providers: ProviderDirectory;
  documents: DocumentStore;
}

/** Bumped with any change to what the service itself puts in a PDF (stamping included). */
const SERVICE_TEMPLATE = "stamp/1";

export async function invoiceRepresentation(args: {
  ctx: RepresentationContext;
  input: RepresentationInput;
}): Promise<RepresentationResult> {
  return (await ensureInvoicePdf(args)).result;
}

/** The representation and, when it was rendered now, its bytes (callers that need them use it). */
export async function ensureInvoicePdf({
  ctx,
  input,
  invoice: known,
}: {
  ctx: RepresentationContext;
  input: RepresentationInput;
  invoice?: InvoiceRecord;
}): Promise<{ result: RepresentationResult; bytes: Uint8Array | null }> {
  const invoice =
    known ??
    (await ctx.serviceDb.call("einv_invoice_get", {
      p_org_id: input.org_id,
      p_invoice_id: input.invoice_id,
    }));
  const { document, fiscal } = invoice;
  const environment = fiscal.environment ?? (document.company.active_environment as "uat" | "prd");
  const generator = await ctx.providers.documentGenerator(input.org_id, document.company_id, environment);
  const renderer = generator ? "docsgen" : "builtin";
  const { INVOICE_TEMPLATE_VERSION, toInvoicePdfModel } = await import("../../pdf/model.ts");
  // Everything the PDF shows, and nothing secret: the technical key is not printed, so it is left out.
  const { technical_key: _secret, ...shownIssuer } = document.company;
  const shown = { ...document, company: shownIssuer };
  const fingerprint = await sha256(
    JSON.stringify([SERVICE_TEMPLATE, INVOICE_TEMPLATE_VERSION, renderer, shown, pdfFiscal(invoice)]),
  );

  const stored = invoice.representation;
  if (!input.regenerate && stored?.fingerprint === fingerprint) {
    return { result: toResult(stored, true), bytes: null };
  }

  // The model decides whether the PDF carries the authority's validation, for both renderers.
  const model = toInvoicePdfModel(document, pdfFiscal(invoice));
  const stamp = model.fiscal.stamped ? model.fiscal : null;
  let bytes: Uint8Array;
  if (generator) {
    const base = await generator.render(renderRequest(invoice, environment, stamp));
    bytes = stamp
      ? await (await import("../../pdf/stamp.ts")).stampPdf(base, stamp, new Date(stamp.validatedAt))
      : base;
  } else {
    bytes = await (await import("../../pdf/render-invoice.ts")).renderInvoicePdf(model);
  }

  // The fingerprint is part of the name: two renders of different content never overwrite each
  // other, so a stored record always points at the bytes it describes.
  const filename = `factura-${document.number}-${fingerprint.slice(0, 12)}.pdf`;
  const path = documentPath(input.org_id, "invoices", document.id, filename);
  await ctx.documents.put(path, bytes, "application/pdf");
  const saved = await ctx.serviceDb.call("einv_representation_save", {
    p_org_id: input.org_id,
    p_document_type: "invoice",
    p_document_id: document.id,
    p_path: path,
    p_filename: filename,
    p_fingerprint: fingerprint,
    p_stamped: stamp !== null,
    p_renderer: renderer,
  });
  return { result: toResult(saved, false), bytes };
}

function pdfFiscal({ fiscal }: InvoiceRecord) {
  return {
    status: fiscal.status,
    authority_code: fiscal.authority_code,
    qr_text: fiscal.qr_text,
    transmitted_at: fiscal.transmitted_at,
    environment: fiscal.environment,
  };
}

function renderRequest(
  invoice: InvoiceRecord,
  environment: "uat" | "prd",
  stamp: ValidationStamp | null,
): RenderRequest {
  const prepared = prepareInvoice(invoice.document, environment);
  if (!prepared.ok) {
    throw new BusinessRuleError(`The invoice cannot be rendered: ${prepared.problems.join("; ")}.`);
  }
  const { kind: _kind, reference, issuer, ...data } = prepared.request;
  const { technical_key: _secret, ...publicIssuer } = issuer;
  return {
    kind: "invoice",
    reference,
    document: {
      ...data,
      issuer: publicIssuer,
      status: renderStatusOf(invoice.fiscal.status),
      ...(stamp
        ? {
            authority_code: stamp.cufe,
            qr_text: stamp.qrText,
            validated_at: new Date(stamp.validatedAt).toISOString(),
          }
        : {}),
    },
  };
}

function toResult(row: RepresentationRow, cached: boolean): RepresentationResult {
  return {
    path: row.path,
    filename: row.filename,
    stamped: row.stamped,
    cached,
    generated_at: new Date(row.generated_at).toISOString(),
  };
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
