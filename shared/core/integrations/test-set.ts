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
 * One call at a time works on a company's set (a run lease in the database under the call's own
 * token, renewed each round: a call that lost it stops); another call meanwhile only reports. Each
 * call does a bounded amount of work: it starts each step — a note, a batch of invoices no bigger
 * than the transmit concurrency, a batch asked about — only when the step's provider calls can end
 * before its deadline (as reconcile does: shared/core/reconcile/run.ts), and sends at most
 * MAX_DOCUMENTS_PER_CALL documents (each is built and signed: CPU a request has little of). It issues
 * only what is still missing to reach each minimum, and the database never issues more than `send`
 * of a kind (under the run row's lock, even for calls that overlap); notes need an accepted invoice
 * of the set, so with none accepted and none under way one invoice is issued for them even when
 * `invoices.accept` is 0. It stops once the set is decided; a call that cannot finish answers
 * `en_proceso` with the progress, and the next call goes on. Documents DIAN answered with the closed
 * set's status 2 were not validated by the set: they count neither as accepted nor as rejected.
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
  // one step: a submit and GetStatusZip's two polls (or a query: GetStatusZip and GetStatus), each
  // within the provider timeout, and the polls' pauses. A step starts only when it can end before
  // the deadline: each note, each batch of invoices (no bigger than the transmit concurrency, so its
  // documents go side by side) and each batch asked about.
  const stepMs = 3 * ctx.providerTimeoutMs + 2_000;
  const run: Run = {
    ctx,
    input,
    left: MAX_DOCUMENTS_PER_CALL,
    fits: () => now() + stepMs <= deadline,
    lost: false,
  };

  checkTargets(input);
  let progress = await readProgress(ctx, input);
  const testSetId = progress.test_set_id as string;
  if (verdict(progress, input).status !== "en_proceso") return answer(progress, input, testSetId, "done");
  // one call at a time per company: two would each issue what is missing. The lease is this call's
  // (its token), renewed each round; the database never issues beyond `send` of a kind (the caps).
  const lease = {
    p_org_id: input.org_id,
    p_company_id: input.company_id,
    p_token: crypto.randomUUID(),
    p_caps: {
      test_set_id: testSetId,
      invoice: input.invoices.send,
      credit_note: input.credit_notes.send,
      debit_note: input.debit_notes.send,
    },
  };
  const seconds = Math.ceil((ctx.budgetMs + stepMs) / 1000) + 30;
  if (!(await ctx.serviceDb.call("einv_test_set_lease", { ...lease, p_seconds: seconds }))) {
    return answer(progress, input, testSetId, "busy");
  }
  try {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (verdict(progress, input).status !== "en_proceso") break;
      if (run.left <= 0 || !run.fits()) break;
      if (round > 0 && !(await ctx.serviceDb.call("einv_test_set_lease", { ...lease, p_seconds: seconds }))) {
        run.lost = true; // its lease ended and another call took it: that call goes on
        break;
      }
      const acted = await oneRound(run, progress, testSetId);
      if (acted === 0) break;
      const before = fingerprint(progress);
      progress = await readProgress(ctx, input);
      if (run.lost) break;
      // only asked about documents DIAN still validates, and nothing moved: the next call asks again
      if (fingerprint(progress) === before) break;
    }
  } finally {
    await ctx.serviceDb.call("einv_test_set_lease", { ...lease, p_seconds: 0 }).catch((error) => {
      // it ends by itself; the next call may have to wait for it
      ctx.log.warn("could not give back a test set's run lease", { company_id: input.company_id, error });
    });
  }
  const ended = run.lost ? "busy" : run.left <= 0 || !run.fits() ? "budget" : "done";
  return answer(progress, input, testSetId, ended);
}

/** One call's state: what it may still send, whether one more step fits its budget, whether it lost its lease. */
interface Run {
  ctx: TestSetContext;
  input: TestSetInput;
  left: number;
  fits: () => boolean;
  lost: boolean;
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
  if (input.invoices.send === 0 && (input.credit_notes.accept > 0 || input.debit_notes.accept > 0)) {
    throw new BusinessRuleError(
      "The set's notes need an accepted invoice of the set to be notes of, and invoices.send is 0: allow at least one invoice (invoices.send of 1 or more).",
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

/** Documents of a kind issued and not yet decided (neither accepted, rejected nor closed). */
const underWay = (k: TestSetKindProgress) => k.issued - k.accepted - k.rejected - k.closed;

/** Whether a note kind still needs documents the set has no accepted invoice for yet. */
export function notesWaitForInvoice(progress: TestSetProgress, input: TestSetInput): boolean {
  if (progress.base_invoice) return false;
  return (["credit_note", "debit_note"] as const).some((kind) => {
    const k = progress.kinds[kind];
    return k.accepted < input[FIELDS[kind]].accept && k.issued < input[FIELDS[kind]].send;
  });
}

/** The database refused a document beyond the run's `send` of its kind (another call issued it). */
const beyondSend = (error: unknown) =>
  error instanceof BusinessRuleError && /the run's cap/.test(error.message);

/**
 * One round: asks about what DIAN still validates, sends drafts left behind, issues what is missing.
 * Each step (a batch, a note) starts only when it fits the call's budget; answers the documents acted on.
 */
async function oneRound(run: Run, progress: TestSetProgress, testSetId: string): Promise<number> {
  const { ctx, input } = run;
  const start = run.left;
  const org = input.org_id;
  const batchSize = Math.max(1, ctx.concurrency);
  const transmit = async (kind: DocumentKind, ids: readonly string[], reissue: boolean) => {
    for (let at = 0; at < ids.length; at += batchSize) {
      if (run.left <= 0 || !run.fits()) return false;
      const batch = ids.slice(at, at + Math.min(batchSize, run.left));
      await transmitDocuments({
        ctx,
        kind: KINDS[kind],
        input: { org_id: org, document_ids: batch, reissue },
      });
      run.left -= batch.length;
    }
    return true;
  };
  // What DIAN is still validating, and drafts a call left unsent: the claim decides (query first).
  for (const kind of ORDER) {
    const { open, drafts } = progress.kinds[kind];
    if (!(await transmit(kind, open, true))) return start - run.left;
    if (!(await transmit(kind, drafts, false))) return start - run.left;
  }
  // What is still missing to reach each minimum: documents that are neither accepted nor on their way.
  for (const kind of ORDER) {
    const target = input[FIELDS[kind]];
    const k = progress.kinds[kind];
    let missing = Math.min(target.accept - k.accepted - underWay(k), target.send - k.issued, run.left);
    // notes need an accepted invoice of the set: with none accepted and none under way, one more
    if (kind === "invoice" && missing <= 0 && underWay(k) === 0 && notesWaitForInvoice(progress, input)) {
      missing = Math.min(1, target.send - k.issued, run.left);
    }
    if (missing <= 0) continue;
    if (kind === "invoice") {
      while (missing > 0 && run.left > 0 && run.fits()) {
        const count = Math.min(missing, batchSize, run.left);
        let ids: string[];
        try {
          ids = await ctx.serviceDb.call("einv_test_set_invoices", {
            p_org_id: org,
            p_company_id: input.company_id,
            p_test_set_id: testSetId,
            p_count: count,
          });
        } catch (error) {
          if (!beyondSend(error)) throw error;
          run.lost = true;
          return start - run.left;
        }
        await transmitDocuments({
          ctx,
          kind: invoiceKind,
          input: { org_id: org, document_ids: ids, reissue: false },
        });
        run.left -= ids.length;
        missing -= ids.length;
      }
      continue;
    }
    const base = progress.base_invoice;
    if (!base) continue; // notes wait for an accepted invoice of the set
    for (let n = 0; n < missing; n++) {
      if (run.left <= 0 || !run.fits()) return start - run.left;
      try {
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
              lines: [
                { description: "Intereses de mora (set de pruebas)", quantity: "1", unit_price: "1000" },
              ],
            },
          });
        }
      } catch (error) {
        if (!beyondSend(error)) throw error;
        run.lost = true;
        return start - run.left;
      }
      run.left--;
    }
  }
  return start - run.left;
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
    return sum + underWay(k);
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
          : notesWaitForInvoice(progress, input) &&
              (underWay(progress.kinds.invoice) > 0 || progress.kinds.invoice.issued < input.invoices.send)
            ? "The set's notes are waiting for an accepted invoice of the set (they are notes of it); call again to go on."
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
