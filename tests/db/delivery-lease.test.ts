/**
 * A delivery is held by the call that opened it for as long as that call may take (render, XML,
 * send, each within the provider timeout): the reconcile job settles open deliveries by asking the
 * provider about them, and must never ask — hear "never received" and schedule a resend — while
 * the first call may still send the message.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Tenant } from "../../devkit/factories.ts";

let db: TestDatabase;
let tenant: Tenant;
beforeAll(async () => {
  db = await createTestDatabase();
  tenant = await createTenant(db);
});
afterAll(() => db?.close());

const pickOpen = async (): Promise<string[]> => {
  const [row] = await db.superuser<{ picked: { delivery_id: string }[] }>(
    "select public.einv_reconcile_pick_open_deliveries($1, 50, 0, 60) as picked",
    [randomUUID()],
  );
  return (row?.picked ?? []).map((d) => d.delivery_id);
};

describe("an open delivery", () => {
  it("is left alone by reconcile while the call that opened it holds its lease, and asked about after", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const [begun] = await db.superuser<{ begun: { delivery_id: string } }>(
      "select public.einv_delivery_begin($1, 'invoice', $2, 'cliente@test.example', null, null, null, null, 90) as begun",
      [tenant.org.id, invoice.id],
    );
    const id = begun?.begun.delivery_id as string;
    // long past any grace period, but its call may still be sending
    await db.superuser("update deliveries set created_at = now() - interval '1 hour' where id = $1", [id]);
    expect(await pickOpen()).not.toContain(id);

    await db.superuser("update deliveries set lease_until = now() - interval '1 second' where id = $1", [id]);
    expect(await pickOpen()).toContain(id);
  });
});
