/**
 * The largest batches the service sends the database, through the `supabase` transport — so under
 * Supabase's statement_timeout of 8 s that the PostgREST stand-in applies (a 57014 fails the test) —
 * on a database of 100,000 invoices: a claim of 50 invoices (the most /transmit takes), and a
 * reconcile pick of 500 open documents and of 500 due deliveries (EINV_RECONCILE_BATCH's maximum).
 * Each runs three times; the times are printed, for docs/postgrest-stand-in.md, not asserted:
 *
 *   npm run measure:batches
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import { MAX_INVOICES_PER_CALL } from "../../functions/invoices/transmit.ts";
import type { DbScope } from "../../shared/ports/db/port.ts";
import { createTransports } from "../support/transports.ts";

const RECONCILE_BATCH_MAX = 500;
const RUNS = 3;
const onPostgres = inject("database").kind === "postgres";

let db: TestDatabase;
let tenant: Tenant;
let service: DbScope;

beforeAll(async () => {
  if (!onPostgres) return;
  db = await createTestDatabase();
  tenant = await createTenant(db);
  service = (await createTransports(db.client, { name: "batches" })).db.supabase.asService();
  // 100,000 invoices, RUNS × 500 of them open and idle for two hours; a failed delivery of each
  // of RUNS × 500 of the accepted ones, due for a retry
  await db.superuser(
    `insert into invoices (org_id, company_id, number, status, environment, attempt_count, submitted_attempt,
                           claimed_at, status_checked_at, provider_reference)
     select $1, $2, 'SETP' || (900000000 + g),
            case when g <= $3 then 'en_proceso' else 'transmitida' end, 'uat', 1, 1,
            now() - interval '2 hours', now() - interval '2 hours' - (g % 500) * interval '1 minute',
            'sandbox-' || g
       from generate_series(1, 100000) g`,
    [tenant.org.id, tenant.company.id, RUNS * RECONCILE_BATCH_MAX],
  );
  await db.superuser(
    `insert into deliveries (org_id, document_type, document_id, recipient, status, message, next_retry_at)
     select org_id, 'invoice', id, 'cliente@test.example', 'error', 'mailbox full', now() - interval '1 minute'
       from invoices where org_id = $1 and status = 'transmitida' limit $2`,
    [tenant.org.id, RUNS * RECONCILE_BATCH_MAX],
  );
  await db.superuser("analyze");
}, 300_000);
afterAll(() => db?.close());

async function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  console.log(`${label}: ${(performance.now() - started).toFixed(0)} ms`);
  return result;
}

describe.skipIf(!onPostgres)("the largest batches, under Supabase's 8 s statement timeout", () => {
  it(`claims ${MAX_INVOICES_PER_CALL} invoices for sending (the claim and the credential read of /transmit)`, async () => {
    for (let run = 1; run <= RUNS; run++) {
      const invoices: Invoice[] = [];
      for (let i = 0; i < MAX_INVOICES_PER_CALL; i++) {
        invoices.push(await createInvoice(db, tenant.org, tenant.company));
      }
      const { entries } = await timed(`claim of ${MAX_INVOICES_PER_CALL}, run ${run}`, () =>
        service.call("einv_document_claim_sending", {
          p_org_id: tenant.org.id,
          p_kind: "invoice",
          p_document_ids: invoices.map((invoice) => invoice.id),
          p_reissue: false,
          p_actor_id: tenant.operador.id,
          p_lease_seconds: 300,
          p_issued_at: new Date().toISOString(),
          p_service: "adapter-tax",
        }),
      );
      expect(entries.filter((entry) => entry.action === "send")).toHaveLength(MAX_INVOICES_PER_CALL);
    }
  }, 120_000);

  it(`picks ${RECONCILE_BATCH_MAX} open documents and ${RECONCILE_BATCH_MAX} due deliveries`, async () => {
    for (let run = 1; run <= RUNS; run++) {
      const { run_id } = await service.call("einv_reconcile_begin", {});
      const picked = await timed(`reconcile pick of ${RECONCILE_BATCH_MAX} documents, run ${run}`, () =>
        service.call("einv_reconcile_pick", {
          p_run_id: run_id,
          p_limit: RECONCILE_BATCH_MAX,
          p_grace_seconds: 120,
          p_lease_seconds: 300,
        }),
      );
      expect(picked).toHaveLength(RECONCILE_BATCH_MAX);
      const due = await timed(`reconcile pick of ${RECONCILE_BATCH_MAX} deliveries, run ${run}`, () =>
        service.call("einv_reconcile_pick_deliveries", { p_run_id: run_id, p_limit: RECONCILE_BATCH_MAX }),
      );
      expect(due).toHaveLength(RECONCILE_BATCH_MAX);
    }
  }, 120_000);
});
