/**
 * documentRepresentation: keeps a document's PDF in the documents bucket current and says where it
 * is. "Current" means the fingerprint of everything the PDF is drawn from matches the stored record;
 * otherwise — or on `regenerate` — the PDF is rendered again: by the company's docsgen provider when
 * it has one, else by the built-in renderer, and stamped with the authority code and the DIAN QR
 * once the document is accepted.
 *
 * The fingerprint is taken over exactly what the renderer is given — the PDF model (built-in) or
 * the render request (docsgen) — plus the template versions: both are positive lists of what is
 * shown, so no secret and no column the PDF does not show can enter it, and nothing it shows can
 * be left out.
 *
 * Computing it means reading the whole document. So each process remembers, per document, the
 * fingerprint it computed and the database's name for the state it computed it from (the
 * document's *inputs*: which writes made each row the PDF is drawn from and which definitions
 * the functions that read them, see supabase/migrations/20261122000760_representation.sql).
 * While the inputs are unchanged and the stored PDF has that fingerprint, the database answers the
 * stored PDF alone; any write to one of those rows, a database deploy that replaces one of those
 * functions, or a PDF stored by another renderer, and the document is read and fingerprinted
 * again. The remembered fingerprint comes from this process's own code (`AppDeps.pdfFingerprints`,
 * kept 10 minutes), so a service deploy that changes what a PDF shows starts with nothing
 * remembered.
 */

import { DEMO_SOFTWARE, type SoftwareMaker } from "../../co/software.ts";
import { hexDigest } from "../../crypto/digest.ts";
import type { Logger } from "../../kernel/log.ts";
import type {
  CredentialRow,
  DocumentKind,
  DocumentRecord,
  Environment,
  RepresentationRow,
} from "../../kernel/rows.ts";
import { callAuthorized, type DbScope } from "../../ports/db/port.ts";
import type { ProviderDirectory } from "../../ports/providers/directory.ts";
import { isUsable } from "../../ports/providers/directory.ts";
import { type DocumentStore, documentPath } from "../../ports/storage.ts";
import { attachedDocumentPath, ensureAttachedDocument } from "./attached-document.ts";
import type { DocumentKindSpec, PdfFiscal } from "./kind.ts";
import type { RememberedFingerprints } from "./remembered-fingerprints.ts";
import { renderRequest } from "./render-request.ts";

export interface RepresentationInput {
  org_id: string;
  document_id: string;
  regenerate: boolean;
}

export interface RepresentationResult {
  path: string;
  filename: string;
  stamped: boolean;
  cached: boolean;
  generated_at: string;
  /** The AttachedDocument XML in the same bucket; null until the authority accepted the document. */
  xml_path: string | null;
}

export interface RepresentationContext {
  serviceDb: DbScope;
  providers: ProviderDirectory;
  documents: DocumentStore;
  /** Where this process remembers fingerprints; without it every call reads the document whole. */
  deps?: { pdfFingerprints: RememberedFingerprints; config: { software: SoftwareMaker } };
  /** The software printed on the PDF; else `deps`' configuration; else the demo one (tests). */
  software?: SoftwareMaker;
  log?: Logger;
}

/** Bumped with any change to what the service itself puts in a PDF (stamping included). */
const SERVICE_TEMPLATE = "stamp/3";

export async function documentRepresentation<K extends DocumentKind>(args: {
  ctx: RepresentationContext;
  kind: DocumentKindSpec<K>;
  input: RepresentationInput;
}): Promise<RepresentationResult> {
  return (await ensureDocumentPdf({ ...args, xml: true })).result;
}

/** The representation and, when it was rendered now, its bytes (callers that need them use it). */
export async function ensureDocumentPdf<K extends DocumentKind>({
  ctx,
  kind,
  input,
  record: known,
  xml = false,
}: {
  ctx: RepresentationContext;
  kind: DocumentKindSpec<K>;
  input: RepresentationInput;
  record?: DocumentRecord<K>;
  /**
   * Also keep the AttachedDocument XML beside an accepted document's PDF and record its path
   * (/representation). A delivery fetches the XML itself and leaves this off, so that a provider
   * failure is the delivery's to report.
   */
  xml?: boolean;
}): Promise<{ result: RepresentationResult; bytes: Uint8Array | null }> {
  // The document and its company's docsgen credential, in one round trip — or, while what this
  // process remembers still holds, the stored PDF alone. A caller that has read the document
  // already passes it, and the credential is read on its own. Behind a request's gate, the
  // caller's membership is checked in the same round trip.
  const remembered = ctx.deps?.pdfFingerprints;
  let inputs: string | null = null;
  let record: DocumentRecord<K>;
  let read: CredentialRow[] | null = null;
  if (known) {
    record = known;
  } else {
    const last = input.regenerate ? undefined : remembered?.get(kind.kind, input.org_id, input.document_id);
    const answer = await callAuthorized(ctx.serviceDb, "einv_document_representation_read_authorized", {
      p_org_id: input.org_id,
      p_kind: kind.kind,
      p_document_id: input.document_id,
      p_inputs: last?.inputs ?? null,
      p_fingerprint: last?.fingerprint ?? null,
    });
    if ("representation" in answer) return { result: toResult(answer.representation, true), bytes: null };
    ({ inputs, credentials: read } = answer);
    record = answer.record as DocumentRecord<K>;
  }
  const { document } = record;
  const fiscal = pdfFiscal(record);
  const environment: Environment = record.fiscal.environment ?? document.company.active_environment;
  const credentials =
    read ??
    [
      await ctx.serviceDb.call("einv_credential_get", {
        p_org_id: input.org_id,
        p_company_id: document.company_id,
        p_service: "docsgen",
        p_environment: environment,
      }),
    ].filter((row): row is CredentialRow => row !== null);
  ctx.providers.prime(
    "docsgen",
    input.org_id,
    [{ company_id: document.company_id, environment }],
    credentials,
  );
  // Who draws it is part of the fingerprint, decided by the stored credential. Its key is opened
  // (and its URL checked) only to render: a current PDF is answered without the provider.
  const docsgen = credentials.some(isUsable);

  // The model decides whether the PDF carries the authority's validation, for both renderers.
  const model = kind.pdfModel(document, fiscal, ctx.software ?? ctx.deps?.config.software ?? DEMO_SOFTWARE);
  const stamp = model.fiscal.stamped ? model.fiscal : null;
  const request = docsgen
    ? await renderRequest(
        kind,
        document,
        fiscal,
        environment,
        stamp && {
          authority_code: stamp.authorityCode,
          qr_text: stamp.qrText,
          validated_at: new Date(stamp.validatedAt).toISOString(),
        },
      )
    : null;
  // a provider's PDF is drawn from the request, and the stamp from the model's fiscal part
  const drawnFrom = request ? [request, model.fiscal] : model;
  const fingerprint = await hexDigest(
    "SHA-256",
    JSON.stringify([SERVICE_TEMPLATE, docsgen ? "docsgen" : "builtin", drawnFrom]),
  );

  if (inputs !== null) remembered?.set(kind.kind, input.org_id, input.document_id, { inputs, fingerprint });

  const stored = record.representation;
  const xmlPath = xml && stamp ? await attachedXml(ctx, kind, input.org_id, record) : null;
  if (!input.regenerate && stored?.fingerprint === fingerprint) {
    if (xmlPath === null || stored.xml_path === xmlPath)
      return { result: toResult(stored, true), bytes: null };
    const attached = await ctx.serviceDb.call("einv_representation_attach_xml", {
      p_org_id: input.org_id,
      p_kind: kind.kind,
      p_document_id: document.id,
      p_fingerprint: fingerprint,
      p_xml_path: xmlPath,
    });
    return { result: toResult(attached ?? { ...stored, xml_path: xmlPath }, true), bytes: null };
  }

  const generator = docsgen
    ? await ctx.providers.documentGenerator(input.org_id, document.company_id, environment)
    : null;
  let bytes: Uint8Array;
  if (generator && request) {
    const base = await generator.render(request);
    bytes = stamp
      ? await (await import("../../pdf/stamp.ts")).stampPdf(base, stamp, new Date(stamp.validatedAt))
      : base;
  } else {
    bytes = await (await import("../../pdf/render-document.ts")).renderDocumentPdf(model);
  }

  // The fingerprint is part of the name: two renders of different content never overwrite each
  // other, so a stored record always points at the bytes it describes.
  const filename = kind.fileName(document, fingerprint.slice(0, 12));
  const path = documentPath(input.org_id, kind.folder, document.id, filename);
  await ctx.documents.put(path, bytes, "application/pdf");
  const saved = await ctx.serviceDb.call("einv_representation_save", {
    p_org_id: input.org_id,
    p_kind: kind.kind,
    p_document_id: document.id,
    p_path: path,
    p_filename: filename,
    p_fingerprint: fingerprint,
    p_stamped: stamp !== null,
    p_renderer: generator ? "docsgen" : "builtin",
    p_xml_path: xmlPath,
  });
  return { result: toResult(saved, false), bytes };
}

function pdfFiscal({ fiscal }: DocumentRecord): PdfFiscal {
  return {
    status: fiscal.status,
    authority_code: fiscal.authority_code,
    qr_text: fiscal.qr_text,
    transmitted_at: fiscal.transmitted_at,
    environment: fiscal.environment,
  };
}

function toResult(row: RepresentationRow, cached: boolean): RepresentationResult {
  return {
    path: row.path,
    filename: row.filename,
    stamped: row.stamped,
    cached,
    generated_at: new Date(row.generated_at).toISOString(),
    xml_path: row.xml_path,
  };
}

/**
 * The path of the accepted document's AttachedDocument, fetched from the tax provider into the
 * bucket when it is not there yet; null when that fails (no usable adapter-tax credential, the
 * provider down or without the document). The PDF does not wait on the XML: the record keeps a null
 * path, the stored PDF is then never taken as current by the quick read, and the next call tries again.
 */
async function attachedXml<K extends DocumentKind>(
  ctx: RepresentationContext,
  kind: DocumentKindSpec<K>,
  orgId: string,
  record: DocumentRecord<K>,
): Promise<string | null> {
  const expected = await attachedDocumentPath(kind, orgId, record);
  if (expected === null || record.representation?.xml_path === expected) return expected;
  try {
    return (await ensureAttachedDocument({ ctx, kind, orgId, record })).path;
  } catch (error) {
    ctx.log?.warn("attached document not obtained", { document_id: record.document.id, error });
    return null;
  }
}
