/**
 * What the stand-in remembers, in memory and bounded: every document it validated, by its
 * CUFE/CUDE (GetStatus's trackId) and by issuer + type + number (DIAN's duplicate check keys a
 * document both ways: [D] `DianPAServices.CheckDocumentDuplicity`, the identifier
 * SHA-256(senderCode + documentType + serie + number)); and the test-set batches by ZipKey. Past
 * STORE_LIMITS.documents / batches the oldest are forgotten, so a long `npm start` cannot grow
 * without end.
 *
 * For an accepted document it also keeps the XML as received, which GetXmlByDocumentKey answers
 * (DIAN keeps every document it validated: [D] `DianPAServices.GetXmlByDocumentKey` reads it from
 * its storage, and finds only documents it recorded as valid, `UploadDocumentSync`). A rejected
 * document's XML is never kept — DIAN answers 404 for it anyway — and the copies, up to 10 MiB
 * each, are bounded as a whole: past STORE_LIMITS.xmlChars (base64) the oldest copies are dropped,
 * their documents still known to GetStatus; GetXmlByDocumentKey then answers 404, as DIAN does
 * when its storage has no file.
 */
import { toBase64 } from "../../shared/ports/providers/deliver.ts";
import type { DianResponse } from "./answers.ts";
import type { ReceivedDocument } from "./document.ts";
import { newTally, type TestSetTally } from "./test-sets.ts";

/** xmlChars: the copies' base64 in all, 64 Mi characters (some 3 000 of our 16 KB invoices). */
export const STORE_LIMITS = { documents: 10_000, batches: 1_000, xmlChars: 64 * 1024 * 1024 } as const;

export interface StoredDocument {
  /** The CUFE/CUDE, lowercase. */
  key: string;
  /** The issuer's NIT, the document type, the prefix and the number: `901234567|01|SETP|SETP990000001`. */
  identity: string;
  /** Its IssueDate: what a note referencing it is compared with ([D] ValidateNoteReference, xBG06). */
  issueDate?: string;
  response: DianResponse;
  accepted: boolean;
  /** An accepted document's XML as received; null for a rejected one, or once dropped. */
  copy?: StoredCopy | null;
}

/** What GetXmlByDocumentKey needs: the XML, and the NITs it checks the reader's certificate against. */
export interface StoredCopy {
  /** The XML's bytes exactly as they arrived in the ZIP, base64 (XmlBytesBase64 as DIAN answers it). */
  xmlBase64: string;
  senderCode: string;
  receiverCode: string;
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

/** Past this many test sets the oldest tally is forgotten (the registry holds at most as many sets). */
const MAX_TALLIES = 1_000;

const identityOf = (doc: ReceivedDocument) =>
  `${doc.supplier.id}|${doc.typeCode}|${doc.control.prefix ?? ""}|${doc.id}`;

export class DianStore {
  private readonly byKey = new Map<string, StoredDocument>();
  private readonly acceptedByIdentity = new Map<string, StoredDocument>();
  /** The documents holding a copy, oldest first, and the copies' size in all. */
  private readonly withCopy = new Map<string, StoredDocument>();
  private copyChars = 0;
  readonly batches = new Map<string, Batch>();
  private readonly tallies = new Map<string, TestSetTally>();

  /** The tally of test set `id` (./test-sets.ts), made on first use. */
  tally(id: string): TestSetTally {
    let tally = this.tallies.get(id);
    if (!tally) {
      tally = newTally(id);
      this.tallies.set(id, tally);
      if (this.tallies.size > MAX_TALLIES) this.tallies.delete(this.tallies.keys().next().value as string);
    }
    return tally;
  }

  /** Called with every document recorded (the stand-in's log on disk: ./persistence.ts). */
  onRecord: ((stored: StoredDocument) => void) | undefined;

  /**
   * Records a validated document's answer; an accepted one is what later duplicates point to, and
   * its `xml` (the bytes received) is kept for GetXmlByDocumentKey.
   */
  record(doc: ReceivedDocument, response: DianResponse, xml?: Uint8Array): void {
    const stored: StoredDocument = {
      key: doc.uuid.toLowerCase(),
      identity: identityOf(doc),
      issueDate: doc.issueDate,
      response,
      accepted: response.IsValid,
      copy:
        response.IsValid && xml
          ? { xmlBase64: toBase64(xml), senderCode: doc.supplier.id, receiverCode: doc.customer.id }
          : null,
    };
    this.keep(stored);
    this.onRecord?.(stored);
  }

  /** Takes back a document recorded before (a restart reading the log). */
  restore(stored: StoredDocument): void {
    this.keep(stored);
  }

  private keep(stored: StoredDocument): void {
    this.forgetCopy(stored.key);
    this.byKey.delete(stored.key);
    this.byKey.set(stored.key, stored);
    if (stored.accepted) this.acceptedByIdentity.set(stored.identity, stored);
    if (stored.copy) {
      this.withCopy.set(stored.key, stored);
      this.copyChars += stored.copy.xmlBase64.length;
    }
    while (this.copyChars > STORE_LIMITS.xmlChars) {
      this.forgetCopy(this.withCopy.keys().next().value as string);
    }
    while (this.byKey.size > STORE_LIMITS.documents) {
      const oldest = this.byKey.keys().next().value as string;
      const dropped = this.byKey.get(oldest);
      this.forgetCopy(oldest);
      this.byKey.delete(oldest);
      if (dropped && this.acceptedByIdentity.get(dropped.identity) === dropped) {
        this.acceptedByIdentity.delete(dropped.identity);
      }
    }
  }

  /** Drops the copy kept under `key`, if any; the document itself stays known. */
  private forgetCopy(key: string): void {
    const holder = this.withCopy.get(key);
    if (!holder) return;
    this.withCopy.delete(key);
    this.copyChars -= holder.copy?.xmlBase64.length ?? 0;
    holder.copy = null;
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
    const batch = this.batchInProcess(key);
    if (batch && !batch.held) batch.pollsLeft--;
    return batch !== undefined;
  }

  /** The batch still in process that holds `key`'s document, if any (nothing counted). */
  batchInProcess(key: string): Batch | undefined {
    for (const batch of this.batches.values()) {
      if (!(batch.held || batch.pollsLeft > 0)) continue;
      if (batch.responses.some((r) => r.XmlDocumentKey === key)) return batch;
    }
    return undefined;
  }

  get documents(): StoredDocument[] {
    return [...this.byKey.values()];
  }

  clear(): void {
    this.byKey.clear();
    this.acceptedByIdentity.clear();
    this.withCopy.clear();
    this.copyChars = 0;
    this.batches.clear();
    this.tallies.clear();
  }
}
