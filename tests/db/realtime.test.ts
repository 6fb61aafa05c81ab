/**
 * Who may receive an organization's document events on Realtime, and who may send on its channel,
 * decided by the RLS policies on realtime.messages (…_realtime.sql) and checked the way Realtime
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

  it("keeps anon's own channels working when the project opens one to anon, and ours closed to it", async () => {
    // a project's channel for visitors who are not signed in: Realtime reads the probe back as anon,
    // and every restrictive policy for anon is evaluated with it
    await db.superuser(`create policy "test: visitors receive the lobby" on realtime.messages
                          for select to anon using (realtime.messages.topic = 'room:lobby')`);
    try {
      expect(await realtimeAccess(db, { role: "anon" }, "room:lobby")).toEqual({
        receive: true,
        send: false,
      });
      expect(await realtimeAccess(db, { role: "anon" }, documentsTopic(home.org.id))).toEqual({
        receive: false,
        send: false,
      });
    } finally {
      await db.superuser(`drop policy "test: visitors receive the lobby" on realtime.messages`);
    }
  });

  it("closes to a member removed from the org at the next join", async () => {
    const leaving = await createTenant(db);
    const topic = documentsTopic(leaving.org.id);
    expect(await realtimeAccess(db, member(leaving.operador), topic)).toEqual({ receive: true, send: false });
    await db.superuser("delete from memberships where user_id = $1 and org_id = $2", [
      leaving.operador.id,
      leaving.org.id,
    ]);
    expect(await realtimeAccess(db, member(leaving.operador), topic)).toEqual({
      receive: false,
      send: false,
    });
  });

  it("admits a member to that exact topic only, not one that merely starts or ends like it", async () => {
    for (const topic of [
      `${documentsTopic(home.org.id)}:x`,
      `x${documentsTopic(home.org.id)}`,
      documentsTopic(home.org.id).toUpperCase(),
    ]) {
      expect(await realtimeAccess(db, member(home.admin), topic)).toEqual({ receive: false, send: false });
    }
  });

  it("admits no presence by default: the channel carries broadcasts only", async () => {
    expect(await realtimeAccess(db, member(home.admin), documentsTopic(home.org.id), "presence")).toEqual({
      receive: false,
      send: false,
    });
  });
});
