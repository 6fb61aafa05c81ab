/**
 * supabase/schedule/reconcile.sql against PostgreSQL 15 with Debian's pg_cron (preloaded by the test
 * cluster when postgresql-15-cron is installed; CI installs it). pg_net and Vault are Supabase's:
 * here, and only here, they are stubbed at the SQL level — `net.http_post` records what it was asked
 * to send; Vault is its table of secrets, its decrypted view and `vault.update_secret` with Vault's
 * own signature (supabase/vault sql/supabase_vault--0.3.0.sql at 16f1570e), without the encryption —
 * so the test runs the jobs' own commands and the snippet's own rotation statement, and checks what
 * they do.
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
    create table if not exists vault.secrets (id uuid primary key default gen_random_uuid(), name text unique,
      description text not null default '', secret text not null);
    create or replace view vault.decrypted_secrets as select id, name, secret as decrypted_secret from vault.secrets;
    create or replace function vault.update_secret(secret_id uuid, new_secret text = null, new_name text = null,
      new_description text = null, new_key_id uuid = null) returns void
    language sql as $$
      update vault.secrets s set secret = coalesce(new_secret, s.secret), name = coalesce(new_name, s.name),
             description = coalesce(new_description, s.description)
       where s.id = secret_id $$;
    truncate vault.secrets;
    insert into vault.secrets (name, secret)
    values ('einv_reconcile_url', 'https://ref.supabase.co/functions/v1/reconcile'),
           ('einv_reconcile_secret', 'the-reconcile-secret');
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
    expect(await db`select 1 from cron.job where jobname like 'einv-%'`).toHaveLength(0);
  });

  it("rotates the secret with the snippet's own statement: by the secret's id, read at the next run", async () => {
    const db = sql as postgres.Sql;
    await db.unsafe(read("reconcile.sql"));
    // the rotation lines of the snippet's header, as an operator pastes them
    const rotation = /--\s+(select vault\.update_secret\([\s\S]*?\);)/
      .exec(read("reconcile.sql"))?.[1]
      ?.replace(/\n--\s*/g, "\n");
    expect(rotation).toBeDefined();
    await db.unsafe(
      String(rotation).replace("<the new value of EINV_RECONCILE_SECRET>", "the-rotated-secret"),
    );
    const [job] = await db`select command from cron.job where jobname = 'einv-reconcile'`;
    await db`truncate net.requests`;
    await db.unsafe(String(job?.command));
    const [request] = await db`select headers from net.requests`;
    expect(request?.headers).toMatchObject({ Authorization: "Bearer the-rotated-secret" });
    await db.unsafe(read("reconcile-off.sql"));
  });

  it("also schedules, once a day, the deletion of pg_cron's run history older than a week", async () => {
    const db = sql as postgres.Sql;
    await db.unsafe(read("reconcile.sql"));
    const jobs =
      await db`select jobname, schedule, command from cron.job where jobname like 'einv-%' order by jobname`;
    expect(jobs.map((j) => j.jobname)).toEqual(["einv-cron-history-cleanup", "einv-reconcile"]);
    const [cleanup] = jobs;
    // once a day: a fixed minute and hour, every day
    expect(cleanup?.schedule).toMatch(/^\d{1,2} \d{1,2} \* \* \*$/);
    const [reconcileJob] = await db`select jobid from cron.job where jobname = 'einv-reconcile'`;
    await db`delete from cron.job_run_details where jobid = ${reconcileJob?.jobid}`;
    for (const days of [30, 8, 6, 0]) {
      await db`insert into cron.job_run_details (jobid, runid, database, username, command, status, start_time, end_time)
               values (${reconcileJob?.jobid}, nextval('cron.runid_seq'), 'postgres', 'postgres', 'select 1', 'succeeded',
                       now() - make_interval(days => ${days}), now() - make_interval(days => ${days}))`;
    }
    await db.unsafe(String(cleanup?.command));
    const left = await db`select extract(day from now() - end_time)::int as days from cron.job_run_details
                           where jobid = ${reconcileJob?.jobid} order by end_time`;
    expect(left.map((r) => r.days)).toEqual([6, 0]);
    await db.unsafe(read("reconcile-off.sql"));
    expect(await db`select 1 from cron.job where jobname like 'einv-%'`).toHaveLength(0);
  });
});
