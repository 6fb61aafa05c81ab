/**
 * What the stand-in remembers, in memory and bounded: every document it validated, by its
 * CUFE/CUDE (GetStatus's trackId) and by issuer + type + number (DIAN's duplicate check keys a
 * document both ways: [D] `DianPAServices.CheckDocumentDuplicity`, the identifier
 * SHA-256(senderCode + documentType + serie + number)); and the test-set batches by ZipKey. Past
 * MAX_DOCUMENTS / MAX_BATCHES the oldest are forgotten, so a long `npm start` cannot grow without end.
 */
import type { DianResponse } from "./answers.ts";
import type { ReceivedDocument } from "./document.ts";

export const STORE_LIMITS = { documents: 10_000, batches: 1_000 } as const;

export interface StoredDocument {
  /** The CUFE/CUDE, lowercase. */
  key: string;
  identity: string;
  response: DianResponse;
  accepted: boolean;
}

export interface Batch {
  zipKey: string;
  testSetId: string;
  fileName: string;
  /** Status calls (GetStatusZip, or GetStatus of one of its documents) that still answer "in process" (0: done unless held). */
  pollsLeft: number;
  /** Held in process until released (knob or POST /_sandbox/dian/release). */
  held: boolean;
  /** The documents' answers, computed on arrival and shown once the batch is done. */
  responses: DianResponse[];
}

const identityOf = (doc: ReceivedDocument) =>
  `${doc.supplier.id}|${doc.typeCode}|${doc.control.prefix ?? ""}|${doc.id}`;

export class DianStore {
  private readonly byKey = new Map<string, StoredDocument>();
  private readonly acceptedByIdentity = new Map<string, StoredDocument>();
  readonly batches = new Map<string, Batch>();

  /** Called with every document recorded (the stand-in's log on disk: ./persistence.ts). */
  onRecord: ((stored: StoredDocument) => void) | undefined;

  /** Records a validated document's answer; an accepted one is what later duplicates point to. */
  record(doc: ReceivedDocument, response: DianResponse): void {
    const stored: StoredDocument = {
      key: doc.uuid.toLowerCase(),
      identity: identityOf(doc),
      response,
      accepted: response.IsValid,
    };
    this.keep(stored);
    this.onRecord?.(stored);
  }

  /** Takes back a document recorded before (a restart reading the log). */
  restore(stored: StoredDocument): void {
    this.keep(stored);
  }

  private keep(stored: StoredDocument): void {
    this.byKey.delete(stored.key);
    this.byKey.set(stored.key, stored);
    if (stored.accepted) this.acceptedByIdentity.set(stored.identity, stored);
    while (this.byKey.size > STORE_LIMITS.documents) {
      const oldest = this.byKey.keys().next().value as string;
      const dropped = this.byKey.get(oldest);
      this.byKey.delete(oldest);
      if (dropped && this.acceptedByIdentity.get(dropped.identity) === dropped) {
        this.acceptedByIdentity.delete(dropped.identity);
      }
    }
  }

  /** The earlier accepted document `doc` repeats (same CUFE/CUDE, or same issuer, type and number). */
  acceptedDuplicate(doc: ReceivedDocument): StoredDocument | undefined {
    const byKey = this.byKey.get(doc.uuid.toLowerCase());
    if (byKey?.accepted) return byKey;
    return this.acceptedByIdentity.get(identityOf(doc));
  }

  find(key: string): StoredDocument | undefined {
    return this.byKey.get(key.toLowerCase());
  }

  addBatch(batch: Batch): void {
    this.batches.set(batch.zipKey, batch);
    while (this.batches.size > STORE_LIMITS.batches) {
      this.batches.delete(this.batches.keys().next().value as string);
    }
  }

  /**
   * Whether `key` belongs to a batch still in process (GetStatus answers 98 for it). Asking counts
   * as one of the batch's polls: DIAN validates a batch on its own, so a client that never learnt
   * the ZipKey (its SendTestSetAsync answer was lost) and asks GetStatus alone sees it settle too.
   */
  pollDocument(key: string): boolean {
    for (const batch of this.batches.values()) {
      if (!(batch.held || batch.pollsLeft > 0)) continue;
      if (!batch.responses.some((r) => r.XmlDocumentKey === key)) continue;
      if (!batch.held) batch.pollsLeft--;
      return true;
    }
    return false;
  }

  get documents(): StoredDocument[] {
    return [...this.byKey.values()];
  }

  clear(): void {
    this.byKey.clear();
    this.acceptedByIdentity.clear();
    this.batches.clear();
  }
}
