/**
 * runTestSet: habilitación's test set in one call (DESIGN §14). DIAN asks a company in habilitación
 * for invoices, credit notes and debit notes sent under its TestSetId, and a minimum of each
 * accepted; the set is accepted when every kind reaches its minimum, rejected when the rejected
 * documents exceed what the set can absorb (its total minus its accepted minimums; brief-business
 * §2, [D] UpdateTestSetResult).
 *
 * Nothing here sends a document itself: the set's documents are documents of the one lifecycle.
 * Its invoices are drafts the database writes (`einv_test_set_invoices`, marked with the set's id,
 * numbered apart from the company's own) and the lifecycle's claim sends; its notes are made by the
 * kinds' own create functions, of the set's first accepted invoice. So a document is sent exactly
 * once whatever happens to a call (claims and leases), a draft a crashed call left is sent by the
 * next, and a document DIAN still validates (a test-set batch: GetStatusZip) is asked about with the
 * claim's query-before-resend (`reissue` of an `en_proceso` document no transmission holds), never
 * re-sent blindly. Accepted and rejected documents are never sent again.
 *
 * One call at a time works on a company's set (a run lease in the database: two calls would each
 * issue what is missing); another call meanwhile only reports. Each call does a bounded amount of work: it starts a round only when the round's provider calls
 * can end before its deadline (as reconcile does: shared/core/reconcile/run.ts), and sends at most
 * MAX_DOCUMENTS_PER_CALL documents (each is built and signed: CPU a request has little of). It issues
 * only what is still missing to reach each minimum (never more than `send` of a kind), and stops
 * once the set is decided; a call that cannot finish answers `en_proceso` with the progress, and the
 * next call goes on.
 */

import { testSetStatusOf } from "../../co/test-set.ts";
import { BusinessRuleError } from "../../kernel/errors.ts";
import type { DocumentKind } from "../../kernel/rows.ts";
import type { Clock } from "../../ports/clock.ts";
import type { TestSetKindProgress, TestSetProgress } from "../../ports/db/catalogue.ts";
import { createCreditNote } from "../credit-notes/create.ts";
import { creditNoteKind } from "../credit-notes/kind.ts";
import { createDebitNote } from "../debit-notes/create.ts";
import { debitNoteKind } from "../debit-notes/kind.ts";
import { type TransmitContext, transmitDocuments } from "../documents/transmit.ts";
import { invoiceKind } from "../invoices/kind.ts";

/** What the set asks of one kind: how many to send at most, and the minimum accepted. */
export interface KindTarget {
  send: number;
  accept: number;
}

export interface TestSetInput {
  org_id: string;
  company_id: string;
  invoices: KindTarget;
  credit_notes: KindTarget;
  debit_notes: KindTarget;
}

export type TestSetStatus = "en_proceso" | "aceptado" | "rechazado";

export interface KindProgress {
  /** Documents of the kind sent to DIAN under the set. */
  sent: number;
  accepted: number;
  rejected: number;
  /** The minimum accepted the set asks for. */
  required: number;
}

export interface TestSetResult {
  status: TestSetStatus;
  /** Whether DIAN itself said the set's status, rather than the counts against the request's minimums. */
  confirmed_by_dian: boolean;
  test_set_id: string;
  invoices: KindProgress;
  credit_notes: KindProgress;
  debit_notes: KindProgress;
  message: string;
}

export interface TestSetContext extends TransmitContext {
  clock: Clock;
  /** How long one call may work (the reconcile budget: sized for a request's wall-clock limit). */
  budgetMs: number;
}

/** Documents sent (or asked about) by one call at most: each is built and signed, CPU a request has little of. */
export const MAX_DOCUMENTS_PER_CALL = 10;
/** Rounds of one call at most: each sends or asks about something, or the call ends. */
const MAX_ROUNDS = 10;

const FIELDS = { invoice: "invoices", credit_note: "credit_notes", debit_note: "debit_notes" } as const;
const KINDS = { invoice: invoiceKind, credit_note: creditNoteKind, debit_note: debitNoteKind } as const;
const ORDER: readonly DocumentKind[] = ["invoice", "credit_note", "debit_note"];

/** Runs (or goes on with) the company's test set; answers where it stands. */
export async function runTestSet({
  ctx,
  input,
}: {
  ctx: TestSetContext;
  input: TestSetInput;
}): Promise<TestSetResult> {
  const now = () => ctx.clock.now().getTime();
  const deadline = now() + ctx.budgetMs;
  // a round: a submit and GetStatusZip's two polls (or a query: GetStatusZip and GetStatus), each
  // within the provider timeout, and the polls' pauses
  const roundMs = 3 * ctx.providerTimeoutMs + 2_000;
  let left = MAX_DOCUMENTS_PER_CALL;

  checkTargets(input);
  let progress = await readProgress(ctx, input);
  const testSetId = progress.test_set_id as string;
  if (verdict(progress, input).status !== "en_proceso") return answer(progress, input, testSetId, "done");
  // one call at a time per company: two would each issue what is missing
  const lease = { p_org_id: input.org_id, p_company_id: input.company_id };
  const seconds = Math.ceil((ctx.budgetMs + roundMs) / 1000) + 30;
  if (!(await ctx.serviceDb.call("einv_test_set_lease", { ...lease, p_seconds: seconds }))) {
    return answer(progress, input, testSetId, "busy");
  }
  try {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (verdict(progress, input).status !== "en_proceso") break;
      if (left <= 0 || now() + roundMs > deadline) break;
      const acted = await oneRound(ctx, input, progress, testSetId, left);
      if (acted === 0) break;
      left -= acted;
      const before = fingerprint(progress);
      progress = await readProgress(ctx, input);
      // only asked about documents DIAN still validates, and nothing moved: the next call asks again
      if (fingerprint(progress) === before) break;
    }
  } finally {
    await ctx.serviceDb.call("einv_test_set_lease", { ...lease, p_seconds: 0 }).catch((error) => {
      // it ends by itself; the next call may have to wait for it
      ctx.log.warn("could not give back a test set's run lease", { company_id: input.company_id, error });
    });
  }
  return answer(progress, input, testSetId, left <= 0 || now() + roundMs > deadline ? "budget" : "done");
}

/** A set DIAN could accept: each kind's minimum within what is sent of it, and one document at least. */
function checkTargets(input: TestSetInput): void {
  for (const kind of ORDER) {
    const { send, accept } = input[FIELDS[kind]];
    if (accept > send) {
      throw new BusinessRuleError(
        `${FIELDS[kind]}.accept (${accept}) exceeds ${FIELDS[kind]}.send (${send}): DIAN cannot accept more documents than are sent.`,
      );
    }
  }
  if (ORDER.every((kind) => input[FIELDS[kind]].accept === 0)) {
    throw new BusinessRuleError(
      "The set must ask DIAN to accept at least one document (an `accept` of 1 or more).",
    );
  }
}

/** The set's progress, refusing a company that cannot run one. */
async function readProgress(ctx: TestSetContext, input: TestSetInput): Promise<TestSetProgress> {
  const progress = await ctx.serviceDb.call("einv_test_set_progress", {
    p_org_id: input.org_id,
    p_company_id: input.company_id,
  });
  if (progress.provider !== "dian") {
    throw new BusinessRuleError(
      'The company\'s habilitación (uat) adapter-tax credential is not in DIAN mode: save it with settings.provider "dian" first (/integrations/save).',
    );
  }
  if (!progress.test_set_id) {
    throw new BusinessRuleError(
      "The company's habilitación (uat) credential has no settings.test_set_id: save the TestSetId DIAN's portal shows (/integrations/save).",
    );
  }
  if (progress.environment !== "uat") {
    throw new BusinessRuleError(
      "The company's active environment is prd (production): a test set is sent in habilitación only. Set active_environment to uat to run it.",
    );
  }
  return progress;
}

/** One round: asks about what DIAN still validates, sends drafts left behind, issues what is missing. */
async function oneRound(
  ctx: TestSetContext,
  input: TestSetInput,
  progress: TestSetProgress,
  testSetId: string,
  budget: number,
): Promise<number> {
  let left = budget;
  const org = input.org_id;
  // What DIAN is still validating, and drafts a call left unsent: the claim decides (query first).
  for (const kind of ORDER) {
    const { open, drafts } = progress.kinds[kind];
    for (const [ids, reissue] of [
      [open, true],
      [drafts, false],
    ] as const) {
      const batch = ids.slice(0, left);
      if (batch.length === 0) continue;
      await transmitDocuments({
        ctx,
        kind: KINDS[kind],
        input: { org_id: org, document_ids: batch, reissue },
      });
      left -= batch.length;
    }
  }
  // What is still missing to reach each minimum: documents that are neither accepted nor on their way.
  for (const kind of ORDER) {
    const target = input[FIELDS[kind]];
    const k = progress.kinds[kind];
    const onTheirWay = k.issued - k.accepted - k.rejected;
    const missing = Math.min(target.accept - k.accepted - onTheirWay, target.send - k.issued, left);
    if (missing <= 0) continue;
    if (kind === "invoice") {
      const ids = await ctx.serviceDb.call("einv_test_set_invoices", {
        p_org_id: org,
        p_company_id: input.company_id,
        p_test_set_id: testSetId,
        p_count: missing,
      });
      await transmitDocuments({
        ctx,
        kind: invoiceKind,
        input: { org_id: org, document_ids: ids, reissue: false },
      });
      left -= ids.length;
      continue;
    }
    const base = progress.base_invoice;
    if (!base) continue; // notes wait for an accepted invoice of the set
    for (let n = 0; n < missing; n++) {
      if (kind === "credit_note") {
        await createCreditNote({
          ctx,
          input: {
            org_id: org,
            invoice_id: base.id,
            concept_code: "1",
            reason: "Devolución parcial (set de pruebas de habilitación)",
            lines: [{ line_id: base.line_id, quantity: "1" }],
          },
        });
      } else {
        await createDebitNote({
          ctx,
          input: {
            org_id: org,
            invoice_id: base.id,
            concept_code: "1",
            reason: "Intereses de mora (set de pruebas de habilitación)",
            lines: [{ description: "Intereses de mora (set de pruebas)", quantity: "1", unit_price: "1000" }],
          },
        });
      }
      left--;
    }
  }
  return budget - left;
}

/** What a round can change: documents issued, sent, accepted, rejected, of each kind. */
const fingerprint = (progress: TestSetProgress) =>
  ORDER.map((kind) => {
    const k = progress.kinds[kind];
    return `${k.issued}/${k.sent}/${k.accepted}/${k.rejected}`;
  }).join(" ");

/** The set's status: DIAN's own word when it gave one, else the counts under DIAN's rules. */
function verdict(progress: TestSetProgress, input: TestSetInput): { status: TestSetStatus; said: boolean } {
  const said = progress.set_words ? testSetStatusOf(progress.set_words) : null;
  if (said) return { status: said.status, said: true };
  const reached = ORDER.every((kind) => progress.kinds[kind].accepted >= input[FIELDS[kind]].accept);
  if (reached) return { status: "aceptado", said: false };
  if (rejected(progress) > absorbable(input)) return { status: "rechazado", said: false };
  return { status: "en_proceso", said: false };
}

const rejected = (progress: TestSetProgress) =>
  ORDER.reduce((sum, kind) => sum + progress.kinds[kind].rejected, 0);

/** The rejections a set can take: its total minus its accepted minimums. */
const absorbable = (input: TestSetInput) =>
  ORDER.reduce((sum, kind) => sum + input[FIELDS[kind]].send - input[FIELDS[kind]].accept, 0);

function answer(
  progress: TestSetProgress,
  input: TestSetInput,
  testSetId: string,
  /** How the call ended: nothing more to do now, its budget spent, or another call at work. */
  ended: "done" | "budget" | "busy",
): TestSetResult {
  const { status, said } = verdict(progress, input);
  const of = (kind: DocumentKind): KindProgress => {
    const k: TestSetKindProgress = progress.kinds[kind];
    return { sent: k.sent, accepted: k.accepted, rejected: k.rejected, required: input[FIELDS[kind]].accept };
  };
  const waiting = ORDER.reduce((sum, kind) => {
    const k = progress.kinds[kind];
    return sum + k.issued - k.accepted - k.rejected;
  }, 0);
  const message =
    status === "aceptado"
      ? said
        ? "DIAN says the test set is accepted (Aceptado). Go on to production (docs/dian.md, step 5)."
        : "The test set reached every minimum you gave: DIAN's validator accepts a set then. Check that DIAN's portal shows it Aceptado, then go on to production (docs/dian.md, step 5)."
      : status === "rechazado"
        ? said
          ? "DIAN says the test set is rejected (Rechazado): ask DIAN's portal for a new test set and save its id."
          : `${rejected(progress)} documents of the set were rejected, more than the ${absorbable(input)} it can absorb with the numbers you gave: DIAN's validator rejects a set then. See each document's authority_rules, check DIAN's portal, and ask it for a new test set.`
        : ended === "busy"
          ? "Another call is running this company's test set right now; call again shortly to see its progress."
          : waiting > 0
            ? `${waiting} document(s) of the set await DIAN's validation; call again to follow them.`
            : ended === "budget"
              ? "This call did what it could within its time budget; call again to go on."
              : "The set cannot reach its minimums with the documents left to send: raise `send` or ask DIAN's portal for a new test set.";
  return {
    status,
    confirmed_by_dian: said,
    test_set_id: testSetId,
    invoices: of("invoice"),
    credit_notes: of("credit_note"),
    debit_notes: of("debit_note"),
    message,
  };
}
