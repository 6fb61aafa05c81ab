-- What a hosted Supabase project gives its `postgres` role — the role `db push` applies migrations
-- as — on the Supabase pieces that supabase/compat/bootstrap.sql recreates. Used only by
-- tests/db/hosted-migrations.test.ts (devkit/hosted.ts), never on a project: there, the bootstrap
-- runs as `postgres` while it is still a superuser (as Supabase's image runs its init scripts:
-- supabase/postgres migrations/db/migrate.sh at 7db7e1a9), and then this file, as the cluster's
-- superuser `supabase_admin`, takes the superuser away and grants what the platform grants. Each
-- statement names its source (supabase/postgres, supabase/realtime, supabase/vault). Idempotent.
--
-- What `postgres` may NOT do here, as on a project: own, or be a member of the owner of, auth's,
-- storage's or realtime's tables; create in those schemas. It creates policies on the tables that
-- supautils' `policy_grants` lists only through supautils, which devkit/hosted.ts stands in for.

-- ─── the role ────────────────────────────────────────────────────────────────────────────────────
-- supabase/postgres migrations/db/migrations/10000000000000_demote-postgres.sql (at 35d889e3)
alter role postgres nosuperuser createdb createrole login replication bypassrls;

-- ─── auth ────────────────────────────────────────────────────────────────────────────────────────
-- demote-postgres.sql: every privilege on auth's tables, sequences and routines; then
-- 20250421084701_revoke_admin_roles_from_postgres.sql (at 96d88738): not a member of its admin, no
-- CREATE on its schema.
-- 00000000000001-auth-schema.sql (at 7db7e1a9): `create schema … auth authorization supabase_admin`
alter schema auth owner to supabase_admin;
grant usage on schema auth to postgres;
grant all on all tables in schema auth to postgres;
grant all on all sequences in schema auth to postgres;
grant all on all routines in schema auth to postgres;
revoke supabase_auth_admin from postgres;
revoke create on schema auth from postgres;

-- ─── storage ─────────────────────────────────────────────────────────────────────────────────────
-- demote-postgres.sql; 20250623125453_tmp_grant_storage_tables_to_postgres_with_grant_option.sql
-- (at 423b32b8); 20250709135250_grant_storage_schema_to_postgres_with_grant_option.sql (at
-- 3d31e9ca); 20250421084701_revoke_admin_roles_from_postgres.sql.
-- 00000000000002-storage-schema.sql (at 7db7e1a9): `create schema … storage authorization supabase_admin`
alter schema storage owner to supabase_admin;
grant usage on schema storage to postgres with grant option;
grant all on all tables in schema storage to postgres;
grant all on all sequences in schema storage to postgres;
grant all on all routines in schema storage to postgres;
grant all on storage.buckets, storage.objects to postgres with grant option;
revoke supabase_storage_admin from postgres;
revoke create on schema storage from postgres;

-- ─── realtime ────────────────────────────────────────────────────────────────────────────────────
-- supabase/realtime lib/realtime/tenants/repo/migrations/ at 833cf36c:
-- 20231204144023_set_required_grants.ex (usage, SELECT on its tables, EXECUTE on its functions),
-- 20241030150047_messages_partitioning.ex (SELECT, INSERT, UPDATE on realtime.messages),
-- 20260707120000_restrict_realtime_schema.ex (usage with grant option, no CREATE, not a member of
-- supabase_realtime_admin; also supabase/postgres 20260506172403_grant_realtime_schema_to_postgres_with_grant_option.sql).
-- Absent on a project whose Realtime has not connected yet: then there is nothing to grant.
do $$
begin
  if exists (select from pg_namespace where nspname = 'realtime') then
    -- created by the superuser (20211118015519_create-realtime-schema.sql at 7db7e1a9)
    alter schema realtime owner to supabase_admin;
    grant usage on schema realtime to postgres with grant option;
    grant select on all tables in schema realtime to postgres;
    grant execute on all functions in schema realtime to postgres;
    grant select, insert, update on realtime.messages to postgres;
    revoke create on schema realtime from postgres;
    revoke supabase_realtime_admin from postgres;
  end if;
end $$;

-- ─── vault ───────────────────────────────────────────────────────────────────────────────────────
-- The part of Supabase Vault that supabase/schedule/reconcile.sql uses, owned by the superuser as the
-- extension is, with the grants Supabase gives `postgres` after creating it (supabase/postgres
-- ansible/files/postgresql_extension_custom_scripts/supabase_vault/after-create.sql at 1e1d69c0):
-- it reads the secrets and may call create_secret/update_secret, but not write the table itself.
-- The functions keep Vault's signatures (supabase/vault sql/supabase_vault--0.3.0.sql at 16f1570e);
-- the encryption is left out.
create schema if not exists vault;
create table if not exists vault.secrets (
  id uuid primary key default gen_random_uuid(),
  name text,
  description text not null default '',
  secret text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index if not exists secrets_name_idx on vault.secrets (name) where name is not null;
create or replace view vault.decrypted_secrets as
  select s.id, s.name, s.description, s.secret, s.secret as decrypted_secret, s.created_at, s.updated_at
    from vault.secrets s;
create or replace function vault.create_secret(new_secret text, new_name text = null, new_description text = '',
  new_key_id uuid = null) returns uuid
language sql security definer set search_path = '' as $$
  insert into vault.secrets (secret, name, description) values (new_secret, new_name, new_description)
  returning id
$$;
create or replace function vault.update_secret(secret_id uuid, new_secret text = null, new_name text = null,
  new_description text = null, new_key_id uuid = null) returns void
language sql security definer set search_path = '' as $$
  update vault.secrets s
     set secret = coalesce(new_secret, s.secret), name = coalesce(new_name, s.name),
         description = coalesce(new_description, s.description), updated_at = now()
   where s.id = secret_id
$$;
revoke all on function vault.create_secret(text, text, text, uuid), vault.update_secret(uuid, text, text, text, uuid)
  from public;
grant usage on schema vault to postgres with grant option;
grant select, delete on vault.secrets, vault.decrypted_secrets to postgres with grant option;
grant execute on function vault.create_secret(text, text, text, uuid), vault.update_secret(uuid, text, text, text, uuid)
  to postgres with grant option;
