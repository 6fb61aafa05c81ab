-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Turns the reconcile schedule on: every minute, pg_cron has pg_net POST to the reconcile function
-- with its secret. Not a migration (a project chooses when to turn it on, and local databases have
-- neither extension). Apply it with `psql` or the SQL editor, once, after:
--   1. enabling the extensions pg_cron and pg_net (Dashboard → Database → Extensions);
--   2. storing the function's URL and its secret in Vault:
--        select vault.create_secret('https://<ref>.supabase.co/functions/v1/reconcile', 'einv_reconcile_url');
--        select vault.create_secret('<the value of EINV_RECONCILE_SECRET>', 'einv_reconcile_secret');
-- The job reads both from Vault each time it fires, so neither is stored in the job's text, and a
-- rotated secret (vault.update_secret) applies from the next minute. Applying this file again
-- updates the job in place. `supabase/schedule/reconcile-off.sql` turns it off.
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
