/**
 * What a process remembers of the PDFs it fingerprinted: per document, the fingerprint it computed
 * and the database's name for the state it computed it from (the document's inputs, see
 * ./representation.ts). It is only a hint to the database, which trusts it while the inputs and
 * the stored PDF still match; forgetting an entry costs one whole read. At most `max` documents
 * are remembered, the oldest forgotten first.
 */
import type { DocumentKind } from "../../db/rows.ts";

export interface Fingerprinted {
  inputs: string;
  fingerprint: string;
}

export class RememberedFingerprints {
  readonly #entries = new Map<string, Fingerprinted>();

  constructor(readonly max = 5_000) {}

  get(kind: DocumentKind, documentId: string): Fingerprinted | undefined {
    return this.#entries.get(`${kind}/${documentId}`);
  }

  set(kind: DocumentKind, documentId: string, entry: Fingerprinted): void {
    const key = `${kind}/${documentId}`;
    this.#entries.delete(key);
    if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, entry);
  }

  get size(): number {
    return this.#entries.size;
  }
}
