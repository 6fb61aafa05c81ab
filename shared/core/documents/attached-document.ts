/**
 * ensureAttachedDocument: an accepted document's AttachedDocument XML — the UBL container of the
 * document and the authority's ApplicationResponse, what a Colombian buyer is owed — kept in the
 * documents bucket beside its PDF, so the provider is asked for it once.
 *
 * Like the PDF's, its name carries a fingerprint of what determines it: the document (our
 * reference), its authority code and its fiscal status. The XML is the provider's and never changes
 * for an accepted document, so the name alone says whether the stored copy is the current one and
 * no record is needed: a changed code or status is a new name, fetched anew.
 */
import { hexDigest } from "../../crypto/digest.ts";
import { InvalidStateError } from "../../kernel/errors.ts";
import type { DocumentKind, DocumentRecord } from "../../kernel/rows.ts";
import type { ProviderDirectory } from "../../ports/providers/directory.ts";
import { ATTACHED_DOCUMENT_CONTENT_TYPE } from "../../ports/providers/protocol-values.ts";
import { type DocumentStore, documentPath } from "../../ports/storage.ts";
import type { DocumentKindSpec } from "./kind.ts";
import { lookupOf } from "./lookup.ts";

export interface AttachedDocumentContext {
  providers: ProviderDirectory;
  documents: DocumentStore;
}

export interface AttachedDocument {
  bytes: Uint8Array;
  /** Its path in the documents bucket. */
  path: string;
  /** True when it was read from the bucket and the provider was not asked. */
  cached: boolean;
}

/** Bumped with any change to how the stored XML is named or to what decides it. */
const RULES = "attached-document/1";

/**
 * The document's AttachedDocument, from the bucket or else from its adapter-tax provider (then
 * stored). Throws what the provider directory and client throw: a BusinessRuleError without a usable
 * adapter-tax credential, a ProviderError when the provider does not hand a valid one over.
 */
export async function ensureAttachedDocument<K extends DocumentKind>({
  ctx,
  kind,
  orgId,
  record,
}: {
  ctx: AttachedDocumentContext;
  kind: DocumentKindSpec<K>;
  orgId: string;
  record: DocumentRecord<K>;
}): Promise<AttachedDocument> {
  const { document, fiscal } = record;
  const path = await attachedDocumentPath(kind, orgId, record);
  if (!path || !fiscal.authority_code || !fiscal.environment) {
    throw new InvalidStateError(
      `Only a ${kind.words.noun} the authority accepted has an AttachedDocument; this one is ${fiscal.status}.`,
    );
  }
  const stored = await ctx.documents.get(path);
  if (stored) return { bytes: stored, path, cached: true };

  const adapter = await ctx.providers.taxAdapter(orgId, document.company_id, fiscal.environment);
  const bytes = await adapter.attachedDocument(document.id, {
    authorityCode: fiscal.authority_code,
    lookup: lookupOf(kind, document, fiscal.environment, fiscal.provider_reference),
  });
  await ctx.documents.put(path, bytes, ATTACHED_DOCUMENT_CONTENT_TYPE);
  return { bytes, path, cached: false };
}

/** Where the document's AttachedDocument is kept; null while the authority has not accepted it. */
export async function attachedDocumentPath<K extends DocumentKind>(
  kind: DocumentKindSpec<K>,
  orgId: string,
  { document, fiscal }: DocumentRecord<K>,
): Promise<string | null> {
  if (fiscal.status !== kind.accepted || !fiscal.authority_code || !fiscal.environment) return null;
  const fingerprint = await hexDigest(
    "SHA-256",
    JSON.stringify([RULES, document.id, fiscal.authority_code, fiscal.status]),
  );
  return documentPath(
    orgId,
    kind.folder,
    document.id,
    `ad-${document.number}-${fingerprint.slice(0, 12)}.xml`,
  );
}
