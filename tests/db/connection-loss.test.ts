/**
 * The postgres.js client survives losing its connections: a database that terminates them and
 * refuses new ones gets errors, never a call that hangs, and the client works again once the
 * database is back (after the wait it keeps between attempts) — with one connection too, the local server's default on two cores
 * (postgres.js alone never answers again after a reset on a pool of one: porsager/postgres#1130).
 */
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { connectionLost, connectPostgres } from "../../shared/db/sql-client.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.close());

describe("the postgres.js client when the database goes away and comes back", () => {
  it.skipIf(inject("database").kind === "pglite").each([1, 3])(
    "with %i connection(s): errors while it is down, answers again once it is up",
    async (max) => {
      const url = new URL(db.url ?? "");
      const name = url.pathname.slice(1);
      const appName = `loss_${max}_${Date.now()}`;
      url.searchParams.set("application_name", appName);
      // the operator, connected to another database of the cluster
      const admin = postgres(Object.assign(new URL(db.url ?? ""), { pathname: "/postgres" }).toString(), {
        max: 1,
        onnotice: () => {},
      });
      const client = await connectPostgres(url.toString(), { max });
      try {
        // open every connection, so that each one is cut
        await Promise.all(Array.from({ length: max }, () => client.script("select pg_sleep(0.05)")));
        await admin.unsafe(`alter database ${name} with allow_connections false`);
        await admin.unsafe(
          "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and application_name = $2",
          [name, appName],
        );
        for (let i = 0; i < max + 2; i++) {
          const error = await client.script("select 1 as one").then(
            () => null,
            (e: unknown) => e,
          );
          expect(error, `call ${i + 1} while the database is down`).not.toBeNull();
          expect(connectionLost(error)).toBe(true);
        }
        await admin.unsafe(`alter database ${name} with allow_connections true`);
        // after failures in a row the client waits before connecting again (at most 2 s), failing fast
        let answer: unknown = null;
        for (const started = Date.now(); answer === null && Date.now() - started < 5000; ) {
          answer = await client.script("select 1 as one").catch(async () => {
            await new Promise((resolve) => setTimeout(resolve, 50));
            return null;
          });
        }
        expect(answer).toEqual([{ one: 1 }]);
        expect(await client.transaction((s) => s.query("select 2 as two"))).toEqual([{ two: 2 }]);
      } finally {
        await admin.unsafe(`alter database ${name} with allow_connections true`);
        await admin.end();
        await client.close();
      }
    },
  );

  it.skipIf(inject("database").kind === "pglite")(
    "keeps the connection when a transaction's own work fails, or a statement does",
    async () => {
      const client = await connectPostgres(db.url ?? "", { max: 1 });
      try {
        const pid = async () =>
          (await client.script<{ pid: number }>("select pg_backend_pid() as pid"))[0]?.pid;
        const before = await pid();
        await expect(
          client.transaction(async () => {
            throw new Error("the work's own error");
          }),
        ).rejects.toThrow("the work's own error");
        await expect(client.script("select 1/0")).rejects.toThrow();
        expect(await pid()).toBe(before);
      } finally {
        await client.close();
      }
    },
  );

  it("keeps a connection only after an error the server reported for a statement", () => {
    expect(connectionLost({ code: "P0001", severity: "ERROR", message: "not_found" })).toBe(false);
    expect(connectionLost({ code: "23505", severity: "ERROR", message: "duplicate key" })).toBe(false);
    expect(connectionLost({ code: "57014", severity: "ERROR", message: "canceling statement" })).toBe(false);
    expect(connectionLost({ code: "57P01", severity: "FATAL", message: "terminating connection" })).toBe(
      true,
    );
    expect(connectionLost({ code: "53300", severity: "FATAL", message: "too many clients" })).toBe(true);
    expect(connectionLost(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }))).toBe(true);
    expect(connectionLost(Object.assign(new Error("closed"), { code: "CONNECTION_CLOSED" }))).toBe(true);
    expect(connectionLost(Object.assign(new Error("tls"), { code: "ERR_SSL_WRONG_VERSION_NUMBER" }))).toBe(
      true,
    );
    expect(connectionLost(new Error("no code"))).toBe(true);
    // refused by the driver before anything was sent
    expect(connectionLost(Object.assign(new Error("UNDEFINED_VALUE: …"), { code: "UNDEFINED_VALUE" }))).toBe(
      false,
    );
    expect(connectionLost(new TypeError("Do not know how to serialize a BigInt"))).toBe(false);
    expect(connectionLost(null)).toBe(true);
  });
});
