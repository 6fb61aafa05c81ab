/**
 * supabase/schedule/reconcile.sql against PostgreSQL 15 with Debian's pg_cron (preloaded by the test
 * cluster when postgresql-15-cron is installed; CI installs it). pg_net and Vault are Supabase's:
 * here, and only here, they are stubbed at the SQL level — `net.http_post` records what it was asked
 * to send, `vault.decrypted_secrets` answers two secrets — so the test runs the job's own command
 * and checks the request it makes.
 */
import { readFileSync } from "node:fs";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const target = inject("database");
const read = (name: string) =>
  readFileSync(new URL(`../../supabase/schedule/${name}`, import.meta.url), "utf8");
let sql: postgres.Sql | undefined;
let cron = false;

beforeAll(async () => {
  if (target.kind !== "postgres") return;
  // pg_cron lives in the database its worker watches: the cluster's `postgres`
  sql = postgres(target.adminUrl, { max: 1, onnotice: () => {} });
  const [preloaded] = await sql`select current_setting('shared_preload_libraries') like '%pg_cron%' as on`;
  cron = preloaded?.on === true;
  if (!cron) return;
  await sql.unsafe(`
    create extension if not exists pg_cron;
    create schema if not exists net;
    create table if not exists net.requests (url text, headers jsonb, body jsonb, timeout_milliseconds integer);
    create or replace function net.http_post(url text, body jsonb default '{}', params jsonb default '{}',
      headers jsonb default '{}', timeout_milliseconds integer default 5000) returns bigint
    language sql as $$ insert into net.requests values (url, headers, body, timeout_milliseconds); select 1::bigint $$;
    create schema if not exists vault;
    create or replace view vault.decrypted_secrets as
      select * from (values ('einv_reconcile_url', 'https://ref.supabase.co/functions/v1/reconcile'),
                            ('einv_reconcile_secret', 'the-reconcile-secret')) s (name, decrypted_secret);
    truncate net.requests;`);
});
afterAll(async () => {
  await sql?.end({ timeout: 5 });
});

// The real server with pg_cron preloaded: on CI always (a missing package fails here, not skips).
const runs = target.kind === "postgres" || Boolean(process.env.CI);

describe.skipIf(!runs)("the reconcile schedule (pg_cron + pg_net, secrets from Vault)", () => {
  it("schedules one job every minute, whose command POSTs to the Vault URL with the Vault secret", async () => {
    expect(cron, "pg_cron is not preloaded: install postgresql-15-cron").toBe(true);
    const db = sql as postgres.Sql;
    await db.unsafe(read("reconcile.sql"));
    await db.unsafe(read("reconcile.sql")); // applying it again updates, never duplicates
    const jobs = await db`select schedule, command from cron.job where jobname = 'einv-reconcile'`;
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.schedule).toBe("* * * * *");
    expect(jobs[0]?.command).not.toContain("the-reconcile-secret"); // read at run time, not stored

    await db.unsafe(String(jobs[0]?.command));
    const [request] = await db`select url, headers, body, timeout_milliseconds from net.requests`;
    expect(request).toEqual({
      url: "https://ref.supabase.co/functions/v1/reconcile",
      headers: { "Content-Type": "application/json", Authorization: "Bearer the-reconcile-secret" },
      body: {},
      timeout_milliseconds: 120000,
    });

    await db.unsafe(read("reconcile-off.sql"));
    expect(await db`select 1 from cron.job where jobname = 'einv-reconcile'`).toHaveLength(0);
  });
});
