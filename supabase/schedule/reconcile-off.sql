-- Turns the reconcile schedule off (see reconcile.sql). The Vault secrets stay; delete them in the
-- Dashboard if the function is gone for good.
select cron.unschedule('einv-reconcile');
