/**
 * When a document is issued, in the database (DESIGN §12, docs/adr/0010): the claim writes the
 * instant the service passes as Colombia's civil date and time, whatever the session's zone; a
 * draft's own values default to a preview in Bogotá, never the database's UTC; and once a document
 * has left `pendiente`, its issue date and time move only while nothing of it at the authority can
 * still be accepted (in error or left in progress, its every attempt refused), for every role.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, sqlState, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";

let db: TestDatabase;
let tenant: Tenant;

beforeAll(async () => {
  db = await createTestDatabase();
  tenant = await createTenant(db);
});
afterAll(() => db?.close());

/** Claims `invoice` for sending at `at`, in a session whose zone is `zone`; its entry. */
const claimAt = (invoice: Invoice, at: string | null, zone = "UTC", reissue = false) =>
  db.client.transaction(async (session) => {
    await session.query("select set_config('timezone', $1, true)", [zone]);
    const [row] = await session.query<{ entry: Record<string, unknown> }>(
      `select public.einv_document_claim($1, 'invoice', $2::text::jsonb, $3, null, 60, $4) -> 0 as entry`,
      [tenant.org.id, JSON.stringify([invoice.id]), reissue, at],
    );
    return row?.entry;
  });

const issued = async (invoice: Invoice) =>
  (
    await db.superuser<{ issue_date: string; issue_time: string }>(
      "select issue_date::text, issue_time::text from invoices where id = $1",
      [invoice.id],
    )
  )[0];

describe("the claim", () => {
  it("writes the service's instant as Colombia's date and time, to the second, whatever the session's zone", async () => {
    for (const zone of ["UTC", "Asia/Tokyo", "America/Los_Angeles"]) {
      const invoice = await createInvoice(db, tenant.org, tenant.company);
      // 23:30:12.999 in Bogotá on the 20th: truncated, never rounded into another second (or day)
      const entry = await claimAt(invoice, "2026-11-21T04:30:12.999Z", zone);
      expect(entry).toMatchObject({ action: "send", restamped_from: null });
      expect(entry?.document).toMatchObject({ issue_date: "2026-11-20", issue_time: "23:30:12-05" });
      expect(await issued(invoice)).toEqual({ issue_date: "2026-11-20", issue_time: "23:30:12-05" });
    }
  });

  it("is refused without an instant: the database's clock is never a document's", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    expect(await sqlState(claimAt(invoice, null))).toBe("22004");
    expect(await db.superuser("select status from invoices where id = $1", [invoice.id])).toEqual([
      { status: "pendiente" },
    ]);
  });

  it("keeps the stamp of a document that may be at the provider, whatever day it is asked about", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    await claimAt(invoice, "2026-11-20T15:00:00Z");
    // its submit's outcome is unknown: it stays en_proceso, attempt 1 in doubt
    await db.superuser("update invoices set lease_until = null where id = $1", [invoice.id]);
    const entry = await claimAt(invoice, "2026-11-25T15:00:00Z", "UTC", true);
    expect(entry).toMatchObject({ action: "query", restamped_from: null });
    expect(await issued(invoice)).toEqual({ issue_date: "2026-11-20", issue_time: "10:00:00-05" });
  });
});

describe("a draft's own issue date and time", () => {
  it("default to now in Bogotá, not in the session's zone (UTC on Supabase)", async () => {
    const [row] = await db.client.transaction(async (session) => {
      await session.query("select set_config('timezone', 'UTC', true)");
      return session.query<{ ok: boolean; offset: number; today: boolean }>(
        `insert into invoices (org_id, company_id, number) values ($1, $2, 'SETP990000000')
         returning extract(timezone from issue_time)::int as offset,
                   issue_date = (now() at time zone 'America/Bogota')::date as today,
                   abs(extract(epoch from ((now() at time zone 'America/Bogota')::time(0) - issue_time::time))) <= 1 as ok`,
        [tenant.org.id, tenant.company.id],
      );
    });
    expect(row).toEqual({ offset: -18000, today: true, ok: true });
  });
});

describe("the issue date and time of a document past pendiente", () => {
  const STATES: [string, string, boolean][] = [
    // [its lifecycle columns, what they say, may its issue moment move]
    ["status = 'transmitida', submitted_attempt = 1, refused_attempt = null", "accepted", false],
    ["status = 'en_proceso', submitted_attempt = 1, refused_attempt = null", "in doubt", false],
    ["status = 'error', submitted_attempt = 1, refused_attempt = null", "in error, still in doubt", false],
    ["status = 'error', submitted_attempt = 2, refused_attempt = 1", "refused once, resent in doubt", false],
    ["status = 'error', submitted_attempt = 1, refused_attempt = 1", "every attempt refused", true],
    ["status = 'en_proceso', submitted_attempt = 1, refused_attempt = 1", "refused, left in progress", true],
  ];

  it.each(STATES)("%s (%s): may move = %s, for every role (a trigger)", async (state, _what, moves) => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    await db.superuser(`update invoices set ${state} where id = $1`, [invoice.id]);
    const move = db.superuser("update invoices set issue_date = issue_date + 1 where id = $1", [invoice.id]);
    if (moves) await move;
    else expect(await sqlState(move)).toBe("P0001");
    // nothing else of its content moves, whatever its state
    const other = db.superuser("update invoices set notes = 'otra' where id = $1", [invoice.id]);
    expect(await sqlState(other)).toBe("P0001");
  });

  it.each(STATES)("of a credit note, %s (%s): may move = %s", async (state, _what, moves) => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const [note] = await db.superuser<{ id: string }>(
      `select public.einv_credit_note_create($1, $2, '2', 'Anulación', null, null, 60, now()) ->> 'document_id' as id`,
      [tenant.org.id, invoice.id],
    );
    await db.superuser(`update credit_notes set ${state.replace("transmitida", "emitida")} where id = $1`, [
      note?.id ?? "",
    ]);
    const move = db.superuser("update credit_notes set issue_date = issue_date + 1 where id = $1", [
      note?.id ?? "",
    ]);
    if (moves) await move;
    else expect(await sqlState(move)).toBe("P0001");
    const other = db.superuser("update credit_notes set reason = 'otra' where id = $1", [note?.id ?? ""]);
    expect(await sqlState(other)).toBe("P0001");
  });
});
