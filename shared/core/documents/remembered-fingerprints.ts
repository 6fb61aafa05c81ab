/**
 * What a process remembers of the PDFs it fingerprinted: per document, the fingerprint it computed
 * and the database's name for the state it computed it from (the document's inputs, see
 * ./representation.ts). It is only a hint to the database, which trusts it while the inputs and
 * the stored PDF still match; forgetting an entry costs one whole read. At most `max` documents,
 * the least recently used forgotten first, each for at most `ttlMs` after the whole read it came
 * from. Entries are per org as well: the database checks the org anyway.
 */
import type { DocumentKind } from "../../kernel/rows.ts";

export interface Fingerprinted {
  inputs: string;
  fingerprint: string;
}

export class RememberedFingerprints {
  readonly #entries = new Map<string, Fingerprinted & { until: number }>();
  readonly max: number;
  readonly ttlMs: number;

  constructor(options: { max?: number; ttlMs?: number } = {}) {
    this.max = options.max ?? 5_000;
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
  }

  get(kind: DocumentKind, orgId: string, documentId: string): Fingerprinted | undefined {
    const key = `${kind}/${orgId}/${documentId}`;
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (entry.until <= performance.now()) return undefined;
    this.#entries.set(key, entry); // the most recently used is forgotten last
    return { inputs: entry.inputs, fingerprint: entry.fingerprint };
  }

  set(kind: DocumentKind, orgId: string, documentId: string, { inputs, fingerprint }: Fingerprinted): void {
    if (!(this.max > 0)) return;
    const key = `${kind}/${orgId}/${documentId}`;
    this.#entries.delete(key);
    if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, { inputs, fingerprint, until: performance.now() + this.ttlMs });
  }

  get size(): number {
    return this.#entries.size;
  }
}
