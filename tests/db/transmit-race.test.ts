/**
 * A line edit racing a transmission claim, on two real connections. Whatever the order, what the
 * claim returns as the document (and the service sends) must be what stays stored: an edit in
 * flight holds the claim back until it commits, and an edit that comes after the claim waits for
 * it and then fails (P0001) because the invoice is no longer `pendiente`.
 *
 * Each case is made deterministic by holding one transaction open until the other connection is
 * seen blocked on it (or has finished, which is the bug) before ending it.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Invoice, type Tenant } from "../../devkit/factories.ts";
import {
  blockedOn as blockedOnIn,
  type HeldTransaction,
  openTransaction as openIn,
  settle,
} from "../support/held-transaction.ts";

const ON_PGLITE = inject("database").kind === "pglite";
const PGLITE_REASON =
  "PGlite has a single connection and runs one transaction at a time: two transactions cannot interleave";

let db: TestDatabase;
beforeAll(async () => {
  if (!ON_PGLITE) db = await createTestDatabase();
});
afterAll(() => db?.close());

const FROZEN = "P0001";

const openTransaction = (role: "authenticated" | "service_role", claims: Record<string, unknown>) =>
  openIn(db, role, claims);
const blockedOn = (waiter: number, holder: number, settled: Promise<unknown>) =>
  blockedOnIn(db, waiter, holder, settled);

interface ClaimEntry {
  action: string;
  document?: { lines: unknown[] };
}

const claimSql = (tenant: Tenant, invoice: Invoice) =>
  `select public.einv_document_claim(p_org_id => '${tenant.org.id}', p_kind => 'invoice',
     p_document_ids => '["${invoice.id}"]'::jsonb, p_reissue => false, p_actor_id => null,
     p_lease_seconds => 60, p_issued_at => now()) as entries`;

const claim = async (service: HeldTransaction, tenant: Tenant, invoice: Invoice): Promise<ClaimEntry> => {
  const [row] = await service.query<{ entries: ClaimEntry[] }>(claimSql(tenant, invoice));
  const entry = row?.entries[0];
  if (!entry) throw new Error("the claim returned no entry");
  return entry;
};

/**
 * The lines as stored, shaped as the claim's document shows them: their columns, with the computed
 * taxes and discounts under the inputs' names (…_lifecycle.sql).
 */
const storedLines = async (invoice: Invoice): Promise<unknown[]> => {
  const [row] = await db.superuser<{ lines: unknown[] }>(
    `select coalesce(jsonb_agg(
              (to_jsonb(l) - array['org_id', 'invoice_id', 'created_at', 'taxes', 'allowance_charges',
                                   'tax_subtotals', 'allowance_charge_amounts'])
              || jsonb_build_object('taxes', l.tax_subtotals, 'allowance_charges', l.allowance_charge_amounts)
              order by l.position), '[]') as lines
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
    `insert into public.invoice_lines (invoice_id, org_id, position, description, quantity, unit_price)
       select invoice_id, org_id, 9, 'Línea en vuelo', 1, 500
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
      expect(outcome).toMatchObject({ ok: false, code: FROZEN });
      // postgres.js rolls the failed transaction back and rejects it with the statement's error
      expect(committed).toMatchObject({ ok: false, code: FROZEN });
      expect(entry.document?.lines).toEqual(await storedLines(invoice));
    } finally {
      await Promise.allSettled([editor.end(false), service.end(false)]);
    }
  });
});
