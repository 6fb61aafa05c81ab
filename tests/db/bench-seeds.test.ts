/**
 * The scale benches seed their data in SQL with the triggers off (bench/scale.ts, bench/events-scale.ts),
 * so each seed must write what the schema requires by itself: here both run at a small size on the
 * real migrations, so a new required column fails here rather than in the next round's bench (both
 * had stopped at their first insert when a credit note line's `credited_quantity` and an outbox
 * event's `sequence` became required).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedEvents } from "../../bench/events-scale.ts";
import { seedInvoices } from "../../bench/scale.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTenant } from "../../devkit/factories.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
}, 120_000);
afterAll(() => db?.close());

const count = async (table: string, orgId: string) =>
  Number(
    (await db.superuser<{ n: string }>(`select count(*) as n from ${table} where org_id = $1`, [orgId]))[0]
      ?.n,
  );

describe("the scale benches' seeds", () => {
  it("--scale: 200 invoices with their lines, events, credit notes and representations", async () => {
    const tenant = await createTenant(db);
    await seedInvoices(db, tenant, 0, 200);
    expect(await count("public.invoices", tenant.org.id)).toBeGreaterThanOrEqual(200);
    expect(await count("public.invoice_lines", tenant.org.id)).toBeGreaterThanOrEqual(400);
    expect(await count("public.events", tenant.org.id)).toBeGreaterThanOrEqual(600);
    // every 20th invoice, all of them among the 90 % transmitted, has a credit note of its first line
    expect(await count("public.credit_notes", tenant.org.id)).toBe(10);
    expect(await count("public.credit_note_lines", tenant.org.id)).toBe(10);
    expect(await count("public.representations", tenant.org.id)).toBe(40);
  });

  it("--events-scale: 100 events delivered and 1,000 waiting, on an endpoint", async () => {
    const tenant = await createTenant(db);
    const [endpoint] = await db.superuser<{ id: string }>(
      `insert into public.webhook_endpoints (org_id, url, secret_ciphertext, secret_key_id)
       values ($1, 'https://hooks.example.test/in', 'v1:a:b', '0123456789abcdef') returning id::text`,
      [tenant.org.id],
    );
    await seedEvents(db, tenant.org.id, endpoint?.id ?? "", 100);
    expect(await count("einv_private.outbox", tenant.org.id)).toBe(1100);
    expect(await count("einv_private.webhook_deliveries", tenant.org.id)).toBe(1100);
  });
});
