/**
 * An independent record of every committed status change, to hold the outbox against: a witness
 * table that a trigger of the test's own fills with every row version of invoices, credit and debit
 * notes, and deliveries (status and code), inside the writing transaction — so a version that rolled back is
 * not there, and one that committed is. From those versions the test derives the changes (a version
 * whose status or code differs from the one before it; a row's first version is its start), and the
 * outbox must hold exactly one event for each, in the same order, and nothing else.
 */
import { expect } from "vitest";
import type { TestDatabase } from "../../devkit/database.ts";
import type { ReceivedMessage } from "../../devkit/webhooks.ts";

const TABLES = {
  invoices: "last_code",
  credit_notes: "last_code",
  debit_notes: "last_code",
  deliveries: "code",
} as const;

/** Creates the witness (once per test database). */
export async function installWitness(db: TestDatabase): Promise<void> {
  await db.superuser(`create schema if not exists witness`);
  await db.superuser(`create table if not exists witness.versions (
    seq bigserial primary key, org_id uuid not null, document_id uuid not null, first boolean not null,
    status text not null, code text)`);
  await db.superuser(`create or replace function witness.record() returns trigger language plpgsql as $$
    begin
      insert into witness.versions (org_id, document_id, first, status, code)
      values (new.org_id, new.id, tg_op = 'INSERT', new.status, to_jsonb(new) ->> tg_argv[0]);
      return null;
    end $$`);
  for (const [table, code] of Object.entries(TABLES)) {
    await db.superuser(`create trigger witness after insert or update on public.${table}
                          for each row execute function witness.record('${code}')`);
  }
}

type Change = [documentId: string, status: string, code: string | null];

/** Every change the witness saw among the org's documents, per document in order. */
async function witnessedChanges(db: TestDatabase, orgId: string): Promise<Change[]> {
  const versions = await db.superuser<{
    document_id: string;
    first: boolean;
    status: string;
    code: string | null;
  }>(
    "select document_id::text, first, status, code from witness.versions where org_id = $1 order by document_id, seq",
    [orgId],
  );
  const changes: Change[] = [];
  let previous: (typeof versions)[number] | undefined;
  for (const version of versions) {
    const same = previous?.document_id === version.document_id;
    const changed = same && (previous?.status !== version.status || previous?.code !== version.code);
    if (!version.first && (!same || changed))
      changes.push([version.document_id, version.status, version.code]);
    previous = version;
  }
  return changes;
}

/** The outbox's events of the org's documents (not its credentials), per document in order. */
async function outboxChanges(db: TestDatabase, orgId: string): Promise<Change[]> {
  const events = await db.superuser<{ document_id: string; status: string; code: string | null }>(
    `select document_id::text, status, code from einv_private.outbox
      where org_id = $1 and kind <> 'credential' order by document_id, id`,
    [orgId],
  );
  return events.map((e) => [e.document_id, e.status, e.code]);
}

/** Each committed change of the org's documents has exactly one event, in order; there is no other. */
export async function expectOneEventPerChange(db: TestDatabase, orgId: string): Promise<void> {
  const witnessed = await witnessedChanges(db, orgId);
  expect(witnessed.length).toBeGreaterThan(0);
  expect(await outboxChanges(db, orgId)).toEqual(witnessed);
}

/** The org's newest event id (0 without one): events after it are the ones an endpoint made now gets. */
export async function lastEventId(db: TestDatabase, orgId: string): Promise<number> {
  const [row] = await db.superuser<{ id: string }>(
    "select coalesce(max(id), 0)::text as id from einv_private.outbox where org_id = $1",
    [orgId],
  );
  return Number(row?.id ?? 0);
}

/**
 * What a receiver got holds every committed event of the org since `afterEventId` once at least (by
 * `webhook-id`), no other, and a document's events arrived in their order.
 */
export async function expectEveryEventReceived(
  db: TestDatabase,
  orgId: string,
  received: readonly ReceivedMessage[],
  afterEventId: number,
): Promise<void> {
  const events = await db.superuser<{ id: string; document_id: string; sequence: number }>(
    `select einv_private.event_payload(o) ->> 'id' as id, document_id::text, sequence::int as sequence
       from einv_private.outbox o where org_id = $1 and o.id > $2 order by o.id`,
    [orgId, afterEventId],
  );
  const taken = received.filter((m) => m.answered >= 200 && m.answered < 300);
  expect([...new Set(taken.map((m) => m.id))].sort()).toEqual(events.map((e) => e.id).sort());
  expect(received.filter((m) => !events.some((e) => e.id === m.id))).toEqual([]);
  const byId = new Map(events.map((e) => [e.id, e]));
  const firstArrivals = new Map<string, number[]>();
  for (const message of taken) {
    const event = byId.get(message.id);
    const order = firstArrivals.get(event?.document_id ?? "") ?? [];
    const n = event?.sequence ?? 0;
    if (!order.includes(n)) order.push(n);
    firstArrivals.set(event?.document_id ?? "", order);
  }
  for (const order of firstArrivals.values()) expect(order).toEqual([...order].sort((a, b) => a - b));
}
