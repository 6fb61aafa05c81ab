/**
 * A habilitación test set's tally, as DIAN's validator keeps it (brief-business §2): every document
 * a test-set batch brings counts as sent, then accepted or rejected, per kind — types 01/02/03 are
 * invoices, 91 credit notes, 92 debit notes ([D] `UpdateTestSetResult.cs`). The set is accepted
 * when accepted invoices, credit notes and debit notes each reach their minimum, and rejected when
 * the rejected documents exceed what the set can absorb: its total required minus its accepted
 * required. The numbers are data per set ([D] `GlobalTestSet.cs`): a set added without them (and
 * no `testSetRequired` knob) keeps counting but never closes, as the stand-in did before, so a
 * local run's everyday transmissions through the demo's set keep being validated.
 *
 * Once a set is closed, GetStatusZip of a later batch of it answers the set's status, not the
 * document's ([F] GetStatusZip_habilitation.xml): StatusCode 2, IsValid false, "Set de prueba con
 * identificador <id> se encuentra Aceptado." (or Rechazado), no XmlDocumentKey, no ApplicationResponse.
 */
import { z } from "zod";
import { type DianResponse, emptyDianResponse } from "./answers.ts";

const count = z.number().int().min(0).max(10_000);

/** What a set requires ([D] GlobalTestSet: TotalDocumentRequired, …AcceptedRequired). */
export const TestSetRequirement = z.strictObject({
  /** Documents to send in all, and of each kind. */
  documents: count,
  invoices: count,
  creditNotes: count,
  debitNotes: count,
  /** Accepted documents required in all, and the minimum of each kind. */
  acceptedDocuments: count,
  acceptedInvoices: count,
  acceptedCreditNotes: count,
  acceptedDebitNotes: count,
});
export type TestSetRequirement = z.infer<typeof TestSetRequirement>;

/**
 * The one set observed on DIAN's portal (brief-business §2, [V] `dian-test-set-composition.ts`):
 * 50 documents = 30 invoices + 10 credit + 10 debit notes; accepted minimum 1 document, 1 invoice,
 * 0 credit notes, 0 debit notes.
 */
export const OBSERVED_TEST_SET: TestSetRequirement = {
  documents: 50,
  invoices: 30,
  creditNotes: 10,
  debitNotes: 10,
  acceptedDocuments: 1,
  acceptedInvoices: 1,
  acceptedCreditNotes: 0,
  acceptedDebitNotes: 0,
};

export type TestSetKind = "invoices" | "creditNotes" | "debitNotes";
export type TestSetStatus = "en_proceso" | "aceptado" | "rechazado";

interface Counts {
  sent: number;
  accepted: number;
  rejected: number;
}

export interface TestSetTally {
  testSetId: string;
  status: TestSetStatus;
  invoices: Counts;
  creditNotes: Counts;
  debitNotes: Counts;
  /** Documents of no kind DIAN knows (unreadable, no schema): they count as rejected documents. */
  other: Counts;
  /** CUFE/CUDEs counted already: a document sent again is not counted twice. */
  counted: Set<string>;
}

/** The most documents one tally remembers (a set asks for tens). */
export const MAX_TALLIED = 10_000;

export function newTally(testSetId: string): TestSetTally {
  const zero = () => ({ sent: 0, accepted: 0, rejected: 0 });
  return {
    testSetId,
    status: "en_proceso",
    invoices: zero(),
    creditNotes: zero(),
    debitNotes: zero(),
    other: zero(),
    counted: new Set(),
  };
}

/** DIAN's document type → the tally's kind: 01, 02, 03 invoices; 91 credit notes; 92 debit notes. */
export function kindOfType(typeCode: string | undefined): TestSetKind | "other" {
  if (typeCode === "01" || typeCode === "02" || typeCode === "03") return "invoices";
  if (typeCode === "91") return "creditNotes";
  if (typeCode === "92") return "debitNotes";
  return "other";
}

/**
 * Counts one validated document (`key` its CUFE/CUDE, when it has one) and updates the status under
 * `required` (null: the set never closes). A closed set counts nothing more.
 */
export function tallyDocument(
  tally: TestSetTally,
  required: TestSetRequirement | null,
  document: { typeCode: string | undefined; key: string | null; accepted: boolean },
): void {
  if (tally.status !== "en_proceso") return;
  if (document.key !== null) {
    if (tally.counted.has(document.key) || tally.counted.size >= MAX_TALLIED) return;
    tally.counted.add(document.key);
  }
  const counts = tally[kindOfType(document.typeCode)];
  counts.sent++;
  if (document.accepted) counts.accepted++;
  else counts.rejected++;
  tally.status = tallyStatus(tally, required);
}

/** DIAN's verdict on the counts ([D] UpdateTestSetResult): accepted first, then rejected. */
export function tallyStatus(
  tally: Pick<TestSetTally, TestSetKind | "other">,
  required: TestSetRequirement | null,
): TestSetStatus {
  if (required === null) return "en_proceso";
  if (
    tally.invoices.accepted >= required.acceptedInvoices &&
    tally.creditNotes.accepted >= required.acceptedCreditNotes &&
    tally.debitNotes.accepted >= required.acceptedDebitNotes
  ) {
    return "aceptado";
  }
  const rejected =
    tally.invoices.rejected + tally.creditNotes.rejected + tally.debitNotes.rejected + tally.other.rejected;
  if (rejected > required.documents - required.acceptedDocuments) return "rechazado";
  return "en_proceso";
}

/** GetStatusZip's answer for a batch of a closed set ([F] GetStatusZip_habilitation.xml). */
export function setStatusResponse(
  testSetId: string,
  status: Exclude<TestSetStatus, "en_proceso">,
): DianResponse {
  return {
    ...emptyDianResponse(),
    IsValid: false,
    StatusCode: "2",
    StatusDescription: `Set de prueba con identificador ${testSetId} se encuentra ${
      status === "aceptado" ? "Aceptado" : "Rechazado"
    }.`,
  };
}
