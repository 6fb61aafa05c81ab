-- Supabase compatibility bootstrap for plain PostgreSQL (and PGlite).
--
-- Used only by the tests and the local server, never on a Supabase project: it recreates the
-- small part of a Supabase database that our migrations rely on, so that the same migration files
-- apply unchanged here and on a real project. Idempotent: safe to run twice.
--
-- Owned as the platform owns them: auth's tables and functions by supabase_auth_admin, storage's by
-- supabase_storage_admin, realtime's by supabase_realtime_admin (sources below, at each part). Where
-- it differs from the platform, on purpose (tests/db/hosted-migrations.test.ts checks each):
--   * realtime.messages has no `binary_payload` column (nor realtime.send_binary);
--   * realtime.messages has a default partition, where Realtime creates one partition a day;
--   * nothing is granted to `postgres` on realtime.messages (Realtime grants it SELECT, INSERT and
--     UPDATE): here `postgres` is the superuser that runs everything; supabase/compat/hosted-postgres.sql
--     gives a non-superuser `postgres` what a hosted project gives it;
--   * storage.objects and storage.buckets have fewer columns than Storage's (no `version`,
--     `user_metadata`, …), and auth.users far fewer than Auth's: only what the migrations and the
--     tests use.
-- The roles `postgres` has no superuser and BYPASSRLS on a project, and supautils lets it create
-- policies on the platform's tables: supabase/compat/hosted-postgres.sql and the test above.

-- ─── roles ────────────────────────────────────────────────────────────────────────────────────────
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'anon') then
    create role anon nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticated') then
    create role authenticated nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'service_role') then
    create role service_role nologin noinherit bypassrls;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticator') then
    create role authenticator nologin noinherit;
  end if;
end $$;

grant anon, authenticated, service_role to authenticator;

-- Supabase exposes `public` to the API roles and grants them everything on new objects by default;
-- our migrations must revoke what they do not want, so the bootstrap reproduces that default.
grant usage on schema public to anon, authenticated, service_role;
alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;

-- ─── auth ─────────────────────────────────────────────────────────────────────────────────────────
create schema if not exists auth;
grant usage on schema auth to anon, authenticated, service_role;

create table if not exists auth.users (
  id uuid primary key,
  email text unique,
  raw_app_meta_data jsonb not null default '{}'::jsonb,
  raw_user_meta_data jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);

create or replace function auth.uid() returns uuid
language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.sub', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
  )::uuid
$$;

create or replace function auth.role() returns text
language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.role', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
  )::text
$$;

create or replace function auth.jwt() returns jsonb
language sql stable as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim', true), ''),
    nullif(current_setting('request.jwt.claims', true), '')
  )::jsonb
$$;

grant execute on function auth.uid(), auth.role(), auth.jwt() to anon, authenticated, service_role;

-- Auth's own role owns its schema's tables and functions (supabase/postgres at 7db7e1a9:
-- migrations/db/init-scripts/00000000000001-auth-schema.sql, migrations/db/migrations/20211124212715_update-auth-owner.sql).
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'supabase_auth_admin') then
    create role supabase_auth_admin noinherit nologin;
  end if;
end $$;
grant all on schema auth to supabase_auth_admin;
alter table auth.users owner to supabase_auth_admin;
alter function auth.uid() owner to supabase_auth_admin;
alter function auth.role() owner to supabase_auth_admin;
alter function auth.jwt() owner to supabase_auth_admin;

-- ─── storage ──────────────────────────────────────────────────────────────────────────────────────
create schema if not exists storage;
grant usage on schema storage to anon, authenticated, service_role;

create table if not exists storage.buckets (
  id text primary key,
  name text not null unique,
  owner uuid,
  public boolean not null default false,
  file_size_limit bigint,
  allowed_mime_types text[],
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table if not exists storage.objects (
  id uuid primary key default gen_random_uuid(),
  bucket_id text references storage.buckets (id),
  name text not null,
  owner uuid,
  metadata jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_accessed_at timestamptz not null default now(),
  unique (bucket_id, name)
);

alter table storage.objects enable row level security;
alter table storage.buckets enable row level security;
grant all on storage.objects, storage.buckets to anon, authenticated, service_role;

create or replace function storage.foldername(name text) returns text[]
language plpgsql immutable as $$
declare
  _parts text[];
begin
  select string_to_array(name, '/') into _parts;
  return _parts[1:array_length(_parts, 1) - 1];
end
$$;

create or replace function storage.filename(name text) returns text
language plpgsql immutable as $$
declare
  _parts text[];
begin
  select string_to_array(name, '/') into _parts;
  return _parts[array_length(_parts, 1)];
end
$$;

grant execute on function storage.foldername(text), storage.filename(text) to anon, authenticated, service_role;

-- Storage's own role owns its tables and uses its schema (supabase/postgres
-- migrations/db/init-scripts/00000000000002-storage-schema.sql at 7db7e1a9; Storage's server migrates
-- them as that role). A foreign key to a table is checked as that table's owner: without the schema's
-- usage, no row could reference it.
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'supabase_storage_admin') then
    create role supabase_storage_admin noinherit nologin;
  end if;
end $$;
grant all on schema storage to supabase_storage_admin;
alter table storage.buckets owner to supabase_storage_admin;
alter table storage.objects owner to supabase_storage_admin;
alter function storage.foldername(text) owner to supabase_storage_admin;
alter function storage.filename(text) owner to supabase_storage_admin;

-- ─── realtime ─────────────────────────────────────────────────────────────────────────────────────
-- The part of Supabase Realtime's schema that "Broadcast from Database" and its authorization use,
-- as the Realtime server's own migrations create it in every project (supabase/realtime's main at
-- 833cf36c, lib/realtime/tenants/repo/migrations/: 20241030150047_messages_partitioning.ex the table,
-- its grants and RLS on; 20241108114728_messages_using_uuid.ex its uuid key;
-- 20250905041441_create_messages_replay_index.ex its index; 20240523004032_redefine_authorization_tables.ex
-- `realtime.topic()`; 20260605120000_rename_broadcast_send_warning.ex `realtime.send()`;
-- 20260707120000_restrict_realtime_schema.ex the owner). Left out: the `binary_payload` column and
-- `realtime.send_binary` (20260514…, 20260603…), which nothing here uses. Realtime creates the day
-- partitions; here a default partition takes every day (as the unmerged f6337af516fd proposes), so
-- a test never depends on the date — on a project, a day without its partition loses the broadcast
-- with a warning, never the status change. Realtime itself (the WebSocket server that reads these
-- rows after commit and authorises joins: lib/realtime/tenants/authorization.ex) cannot run here;
-- tests/db/realtime.test.ts reproduces its authorization check against these tables.
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'supabase_realtime_admin') then
    create role supabase_realtime_admin noinherit nologin noreplication;
  end if;
end $$;
create schema if not exists realtime;

create table if not exists realtime.messages (
  topic text not null,
  extension text not null,
  payload jsonb,
  event text,
  private boolean default false,
  updated_at timestamp without time zone default now() not null,
  inserted_at timestamp without time zone default now() not null,
  id uuid default gen_random_uuid() not null,
  primary key (id, inserted_at)
) partition by range (inserted_at);
create table if not exists realtime.messages_default partition of realtime.messages default;
create index if not exists messages_inserted_at_topic_index on only realtime.messages
  using btree (inserted_at desc, topic) where extension = 'broadcast' and private is true;

create or replace function realtime.topic() returns text
language sql stable as $$
  select nullif(current_setting('realtime.topic', true), '')::text;
$$;

-- Realtime's own, statement for statement: a failure is only a warning, never the caller's error.
create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default true)
returns void
language plpgsql as $$
declare
  generated_id uuid;
  final_payload jsonb;
begin
  begin
    generated_id := gen_random_uuid();
    if payload ? 'id' then
      final_payload := payload;
    else
      final_payload := jsonb_set(payload, '{id}', to_jsonb(generated_id));
    end if;
    execute format('SET LOCAL realtime.topic TO %L', topic);
    insert into realtime.messages (id, payload, event, topic, private, extension)
    values (generated_id, final_payload, event, topic, private, 'broadcast');
  exception
    when others then
      raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
  end;
end;
$$;

alter table realtime.messages owner to supabase_realtime_admin;
alter table realtime.messages_default owner to supabase_realtime_admin;
alter function realtime.topic() owner to supabase_realtime_admin;
alter function realtime.send(jsonb, text, text, boolean) owner to supabase_realtime_admin;
grant usage on schema realtime to anon, authenticated, service_role, supabase_realtime_admin;
grant select, insert, update on realtime.messages to anon, authenticated, service_role;
alter table realtime.messages enable row level security;
