-- Turns the reconcile schedule off (see reconcile.sql): the reconcile job and the daily cleanup of
-- pg_cron's run history. The Vault secrets stay; delete them in the Dashboard if the function is
-- gone for good.
select cron.unschedule('einv-reconcile');
select cron.unschedule('einv-cron-history-cleanup');
