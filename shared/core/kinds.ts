/**
 * Every kind of fiscal document the lifecycle knows, by the name the database gives it: what
 * reconcile settles, what a delivery retry sends, what the local server adopts. A new kind is
 * added here once (docs/adr/0001's checklist), and the compiler then asks for it wherever a map
 * from every kind is kept.
 */
import type { DocumentKind } from "../kernel/rows.ts";
import { creditNoteKind } from "./credit-notes/kind.ts";
import { debitNoteKind } from "./debit-notes/kind.ts";
import type { DocumentKindSpec } from "./documents/kind.ts";
import { invoiceKind } from "./invoices/kind.ts";

export const DOCUMENT_KIND_SPECS: { readonly [K in DocumentKind]: DocumentKindSpec<K> } = {
  invoice: invoiceKind,
  credit_note: creditNoteKind,
  debit_note: debitNoteKind,
};

/** The descriptor of `kind`, for code that works on any kind. */
export function kindSpec(kind: DocumentKind): DocumentKindSpec {
  return DOCUMENT_KIND_SPECS[kind] as unknown as DocumentKindSpec;
}
