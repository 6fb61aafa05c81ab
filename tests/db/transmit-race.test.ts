/**
 * A line edit racing a transmission claim, on two real connections. Whatever the order, what the
 * claim returns as the document (and the service sends) must be what stays stored: an edit in
 * flight holds the claim back until it commits, and an edit that comes after the claim waits for
 * it and then fails (P0001) because the invoice is no longer `pendiente`.
 *
 * Each case is made deterministic by holding one transaction open until the other connection is
 * seen blocked on it (or has finished, which is the bug) before ending it.
 */
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type ApiRole, createTestDatabase, type Param, type TestDatabase } from "../support/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../support/factories.ts";

const ON_PGLITE = inject("database").kind === "pglite";
const PGLITE_REASON =
  "PGlite has a single connection and runs one transaction at a time: two transactions cannot interleave";

let db: TestDatabase;
beforeAll(async () => {
  if (!ON_PGLITE) db = await createTestDatabase();
});
afterAll(() => db?.close());

const FROZEN = "P0001";

/** A transaction on its own connection, kept open until `end` (see `sql.begin`). */
interface HeldTransaction {
  pid: number;
  query<R = Record<string, unknown>>(text: string, params?: Param[]): Promise<R[]>;
  /** Commits (or rolls back) and closes the connection; rejects with what failed the transaction, if any. */
  end(commit: boolean): Promise<void>;
}

const ROLLBACK = new Error("rollback requested by the test");

async function openTransaction(role: ApiRole, claims: Record<string, unknown>): Promise<HeldTransaction> {
  const url = db.url;
  if (!url) throw new Error("a PostgreSQL URL is needed for a second connection");
  const sql = postgres(url, { max: 1, prepare: false, onnotice: () => {} });
  let finish: (commit: boolean) => void = () => {};
  const finished = new Promise<boolean>((resolve) => {
    finish = resolve;
  });
  let opened: (tx: postgres.TransactionSql) => void = () => {};
  const open = new Promise<postgres.TransactionSql>((resolve) => {
    opened = resolve;
  });
  const done = sql.begin(async (tx) => {
    opened(tx);
    if (!(await finished)) throw ROLLBACK;
  });
  done.catch(() => {}); // observed by `end`
  const tx = await open;
  const query: HeldTransaction["query"] = async (text, params = []) =>
    (await tx.unsafe(
      text,
      params.map((p) => (p === null ? null : String(p))),
    )) as never;
  // a bug must fail the test, not hang it
  await query("select set_config('lock_timeout', '10s', true)");
  await query("select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)", [
    role,
    JSON.stringify(claims),
  ]);
  const [{ pid } = { pid: 0 }] = await query<{ pid: number }>("select pg_backend_pid() as pid");
  let ended: Promise<void> | undefined;
  const end = async (commit: boolean): Promise<void> => {
    finish(commit);
    try {
      await done;
    } catch (error) {
      if (error !== ROLLBACK) throw error;
    } finally {
      await sql.end({ timeout: 5 });
    }
  };
  return { pid, query, end: (commit) => (ended ??= end(commit)) };
}

/** How a statement ended: its result, or the SQLSTATE it failed with. */
type Outcome<T> = { ok: true; value: T } | { ok: false; code: string };
const settle = <T>(promise: Promise<T>): Promise<Outcome<T>> =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error) => ({ ok: false as const, code: String((error as { code?: unknown }).code ?? error) }),
  );

/**
 * Waits until the backend `waiter` is blocked on a lock held by `holder`, or `settled` resolves
 * first (the waiter never had to wait). True when it was seen blocked.
 */
async function blockedOn(waiter: number, holder: number, settled: Promise<unknown>): Promise<boolean> {
  let done = false;
  void settled.finally(() => {
    done = true;
  });
  for (const deadline = Date.now() + 5_000; Date.now() < deadline; ) {
    const [row] = await db.superuser<{ blocked: boolean }>(
      "select $2::int = any (pg_blocking_pids($1::int)) as blocked",
      [waiter, holder],
    );
    if (row?.blocked) return true;
    if (done) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`backend ${waiter} neither finished nor waited on ${holder}`);
}

interface ClaimEntry {
  action: string;
  document?: { lines: unknown[] };
}

const claimSql = (tenant: Tenant, invoice: Invoice) =>
  `select public.einv_document_claim(p_org_id => '${tenant.org.id}', p_kind => 'invoice',
     p_document_ids => '["${invoice.id}"]'::jsonb, p_reissue => false, p_actor_id => null,
     p_lease_seconds => 60) as entries`;

const claim = async (service: HeldTransaction, tenant: Tenant, invoice: Invoice): Promise<ClaimEntry> => {
  const [row] = await service.query<{ entries: ClaimEntry[] }>(claimSql(tenant, invoice));
  const entry = row?.entries[0];
  if (!entry) throw new Error("the claim returned no entry");
  return entry;
};

/** The lines as stored, shaped as the claim's document shows them. */
const storedLines = async (invoice: Invoice): Promise<unknown[]> => {
  const [row] = await db.superuser<{ lines: unknown[] }>(
    `select coalesce(jsonb_agg(to_jsonb(l) - array['org_id', 'invoice_id', 'created_at'] order by l.position), '[]') as lines
       from public.invoice_lines l where l.invoice_id = $1`,
    [invoice.id],
  );
  return row?.lines ?? [];
};

/** The edits an operador can make to a draft's lines; `$1` is a line id, `$2` its invoice. */
const EDITS: [name: string, sql: string][] = [
  ["updates a line", "update public.invoice_lines set description = 'Editada en vuelo' where id = $1"],
  ["deletes a line", "delete from public.invoice_lines where id = $1"],
  [
    "inserts a line",
    `insert into public.invoice_lines (invoice_id, org_id, position, description, quantity, unit_price,
       line_extension) select invoice_id, org_id, 9, 'Línea en vuelo', 1, 500, 500
       from public.invoice_lines where id = $1`,
  ],
];

describe("a line edit racing a transmission claim", () => {
  it.for(EDITS)(
    "an operador who %s before the claim holds the claim back until it commits",
    async ([, edit], ctx) => {
      ctx.skip(ON_PGLITE, PGLITE_REASON);
      const tenant = await createTenant(db);
      const invoice = await createInvoice(db, tenant.org, tenant.company);
      const editor = await openTransaction("authenticated", tenant.operador.claims);
      const service = await openTransaction("service_role", { role: "service_role" });
      try {
        const edited = await settle(editor.query(edit, [invoice.lineIds[0] ?? ""]));
        expect(edited).toMatchObject({ ok: true });

        const claimed = settle(claim(service, tenant, invoice));
        const waited = await blockedOn(service.pid, editor.pid, claimed);
        const committed = await settle(editor.end(true));
        const entry = await claimed;
        await service.end(true);

        if (!entry.ok) throw new Error(`the claim failed: ${entry.code}`);
        expect(entry.value.action).toBe("send");
        const stored = await storedLines(invoice);
        // the document sent is the one stored: either the edit went in first or it was refused
        expect(entry.value.document?.lines).toEqual(stored);
        if (committed.ok) expect(waited, "the claim did not wait for the edit in flight").toBe(true);
        else expect(committed.code).toBe(FROZEN);
      } finally {
        await Promise.allSettled([editor.end(false), service.end(false)]);
      }
    },
  );

  it.for(EDITS)("an operador who %s after the claim waits for it and then fails", async ([, edit], ctx) => {
    ctx.skip(ON_PGLITE, PGLITE_REASON);
    const tenant = await createTenant(db);
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const service = await openTransaction("service_role", { role: "service_role" });
    const editor = await openTransaction("authenticated", tenant.operador.claims);
    try {
      const entry = await claim(service, tenant, invoice);
      expect(entry.action).toBe("send");

      const edited = settle(editor.query(edit, [invoice.lineIds[0] ?? ""]));
      const waited = await blockedOn(editor.pid, service.pid, edited);
      await service.end(true);
      const outcome = await edited;
      const committed = await settle(editor.end(true));

      expect(waited, "the edit did not wait for the claim in flight").toBe(true);
      expect(outcome).toEqual({ ok: false, code: FROZEN });
      // postgres.js rolls the failed transaction back and rejects it with the statement's error
      expect(committed).toEqual({ ok: false, code: FROZEN });
      expect(entry.document?.lines).toEqual(await storedLines(invoice));
    } finally {
      await Promise.allSettled([editor.end(false), service.end(false)]);
    }
  });
});
