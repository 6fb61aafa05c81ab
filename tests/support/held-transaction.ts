/**
 * Two real connections interleaved on purpose: a transaction held open on its own connection until
 * the test ends it, and a way to see another backend blocked on it. Race tests use them to force one
 * order deterministically (hold A, start B, wait until B is seen waiting on A, end A) instead of
 * hoping a scheduler produces it.
 */
import postgres from "postgres";
import type { ApiRole, Param, TestDatabase } from "../../devkit/database.ts";

/** A transaction on its own connection, kept open until `end` (see `sql.begin`). */
export interface HeldTransaction {
  pid: number;
  query<R = Record<string, unknown>>(text: string, params?: Param[]): Promise<R[]>;
  /** Commits (or rolls back) and closes the connection; rejects with what failed the transaction, if any. */
  end(commit: boolean): Promise<void>;
}

const ROLLBACK = new Error("rollback requested by the test");

/** Opens a transaction as `role` with `claims`, the way PostgREST scopes a request. */
export async function openTransaction(
  db: TestDatabase,
  role: ApiRole,
  claims: Record<string, unknown>,
): Promise<HeldTransaction> {
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

/** How a statement ended: its result, or the SQLSTATE it failed with (and its message). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; code: string; message: string };
export const settle = <T>(promise: Promise<T>): Promise<Outcome<T>> =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error) => ({
      ok: false as const,
      code: String((error as { code?: unknown }).code ?? error),
      message: String((error as { message?: unknown }).message ?? error),
    }),
  );

/**
 * Waits until the backend `waiter` is blocked on a lock held by `holder`, or `settled` resolves
 * first (the waiter never had to wait). True when it was seen blocked.
 */
export async function blockedOn(
  db: TestDatabase,
  waiter: number,
  holder: number,
  settled: Promise<unknown>,
): Promise<boolean> {
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
