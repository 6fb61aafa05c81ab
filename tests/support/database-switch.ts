/**
 * "The database is down" as the real server says it: `alter database … allow_connections false` and
 * `pg_terminate_backend` on the connections an app opened under one application name, from an admin
 * connection to the cluster; postgres.js then fails every query (its reconnect is refused) until the
 * database allows connections again. Killing backends alone would not do: the pool reconnects at
 * once. The test's own connections (fixtures, assertions) stay, as an operator's would. PostgreSQL
 * only (the cluster's admin URL).
 */
import postgres from "postgres";
import type { TestDatabase } from "../../devkit/database.ts";

export interface DatabaseSwitch {
  /** The database's URL for an app's own pool: its connections are the ones cut. */
  appUrl: string;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export function databaseSwitch(db: TestDatabase, adminUrl: string, applicationName: string): DatabaseSwitch {
  const name = new URL(db.url ?? "").pathname.slice(1);
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const appUrl = new URL(db.url ?? "");
  appUrl.searchParams.set("application_name", applicationName);
  const up = async () => {
    await admin.unsafe(`alter database ${name} with allow_connections true`);
  };
  return {
    appUrl: appUrl.toString(),
    async down() {
      await admin.unsafe(`alter database ${name} with allow_connections false`);
      await admin.unsafe(
        "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and application_name = $2",
        [name, applicationName],
      );
    },
    up,
    async close() {
      await up().catch(() => {});
      await admin.end({ timeout: 5 });
    },
  };
}
