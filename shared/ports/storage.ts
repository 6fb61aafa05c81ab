/**
 * The `DocumentStore` port: where rendered PDFs live. In production the private Supabase Storage
 * bucket `service-documentos`; locally a folder. Paths are `<org_id>/<invoices|credit-notes>/<id>/<file>`.
 */

import type { DocumentKind } from "../kernel/rows.ts";

export const DOCUMENTS_BUCKET = "service-documentos";

/** Each kind's folder in an organization's part of the bucket. */
export const DOCUMENT_FOLDERS = {
  invoice: "invoices",
  credit_note: "credit-notes",
  debit_note: "debit-notes",
} as const satisfies Record<DocumentKind, string>;
export type DocumentFolder = (typeof DOCUMENT_FOLDERS)[keyof typeof DOCUMENT_FOLDERS];

export interface DocumentStore {
  /** Creates or replaces the object at `path`. */
  put(path: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The object's bytes, or null when there is none. */
  get(path: string): Promise<Uint8Array<ArrayBuffer> | null>;
}

/** `<org_id>/invoices/<invoice_id>/<filename>` — the first folder is what the Storage policy checks. */
export function documentPath(orgId: string, kind: DocumentFolder, documentId: string, filename: string) {
  return `${orgId}/${kind}/${documentId}/${filename}`;
}
