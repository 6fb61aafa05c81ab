/**
 * The package a delivery sends is named after the issuer's consecutive of packages sent that year
 * (shared/co/delivery-files.ts), allocated by the database as the delivery is inserted: a
 * per-company-per-year counter row, locked in that transaction. These cases run on real concurrent
 * connections: every delivery of one issuer takes its own number, whichever transaction commits
 * first; the issuers of one NIT (in two organizations) share one sequence, as they share the name;
 * a retry resends its first try's package under the same name; a delivery is retried once, whether
 * the reconcile job or a keyed request gets there first; and a retry's bookkeeping never reschedules
 * a delivery that was already retried.
 */
import { randomUUID } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Tenant } from "../../devkit/factories.ts";

const ON_PGLITE = inject("database").kind === "pglite";
const PGLITE_REASON = "PGlite has a single connection: transactions cannot run at once";
const N = 20;

let db: TestDatabase;
let tenant: Tenant;
beforeAll(async () => {
  if (ON_PGLITE) return;
  db = await createTestDatabase();
  tenant = await createTenant(db);
});
afterAll(() => db?.close());

const begin = `select public.einv_delivery_begin(p_org_id => $1, p_kind => 'invoice', p_document_id => $2,
  p_recipient => 'cliente@test.example', p_actor_id => null, p_send_id => null, p_retry_of => $3,
  p_limits => null, p_lease_seconds => 60) as begun`;

/** As a request under an Idempotency-Key calls it: with its provider reference and the limits. */
const keyed = `select public.einv_delivery_begin(p_org_id => $1, p_kind => 'invoice', p_document_id => $2,
  p_recipient => 'cliente@test.example', p_actor_id => null, p_send_id => $3, p_retry_of => null,
  p_limits => '{"per_document": 100, "per_organization": 1000, "window_seconds": 3600}',
  p_lease_seconds => 60) as begun`;

/** As the reconcile job calls it: a retry of `$3`, under its provider reference `$4`. */
const retry = `select public.einv_delivery_begin(p_org_id => $1, p_kind => 'invoice', p_document_id => $2,
  p_recipient => 'cliente@test.example', p_actor_id => null, p_send_id => $4, p_retry_of => $3,
  p_limits => null, p_lease_seconds => 60) as begun`;

interface Begun {
  delivery_id: string;
  package_year: number;
  package_number: number;
}

describe.skipIf(ON_PGLITE)(`delivery packages (${ON_PGLITE ? PGLITE_REASON : "PostgreSQL"})`, () => {
  it(`gives ${N} concurrent deliveries of one issuer ${N} distinct consecutives, one of each 1…${N}`, async () => {
    const issuer = await createTenant(db);
    const invoices = await Promise.all(
      Array.from({ length: N }, () =>
        createInvoice(db, issuer.org, issuer.company, { status: "transmitida" }),
      ),
    );
    // one connection per delivery; each transaction stays open until all have begun theirs
    const sql = postgres(db.url ?? "", { max: N, onnotice: () => {} });
    try {
      let started = 0;
      const allStarted = new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (started === N) {
            clearInterval(check);
            resolve();
          }
        }, 5);
      });
      const begun = await Promise.all(
        invoices.map((invoice) =>
          sql.begin(async (tx) => {
            const [row] = await tx.unsafe(begin, [issuer.org.id, invoice.id, null]);
            started++;
            // the others are waiting on this one's counter row, or have taken theirs
            await Promise.race([allStarted, new Promise((resolve) => setTimeout(resolve, 100))]);
            return row?.begun as Begun;
          }),
        ),
      );
      const numbers = begun.map((b) => Number(b.package_number)).sort((a, b) => a - b);
      expect(numbers).toEqual(Array.from({ length: N }, (_, i) => i + 1));
      expect(new Set(begun.map((b) => b.package_year)).size).toBe(1);
    } finally {
      await sql.end({ timeout: 5 });
    }
    const stored = await db.superuser<{ n: string }>(
      "select count(distinct package_number) as n from deliveries where company_id = $1",
      [issuer.company.id],
    );
    expect(Number(stored[0]?.n)).toBe(N);
  });

  it("counts each issuer apart, and refuses a second package under a name already used", async () => {
    const other = await createTenant(db);
    const mine = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const theirs = await createInvoice(db, other.org, other.company, { status: "transmitida" });
    const [a] = await db.superuser<{ begun: Begun }>(begin, [tenant.org.id, mine.id, null]);
    const [b] = await db.superuser<{ begun: Begun }>(begin, [other.org.id, theirs.id, null]);
    expect(b?.begun.package_number).toBe(1);
    expect(a?.begun.package_number).toBeGreaterThanOrEqual(1);
    // what the unique index holds even against a writer that bypasses the counter
    await expect(
      db.superuser(
        `insert into deliveries (org_id, document_type, document_id, recipient, package_year, package_number)
         values ($1, 'invoice', $2, 'x@test.example', $3, $4)`,
        [tenant.org.id, mine.id, a?.begun.package_year ?? 0, a?.begun.package_number ?? 0],
      ),
    ).rejects.toThrow(/deliveries_package_idx/);
  });

  it("numbers the packages of one NIT as one sequence, whichever organization issues under it", async () => {
    const first = await createTenant(db);
    const second = await createTenant(db);
    // a company is unique per organization and NIT: another organization may issue under the same
    await db.superuser(
      "update companies set nit = c.nit, check_digit = c.check_digit from companies c where c.id = $1 and companies.id = $2",
      [first.company.id, second.company.id],
    );
    const mine = await createInvoice(db, first.org, first.company, { status: "transmitida" });
    const theirs = await createInvoice(db, second.org, second.company, { status: "transmitida" });
    const [a] = await db.superuser<{ begun: Begun }>(begin, [first.org.id, mine.id, null]);
    const [b] = await db.superuser<{ begun: Begun }>(begin, [second.org.id, theirs.id, null]);
    expect([a?.begun.package_number, b?.begun.package_number]).toEqual([1, 2]);
    const rows = await db.superuser<{ issuer_nit: string }>(
      "select issuer_nit from deliveries where document_id in ($1, $2)",
      [mine.id, theirs.id],
    );
    expect(rows).toEqual([{ issuer_nit: first.company.nit }, { issuer_nit: first.company.nit }]);
  });

  it("counts under the NIT the document was sent with, after the company's NIT changed", async () => {
    const issuer = await createTenant(db);
    const sent = await createInvoice(db, issuer.org, issuer.company, { status: "transmitida" });
    await db.superuser("update companies set nit = '900123456', check_digit = '8' where id = $1", [
      issuer.company.id,
    ]);
    await db.superuser(begin, [issuer.org.id, sent.id, null]);
    const [row] = await db.superuser<{ issuer_nit: string }>(
      "select issuer_nit from deliveries where document_id = $1",
      [sent.id],
    );
    // the PDF and the files name the NIT of the issuer snapshot, and so does the sequence
    expect(row?.issuer_nit).toBe(issuer.company.nit);
  });

  it("resends a retried delivery's package under its name, one attempt further, linked both ways", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const [first] = await db.superuser<{ begun: Begun }>(begin, [tenant.org.id, invoice.id, null]);
    const firstId = first?.begun.delivery_id as string;
    await db.superuser("update deliveries set status = 'error' where id = $1", [firstId]);
    const [retry] = await db.superuser<{ begun: Begun }>(begin, [tenant.org.id, invoice.id, firstId]);
    expect(retry?.begun).toMatchObject({
      package_year: first?.begun.package_year,
      package_number: first?.begun.package_number,
    });
    const rows = await db.superuser<{
      id: string;
      attempt: number;
      retry_of: string | null;
      retried_by: string | null;
    }>("select id, attempt, retry_of, retried_by from deliveries where document_id = $1 order by attempt", [
      invoice.id,
    ]);
    expect(rows).toEqual([
      { id: firstId, attempt: 1, retry_of: null, retried_by: retry?.begun.delivery_id },
      { id: retry?.begun.delivery_id, attempt: 2, retry_of: firstId, retried_by: null },
    ]);
  });

  it("does not retry a delivery twice: a keyed request continued it, then the reconcile job tries", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const sendId = randomUUID();
    const [first] = await db.superuser<{ begun: Begun }>(keyed, [tenant.org.id, invoice.id, sendId]);
    const firstId = first?.begun.delivery_id as string;
    await db.superuser("update deliveries set status = 'error' where id = $1", [firstId]);
    const [again] = await db.superuser<{ begun: Begun }>(keyed, [tenant.org.id, invoice.id, sendId]);
    expect(again?.begun.package_number).toBe(first?.begun.package_number);
    await expect(db.superuser(retry, [tenant.org.id, invoice.id, firstId, sendId])).rejects.toThrow(
      /delivery_already_retried/,
    );
  });

  it("does not retry a delivery twice: the reconcile job retries it while a keyed request continues it", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const sendId = randomUUID();
    const [first] = await db.superuser<{ begun: Begun }>(keyed, [tenant.org.id, invoice.id, sendId]);
    const firstId = first?.begun.delivery_id as string;
    await db.superuser("update deliveries set status = 'error' where id = $1", [firstId]);
    const sql = postgres(db.url ?? "", { max: 2, onnotice: () => {} });
    try {
      let request: Promise<unknown> | undefined;
      // the job's retry is begun and not yet committed when the request comes
      await sql.begin(async (tx) => {
        await tx.unsafe(retry, [tenant.org.id, invoice.id, firstId, sendId]);
        request = sql.unsafe(keyed, [tenant.org.id, invoice.id, sendId]).execute();
        await until(async () => {
          const waiting = await db.superuser(
            `select 1 from pg_stat_activity
              where wait_event_type = 'Lock' and query like '%einv_delivery_begin%' and pid <> pg_backend_pid()`,
          );
          return waiting.length > 0;
        });
      });
      await request;
    } finally {
      await sql.end({ timeout: 5 });
    }
    // one package under the provider reference: the first try and the job's retry, nothing else
    const rows = await db.superuser<{ attempt: number; package_number: string }>(
      "select attempt, package_number from deliveries where send_id = $1 order by attempt",
      [sendId],
    );
    expect(rows).toEqual([
      { attempt: 1, package_number: String(first?.begun.package_number) },
      { attempt: 2, package_number: String(first?.begun.package_number) },
    ]);
  });

  it("does not reschedule a failed delivery once a retry of it was begun", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const [first] = await db.superuser<{ begun: Begun }>(begin, [tenant.org.id, invoice.id, null]);
    const firstId = first?.begun.delivery_id as string;
    await db.superuser("update deliveries set status = 'error' where id = $1", [firstId]);
    await db.superuser(begin, [tenant.org.id, invoice.id, firstId]);
    const [later] = await db.superuser<{ later: unknown }>(
      "select public.einv_delivery_retry_later($1, $2, $3) as later",
      [tenant.org.id, firstId, randomUUID()],
    );
    expect(later?.later).toBeNull();
    const [row] = await db.superuser<{ next_retry_at: Date | null }>(
      "select next_retry_at from deliveries where id = $1",
      [firstId],
    );
    expect(row?.next_retry_at).toBeNull();
  });
});

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("condition not reached in time");
}
