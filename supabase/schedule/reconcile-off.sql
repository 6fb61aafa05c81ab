-- Turns the reconcile schedule off (see reconcile.sql): the reconcile job and the daily cleanup of
-- pg_cron's run history. The Vault secrets stay; delete them in the Dashboard if the function is
-- gone for good.
-- (by name, and only those scheduled: unscheduling a job that is not there is an error)
select cron.unschedule(jobname) from cron.job
 where jobname in ('einv-reconcile', 'einv-cron-history-cleanup');
