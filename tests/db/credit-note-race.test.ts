/**
 * A new credit note racing a claim or a recorded outcome of an earlier note of the same invoice, on
 * two real connections. The earlier note N is in `error` (the authority did not accept it), so a
 * new note may take its line and discard it — but only from the status N has when the new note is
 * made. If a reissue has claimed N meanwhile (it may be accepted any moment), or a refresh has just
 * recorded N as accepted, the new note must refuse the line: otherwise the line is credited twice
 * at the authority while our books show N `descartada`.
 *
 * Each case holds one transaction open until the other connection is seen blocked on it, then ends
 * it, so the interleaving is forced rather than hoped for.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import { blockedOn, type HeldTransaction, openTransaction, settle } from "../support/held-transaction.ts";

const ON_PGLITE = inject("database").kind === "pglite";
const PGLITE_REASON =
  "PGlite has a single connection and runs one transaction at a time: two transactions cannot interleave";

let db: TestDatabase;
let tenant: Tenant;
beforeAll(async () => {
  if (ON_PGLITE) return;
  db = await createTestDatabase();
  tenant = await createTenant(db);
});
afterAll(() => db?.close());

const SERVICE = { role: "service_role" };
const service = () => openTransaction(db, "service_role", SERVICE);

const createSql = (invoice: Invoice, lineIds: string[]) =>
  `select public.einv_credit_note_create(p_org_id => '${tenant.org.id}', p_invoice_id => '${invoice.id}',
     p_concept_code => '1', p_reason => 'Devolución', p_lines => '${JSON.stringify(lineIds.map((line_id) => ({ line_id })))}'::jsonb,
     p_actor_id => null, p_lease_seconds => 60, p_issued_at => now()) as entry`;

const claimSql = (noteId: string) =>
  `select public.einv_document_claim(p_org_id => '${tenant.org.id}', p_kind => 'credit_note',
     p_document_ids => '["${noteId}"]'::jsonb, p_reissue => true, p_actor_id => null,
     p_lease_seconds => 60, p_issued_at => now()) -> 0 as entry`;

interface Entry {
  document_id: string;
  action: string;
  status: string;
  attempt?: number;
}

/** A transmitted invoice of two lines and a note for its first line that the authority rejected. */
async function rejectedNote(): Promise<{ invoice: Invoice; noteId: string; attempt: number; line: string }> {
  const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
  const line = invoice.lineIds[0] as string;
  const [created] = await db.superuser<{ entry: Entry }>(createSql(invoice, [line]));
  const entry = created?.entry as Entry;
  await db.superuser(
    `select public.einv_document_record($1, 'credit_note', $2, $3,
       jsonb_build_object('status', 'error', 'message', 'Rechazada: FAD06', 'submitted_attempt', $3::int,
                          'definite', true))`,
    [tenant.org.id, entry.document_id, entry.attempt ?? 1],
  );
  return { invoice, noteId: entry.document_id, attempt: entry.attempt ?? 1, line };
}

const statusOf = async (noteId: string): Promise<string> => {
  const [row] = await db.superuser<{ status: string }>(
    "select status from public.credit_notes where id = $1",
    [noteId],
  );
  return row?.status ?? "missing";
};

/** Standing notes crediting `line` (what the authority may have accepted, as far as we know). */
const standingNotesOf = async (line: string): Promise<number> => {
  const [row] = await db.superuser<{ n: number }>(
    `select count(*)::int as n from public.credit_note_lines c join public.credit_notes n on n.id = c.credit_note_id
      where c.invoice_line_id = $1 and n.status in ('en_proceso', 'emitida')`,
    [line],
  );
  return row?.n ?? 0;
};

/**
 * Holds `first` (already run in its own transaction), starts a new note for `line` on a second
 * connection, waits until it is blocked on the first, commits the first, and answers how the new
 * note ended.
 */
async function newNoteAfter(first: HeldTransaction, invoice: Invoice, line: string) {
  const second = await service();
  try {
    const made = settle(second.query<{ entry: Entry }>(createSql(invoice, [line])));
    expect(await blockedOn(db, second.pid, first.pid, made)).toBe(true);
    await first.end(true);
    const outcome = await made;
    await second.end(outcome.ok);
    return outcome;
  } finally {
    await first.end(false);
    await second.end(false);
  }
}

describe("a new credit note racing an earlier note of the same line", () => {
  it("a reissue that claimed the rejected note first: the new note refuses the line", async (ctx) => {
    ctx.skip(ON_PGLITE, PGLITE_REASON);
    const { invoice, noteId, line } = await rejectedNote();

    const reissue = await service();
    const [claimed] = await reissue.query<{ entry: Entry }>(claimSql(noteId));
    expect(claimed?.entry.action).not.toBe("skip"); // the reissue holds N, about to send it

    const made = await newNoteAfter(reissue, invoice, line);
    expect(made).toMatchObject({ ok: false, code: "P0001", message: `line_already_credited:${line}` });
    expect(await statusOf(noteId)).toBe("en_proceso");
    expect(await standingNotesOf(line)).toBe(1);
  });

  it("a refresh that just recorded the note as accepted: the new note refuses the line", async (ctx) => {
    ctx.skip(ON_PGLITE, PGLITE_REASON);
    const { invoice, noteId, attempt, line } = await rejectedNote();

    const refresh = await service();
    await refresh.query(
      `select public.einv_document_refresh_record($1, 'credit_note', $2, 'error', $3,
         jsonb_build_object('status', 'emitida', 'authority_code', repeat('c', 96), 'message', 'accepted'))`,
      [tenant.org.id, noteId, attempt],
    );

    const made = await newNoteAfter(refresh, invoice, line);
    expect(made).toMatchObject({ ok: false, code: "P0001", message: `line_already_credited:${line}` });
    expect(await statusOf(noteId)).toBe("emitida");
    expect(await standingNotesOf(line)).toBe(1);
  });

  it("a new note made first: the reissue then finds the earlier note discarded and sends nothing", async (ctx) => {
    ctx.skip(ON_PGLITE, PGLITE_REASON);
    const { invoice, noteId, line } = await rejectedNote();

    const maker = await service();
    const reissue = await service();
    try {
      const [made] = await maker.query<{ entry: Entry }>(createSql(invoice, [line]));
      expect(made?.entry.action).toBe("send");
      const claim = settle(reissue.query<{ entry: Entry }>(claimSql(noteId)));
      expect(await blockedOn(db, reissue.pid, maker.pid, claim)).toBe(true);
      await maker.end(true);
      const claimed = await claim;
      await reissue.end(true);
      expect(claimed.ok && claimed.value[0]?.entry).toMatchObject({ action: "skip", status: "descartada" });
    } finally {
      await maker.end(false);
      await reissue.end(false);
    }
    expect(await statusOf(noteId)).toBe("descartada");
    expect(await standingNotesOf(line)).toBe(1);
  });

  it("a rejected note with nothing racing it is still replaced, its line credited once", async (ctx) => {
    ctx.skip(ON_PGLITE, PGLITE_REASON);
    const { invoice, noteId, line } = await rejectedNote();
    const [made] = await db.superuser<{ entry: Entry }>(createSql(invoice, [line]));
    expect(made?.entry.action).toBe("send");
    expect(await statusOf(noteId)).toBe("descartada");
    expect(await standingNotesOf(line)).toBe(1);
  });
});
