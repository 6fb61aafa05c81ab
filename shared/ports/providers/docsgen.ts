/**
 * The docsgen provider protocol (docs/provider-protocol.md#docsgen): render the base PDF of a
 * document from the same data the tax adapter gets, plus its fiscal state. Our client
 * (../../providers/docsgen/client.ts) and the sandbox (sandbox/docsgen.ts) both validate with these schemas.
 * The answer is the PDF itself (`200 application/pdf`), checked by `pdfProblem`.
 */
import { z } from "zod";
import {
  AuthorityCode,
  BillingReference,
  Correction,
  type CredentialVerdict,
  Issuer,
  presentOnlyWhen,
  requireValidation,
  SubmitDocumentFields,
} from "./protocol.ts";
import { RENDER_STATUSES } from "./protocol-values.ts";

/** A rendered PDF larger than this is refused as malformed. */
export const MAX_PDF_BYTES = 10 * 1024 * 1024;
export const PDF_CONTENT_TYPE = "application/pdf";

export const RenderKind = z.enum(["invoice", "credit_note", "debit_note"]);
export type RenderKind = z.infer<typeof RenderKind>;

/** The document's fiscal state as the PDF shows it (./protocol-values.ts maps our statuses onto it). */
export const RenderStatus = z.enum(RENDER_STATUSES);
export type RenderStatus = z.infer<typeof RenderStatus>;

/**
 * The document to render: the submit request's data without `kind` and `reference` (they travel
 * beside it) and without the issuer's technical key (a secret the PDF never needs: unknown keys are
 * dropped when our client validates, so passing a submit request's issuer is safe), plus the fiscal
 * fields. `authority_code` (CUFE/CUDE), `qr_text` and `validated_at` come with, and only with,
 * `accepted`.
 */
export const RenderDocument = SubmitDocumentFields.omit({ kind: true, reference: true, issuer: true })
  .extend({
    issuer: Issuer.omit({ technical_key: true, software_pin: true }),
    billing_reference: BillingReference.optional(),
    correction: Correction.optional(),
    status: RenderStatus,
    authority_code: AuthorityCode.optional(),
    qr_text: z.string().min(1).max(2000).optional(),
    validated_at: z.iso.datetime({ offset: true }).optional(),
  })
  .superRefine((doc, ctx) => requireValidation(ctx, doc, doc.status === "accepted"));
export type RenderDocument = z.input<typeof RenderDocument>;

/** POST /render body. */
export const RenderRequest = z
  .object({
    kind: RenderKind,
    /** Our document id (UUID). */
    reference: z.guid(),
    /** The provider's template name; absent means its default. */
    template: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, "expected 1 to 64 letters, digits, - or _")
      .optional(),
    document: RenderDocument,
  })
  .superRefine((request, ctx) =>
    presentOnlyWhen(ctx, request.document, ["billing_reference", "correction"], request.kind !== "invoice", {
      required: "required for a note (credit or debit)",
      forbidden: "only allowed for a note (credit or debit)",
      path: ["document"],
    }),
  );
export type RenderRequest = z.input<typeof RenderRequest>;

/** The port the core uses to have a company's docsgen provider render a document's base PDF. */
export interface DocumentGenerator {
  /**
   * The PDF's bytes. Rendering has no side effects at the provider, so a failed call may simply be
   * made again. Throws a ProviderRequestError (nothing sent) for a request that breaks the
   * protocol, a ProviderError when no PDF came back.
   */
  render(request: RenderRequest): Promise<Uint8Array>;
  /** Whether the configured key authenticates; `ok: false` when the provider refuses it. */
  checkCredential(): Promise<CredentialVerdict>;
}

const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-
const EOF_MARKER = "%%EOF";
/** Readers accept the end-of-file marker anywhere in the last 1024 bytes. */
const EOF_WINDOW = 1024;

/** Why `bytes` is not an acceptable rendered PDF, or undefined when it is. */
export function pdfProblem(bytes: Uint8Array, maxBytes = MAX_PDF_BYTES): string | undefined {
  if (bytes.byteLength > maxBytes) return `a PDF larger than ${maxBytes} bytes`;
  if (!PDF_MAGIC.every((b, i) => bytes[i] === b)) return "a body that is not a PDF (no %PDF- header)";
  if (!endsWithEof(bytes)) return "a truncated PDF (no %%EOF marker at the end)";
  return undefined;
}

function endsWithEof(bytes: Uint8Array): boolean {
  const marker = [...EOF_MARKER].map((ch) => ch.charCodeAt(0));
  const from = Math.max(PDF_MAGIC.length, bytes.byteLength - EOF_WINDOW);
  for (let i = bytes.byteLength - marker.length; i >= from; i--) {
    if (marker.every((b, j) => bytes[i + j] === b)) return true;
  }
  return false;
}
