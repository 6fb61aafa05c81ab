/**
 * The event outbox (supabase/migrations/…_events.sql) on the real database: every status change of
 * an invoice, a credit note, a delivery and a credential writes one event in its own transaction —
 * none for a change that rolls back, none for a write that changes nothing — whoever writes it (the
 * lifecycle's functions, or a statement straight at the table); its payload is a positive list; the
 * same payload is queued for the org's private Realtime channel; nobody but the service reads or
 * writes it.
 */
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { asRole, createTestDatabase, sqlState, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, setInvoiceStatus, type Tenant } from "../../devkit/factories.ts";
import { schemaFiles } from "../../devkit/schema.ts";
import { broadcastsOn, changesOf, documentsTopic, eventsOf } from "../support/events.ts";
import { createFreshDatabase } from "../support/local-server.ts";

let db: TestDatabase;
let tenant: Tenant;
beforeAll(async () => {
  db = await createTestDatabase();
  tenant = await createTenant(db);
});
afterAll(() => db?.close());

const service = <R = Record<string, unknown>>(
  sql: string,
  params: (string | number | boolean | null)[] = [],
) => asRole<R>(db, "service_role", { role: "service_role" }, sql, params);

/** Claims an invoice through the lifecycle's own claim, as /transmit does. */
async function claim(invoiceId: string): Promise<void> {
  await service("select public.einv_document_claim($1, 'invoice', $2::text::jsonb, false, null, 60, now())", [
    tenant.org.id,
    JSON.stringify([invoiceId]),
  ]);
}
async function record(invoiceId: string, outcome: Record<string, unknown>): Promise<void> {
  await service("select public.einv_document_record($1, 'invoice', $2, 1, $3::text::jsonb)", [
    tenant.org.id,
    invoiceId,
    JSON.stringify(outcome),
  ]);
}

describe("an invoice's status changes", () => {
  it("each write one event in order; a draft's insert and a write that changes nothing write none", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    expect(await eventsOf(db, invoice.id)).toEqual([]);
    await db.superuser("update invoices set notes = 'edited' where id = $1", [invoice.id]);
    expect(await eventsOf(db, invoice.id)).toEqual([]);

    await claim(invoice.id);
    await record(invoice.id, { status: "en_proceso", code: "outcome_unknown", message: "no answer" });
    // the same status and code again (a refresh that learns nothing): no event
    await db.superuser(
      "update invoices set status_checked_at = now(), last_message = 'asked again' where id = $1",
      [invoice.id],
    );
    await db.superuser(
      "update invoices set status = 'transmitida', last_code = 'accepted', authority_code = 'x' where id = $1",
      [invoice.id],
    );
    expect(await changesOf(db, invoice.id)).toEqual([
      ["en_proceso", "in_progress"],
      ["en_proceso", "outcome_unknown"],
      ["transmitida", "accepted"],
    ]);
    const ids = (await eventsOf(db, invoice.id)).map((e) => BigInt(e.id));
    expect([...ids].sort((a, b) => (a < b ? -1 : 1))).toEqual(ids);
  });

  it("are numbered by a random id that counts nothing, and 1, 2, 3… among the document's own (`sequence`)", async () => {
    // the ids were `evt_<n>` from one sequence for every organization: an org reading the gaps
    // between its own events learned how busy the others were
    const other = await createTenant(db);
    const mine = await createInvoice(db, tenant.org, tenant.company);
    await claim(mine.id);
    for (let i = 0; i < 5; i++) {
      const theirs = await createInvoice(db, other.org, other.company);
      await db.superuser(
        "update invoices set status = 'en_proceso', last_code = 'in_progress' where id = $1",
        [theirs.id],
      );
    }
    await record(mine.id, { status: "en_proceso", code: "outcome_unknown", message: "no answer" });
    await record(mine.id, { status: "transmitida", code: "accepted", message: "ok", definite: true });
    const payloads = (await broadcastsOn(db, documentsTopic(tenant.org.id)))
      .map((b) => b.payload)
      .filter((p) => p.document_id === mine.id);
    expect(payloads.map((p) => p.sequence)).toEqual([1, 2, 3]);
    const ids = payloads.map((p) => p.id as string);
    for (const id of ids) expect(id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(3);
    // and so the webhook-ids: the same text, kept with the event (a retry sends it again)
    expect((await eventsOf(db, mine.id)).map((e) => e.event_id)).toEqual(ids);
  });

  it("a change that rolls back leaves no event; one that commits has exactly one", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const failed = db.client.transaction(async (session) => {
      await session.query(
        "update invoices set status = 'en_proceso', last_code = 'in_progress' where id = $1",
        [invoice.id],
      );
      throw new Error("the call died before it committed");
    });
    await expect(failed).rejects.toThrow("died");
    expect(await eventsOf(db, invoice.id)).toEqual([]);
    expect(await broadcastsOn(db, documentsTopic(tenant.org.id))).not.toContainEqual(
      expect.objectContaining({ payload: expect.objectContaining({ document_id: invoice.id }) }),
    );
    await claim(invoice.id);
    expect(await changesOf(db, invoice.id)).toEqual([["en_proceso", "in_progress"]]);
  });

  it("is broadcast to the org's private channel with exactly the event, and nothing else of it", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    await claim(invoice.id);
    await record(invoice.id, {
      status: "error",
      code: "rejected",
      message: "the authority rejected it",
      authority_message: "Regla: FAD06, Rechazo: el CUFE no está bien calculado.",
      authority_rules: [{ rule: "FAD06", kind: "rechazo", message: "el CUFE no está bien calculado." }],
      definite: true,
    });
    const [claimed, rejected] = await eventsOf(db, invoice.id);
    const mine = (await broadcastsOn(db, documentsTopic(tenant.org.id))).filter(
      (b) => b.payload.document_id === invoice.id,
    );
    expect(mine).toEqual([
      {
        topic: documentsTopic(tenant.org.id),
        event: "status_changed",
        private: true,
        extension: "broadcast",
        payload: {
          id: claimed?.event_id,
          sequence: 1,
          type: "invoice.en_proceso",
          org_id: tenant.org.id,
          kind: "invoice",
          document_id: invoice.id,
          status: "en_proceso",
          code: "in_progress",
          occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
        },
      },
      expect.objectContaining({
        payload: expect.objectContaining({
          id: rejected?.event_id,
          sequence: 2,
          type: "invoice.error",
          code: "rejected",
        }),
      }),
    ]);
    // a positive list: no message, no authority text, no buyer
    const text = JSON.stringify(mine);
    expect(text).not.toContain("FAD06");
    expect(text).not.toContain("rejected it");
    expect(text).not.toContain("@");
  });
});

describe("the other kinds", () => {
  it("a credit note discarded, a delivery sent, refused or failed: each one event with its code", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company, { status: "transmitida" });
    const [note] = await db.superuser<{ id: string }>(
      `insert into credit_notes (org_id, company_id, invoice_id, number, issue_date, issue_time, concept_code,
                                 reason, currency, subtotal, tax_total, total, status, last_code)
       values ($1, $2, $3, 'NC' || floor(random() * 1e9)::bigint, current_date, current_time, '2', 'x', 'COP',
               1, 0, 1, 'error', 'rejected') returning id::text`,
      [tenant.org.id, tenant.company.id, invoice.id],
    );
    expect(await eventsOf(db, note?.id ?? "")).toEqual([]);
    await db.superuser(
      "update credit_notes set status = 'descartada', last_code = 'replaced' where id = $1",
      [note?.id ?? ""],
    );
    expect(await changesOf(db, note?.id ?? "")).toEqual([["descartada", "replaced"]]);

    const outcomes: [string, string | null, [string, string]][] = [
      ["enviada", "ref-1", ["enviada", "sent"]],
      ["error", "ref-2", ["error", "delivery_rejected"]],
      ["error", null, ["error", "delivery_failed"]],
    ];
    for (const [status, reference, expected] of outcomes) {
      const [begun] = await service<{ begun: { delivery_id: string } }>(
        "select public.einv_delivery_begin($1, 'invoice', $2, 'buyer@example.test', null, null, null, null, 60) as begun",
        [tenant.org.id, invoice.id],
      );
      const deliveryId = begun?.begun.delivery_id ?? "";
      expect(await eventsOf(db, deliveryId)).toEqual([]);
      await service("select public.einv_delivery_record($1, $2, $3, 'words', $4)", [
        tenant.org.id,
        deliveryId,
        status,
        reference,
      ]);
      expect(await changesOf(db, deliveryId)).toEqual([expected]);
      const [broadcast] = (await broadcastsOn(db, documentsTopic(tenant.org.id))).filter(
        (b) => b.payload.document_id === deliveryId,
      );
      // the delivery's id, never its address
      expect(broadcast?.payload).toMatchObject({ type: `delivery.${expected[0]}`, kind: "delivery" });
      expect(JSON.stringify(broadcast)).not.toContain("buyer@example.test");
    }
  });

  it("a credential saved or refused is an event for webhooks, never broadcast to every member", async () => {
    const args = [tenant.org.id, tenant.company.id];
    await service(
      `select public.einv_integration_save($1, $2, 'adapter-tax', 'uat', 'https://p.test', '{}', 'v1:a:b', 'abcd',
                                           '0123456789abcdef', 'given', 'ok', null)`,
      args,
    );
    for (const outcome of ["rejected", "unverified", "refused_url"]) {
      await service(
        `select public.einv_integration_event($1, $2, 'credential_save_refused', 'adapter-tax', 'uat', $3, 'no',
                                              null, null, 'given', gen_random_uuid())`,
        [...args, outcome],
      );
    }
    await service(
      `select public.einv_integration_event($1, $2, 'credential_tested', 'adapter-tax', 'uat', 'ok', 'fine',
                                            null, null, 'given', gen_random_uuid())`,
      args,
    );
    expect(await changesOf(db, tenant.company.id)).toEqual([
      ["saved", "verified"],
      ["rejected", "rejected"],
      ["rejected", "unverified"],
      ["rejected", "refused_url"],
    ]);
    expect(
      (await broadcastsOn(db, documentsTopic(tenant.org.id))).filter((b) => b.payload.kind === "credential"),
    ).toEqual([]);
  });
});

describe("where events are written", () => {
  it("on every registered kind's table and on deliveries, by the one status trigger", async () => {
    const rows = await db.superuser<{ table: string; argument: string }>(
      `select t.tgrelid::regclass::text as table, encode(t.tgargs, 'escape') as argument
         from pg_trigger t where t.tgfoid = 'einv_private.status_changed'::regproc order by 1`,
    );
    const kinds = await db.superuser<{ kind: string; table: string }>(
      "select kind, content_table::text as table from einv_private.document_kinds order by kind",
    );
    expect(rows).toEqual(
      [
        ...kinds.map((k) => ({ table: k.table, argument: `${k.kind}\\000` })),
        { table: "deliveries", argument: "delivery\\000" },
      ].sort((a, b) => (a.table < b.table ? -1 : 1)),
    );
  });
});

describe("a project whose Realtime cannot broadcast from the database", () => {
  const target = inject("database");
  it.skipIf(target.kind !== "postgres")(
    "is refused by the last migration (Realtime's) alone, rather than every later status change failing",
    async () => {
      // a Realtime older than realtime.send (self-hosted): realtime.messages is there, send() is not
      const fresh = await createFreshDatabase(target.kind === "postgres" ? target.adminUrl : "");
      const sql = postgres(fresh.url, { max: 1, onnotice: () => {} });
      try {
        let refused: string | undefined;
        const files = await schemaFiles();
        for (const file of files) {
          try {
            await sql.unsafe(file.sql);
          } catch (error) {
            refused = `${file.name}: ${(error as Error).message}`;
            break;
          }
          if (file.name === "compat/bootstrap.sql") {
            await sql.unsafe("drop function realtime.send(jsonb, text, text, boolean)");
          }
        }
        expect(refused).toMatch(
          /^migrations\/\d+_realtime\.sql: Realtime has not set up .*realtime\.send\(jsonb, text, text, boolean\) are missing/,
        );
        expect(refused?.startsWith(`${files.at(-1)?.name}:`)).toBe(true);
      } finally {
        await sql.end({ timeout: 5 });
        await fresh.drop();
      }
    },
    60_000,
  );
});

describe("who reaches the outbox", () => {
  it("neither a member nor anon reads or writes it; the service only through its functions", async () => {
    const select = "select count(*) from einv_private.outbox";
    const insert = `insert into einv_private.outbox (org_id, kind, document_id, status)
                    values (gen_random_uuid(), 'invoice', gen_random_uuid(), 'transmitida')`;
    for (const sql of [select, insert]) {
      expect(await sqlState(asRole(db, "authenticated", tenant.admin.claims, sql))).toBe("42501");
      expect(await sqlState(asRole(db, "anon", { role: "anon" }, sql))).toBe("42501");
      expect(await sqlState(service(sql))).toBe("42501");
    }
    const emit =
      "select einv_private.emit_event('invoice', gen_random_uuid(), gen_random_uuid(), 'transmitida', null)";
    expect(await sqlState(asRole(db, "authenticated", tenant.admin.claims, emit))).toBe("42501");
    expect(await sqlState(service(emit))).toBe("42501");
  });

  it("a member cannot make one by writing a status: the column is not theirs", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const write = "update invoices set status = 'transmitida' where id = $1";
    expect(await sqlState(asRole(db, "authenticated", tenant.admin.claims, write, [invoice.id]))).toBe(
      "42501",
    );
    await setInvoiceStatus(db, invoice.id, "transmitida");
    expect(await changesOf(db, invoice.id)).toEqual([["transmitida", "accepted"]]);
  });
});
