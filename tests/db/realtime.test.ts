/**
 * Who may receive an organization's document events on Realtime, and who may send on its channel,
 * decided by the RLS policies on realtime.messages (…_events.sql) and checked the way Realtime
 * checks a client joining a private channel (tests/support/events.ts reproduces
 * lib/realtime/tenants/authorization.ex). Realtime itself cannot run here: these tests stop at the
 * database boundary — the rows Realtime would broadcast (tests/db/outbox.test.ts) and its decision
 * for each client.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTenant, type Tenant } from "../../devkit/factories.ts";
import { documentsTopic, type Joiner, realtimeAccess } from "../support/events.ts";

let db: TestDatabase;
let home: Tenant;
let other: Tenant;
beforeAll(async () => {
  db = await createTestDatabase();
  [home, other] = await Promise.all([createTenant(db), createTenant(db)]);
});
afterAll(() => db?.close());

const member = (user: { claims: Record<string, unknown> }): Joiner => ({
  role: "authenticated",
  claims: user.claims,
});

describe("an organization's document channel", () => {
  it("admits every member of the org to receive — lectores too — and nobody else; nobody sends", async () => {
    const topic = documentsTopic(home.org.id);
    const cases: [string, Joiner, boolean][] = [
      ["admin", member(home.admin), true],
      ["operador", member(home.operador), true],
      ["lector", member(home.lector), true],
      ["another org's admin", member(other.admin), false],
      ["anon", { role: "anon" }, false],
    ];
    for (const [who, joiner, receives] of cases) {
      expect({ who, ...(await realtimeAccess(db, joiner, topic)) }).toEqual({
        who,
        receive: receives,
        send: false,
      });
    }
  });

  it("is the org's alone: a member of both orgs hears both, each org's members only their own", async () => {
    expect(await realtimeAccess(db, member(other.admin), documentsTopic(other.org.id))).toEqual({
      receive: true,
      send: false,
    });
    expect(await realtimeAccess(db, member(home.lector), documentsTopic(other.org.id))).toEqual({
      receive: false,
      send: false,
    });
  });

  it("stays closed whatever the project opens for its own channels: the restrictive policies win", async () => {
    // what Supabase's getting-started guide suggests for a project's own channels
    await db.superuser(`create policy "test: anyone signed in receives anything" on realtime.messages
                          for select to authenticated using (true)`);
    await db.superuser(`create policy "test: anyone signed in sends anything" on realtime.messages
                          for insert to authenticated with check (true)`);
    try {
      const own = "room:lobby";
      expect(await realtimeAccess(db, member(other.admin), own)).toEqual({ receive: true, send: true });
      expect(await realtimeAccess(db, member(other.admin), documentsTopic(home.org.id))).toEqual({
        receive: false,
        send: false,
      });
      expect(await realtimeAccess(db, member(home.admin), documentsTopic(home.org.id))).toEqual({
        receive: true,
        send: false,
      });
      // presence on the channel: a member of another org may neither track nor see it
      expect(await realtimeAccess(db, member(other.admin), documentsTopic(home.org.id), "presence")).toEqual({
        receive: false,
        send: false,
      });
    } finally {
      await db.superuser(`drop policy "test: anyone signed in receives anything" on realtime.messages`);
      await db.superuser(`drop policy "test: anyone signed in sends anything" on realtime.messages`);
    }
  });

  it("admits no presence by default: the channel carries broadcasts only", async () => {
    expect(await realtimeAccess(db, member(home.admin), documentsTopic(home.org.id), "presence")).toEqual({
      receive: false,
      send: false,
    });
  });
});
