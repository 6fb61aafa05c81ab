/**
 * The package a delivery sends is named after the issuer's consecutive of packages sent that year
 * (shared/fiscal/co/delivery-files.ts), allocated by the database as the delivery is inserted: a
 * per-company-per-year counter row, locked in that transaction. These cases run on real concurrent
 * connections: every delivery of one issuer takes its own number, whichever transaction commits
 * first; a retry resends its first try's package under the same name; and a retry's bookkeeping
 * never reschedules a delivery that was already retried.
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
