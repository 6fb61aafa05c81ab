-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Turns the reconcile schedule on: every minute, pg_cron has pg_net POST to the reconcile function
-- with its secret; and once a day, pg_cron deletes its own run history older than a week. Not a
-- migration (a project chooses when to turn it on, and local databases have neither extension).
-- Apply it with `psql` or the SQL editor, once, after:
--   1. enabling the extensions pg_cron and pg_net (Dashboard → Database → Extensions);
--   2. storing the function's URL and its secret in Vault:
--        select vault.create_secret('https://<ref>.supabase.co/functions/v1/reconcile', 'einv_reconcile_url');
--        select vault.create_secret('<the value of EINV_RECONCILE_SECRET>', 'einv_reconcile_secret');
-- The job reads both from Vault each time it fires, so neither is stored in the job's text. To rotate
-- the secret, set the function's new EINV_RECONCILE_SECRET and then the Vault copy: update_secret
-- takes the secret's id, not its name (supabase/vault sql/supabase_vault--0.3.0.sql at 16f1570e:
-- `vault.update_secret(secret_id uuid, new_secret text, new_name text, …)`), and `postgres` may read
-- vault.secrets' ids (supabase/postgres ansible/files/postgresql_extension_custom_scripts/
-- supabase_vault/after-create.sql at 1e1d69c0):
--        select vault.update_secret(
--          (select id from vault.secrets where name = 'einv_reconcile_secret'),
--          '<the new value of EINV_RECONCILE_SECRET>');
-- It applies from the next minute (a run in between is refused with 401 and changes nothing).
-- Applying this file again updates both jobs in place. `supabase/schedule/reconcile-off.sql` turns
-- them off.
--
-- The request's timeout (pg_net's `timeout_milliseconds`, after which pg_net gives up waiting:
-- supabase/pg_net sql/pg_net.sql at 217e564b) is longer than any run: a run ends within its budget
-- (EINV_RECONCILE_BUDGET_MS, at most 90 s) plus the recording of its last answers, so its answer
-- is what pg_net keeps in net._http_response, not a timeout.
--
-- pg_cron keeps a row per run in cron.job_run_details and never deletes them ("The records in the
-- table are not cleaned automatically": citusdata/pg_cron README.md at 16618e69, which schedules this
-- same cleanup); a job every minute adds 1,440 a day. `postgres` may delete them (pg_cron grants
-- DELETE on the table, and its row security limits each role to its own runs; Supabase grants
-- `postgres` every privilege on the cron tables but cron.job's writes: supabase/postgres
-- ansible/files/postgresql_extension_custom_scripts/pg_cron/after-create.sql at 69d4ec38).
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

select cron.schedule(
  'einv-reconcile',
  '* * * * *',
  $job$
    select net.http_post(
      url := (select decrypted_secret from vault.decrypted_secrets where name = 'einv_reconcile_url'),
      headers := jsonb_build_object(
        'Content-Type', 'application/json',
        'Authorization', 'Bearer ' || (select decrypted_secret from vault.decrypted_secrets
                                        where name = 'einv_reconcile_secret')),
      body := '{}'::jsonb,
      timeout_milliseconds := 120000)
  $job$
);

select cron.schedule(
  'einv-cron-history-cleanup',
  '17 3 * * *',
  -- this project's jobs only (others' history is theirs to keep), runs that never ended included
  $job$ delete from cron.job_run_details
         where coalesce(end_time, start_time) < now() - interval '7 days'
           and jobid in (select jobid from cron.job where jobname like 'einv-%') $job$
);
