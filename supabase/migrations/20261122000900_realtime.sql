-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Realtime: every document event broadcast on its organization's private channel, and who may
-- receive that channel. The events themselves, their outbox and webhooks are `…_events.sql`.
--
-- The last migration, and alone, because it is the one that depends on the project's Realtime and
-- on privileges the project's `postgres` has only by exception (docs/deploying.md, "Realtime: the
-- last migration", says what to do when it fails):
--   * it needs the `realtime` schema, which the Realtime service creates with its own migrations
--     (supabase/realtime lib/realtime/tenants/repo/migrations/) when it connects to the project —
--     on a new project, possibly after the first `db push`;
--   * its policies are on realtime.messages, which `postgres` does not own (Realtime gives it to
--     supabase_realtime_admin and takes that role from `postgres`: 20260707120000_restrict_realtime_schema.ex
--     at 833cf36c); `postgres` creates them only through supautils' `policy_grants`, which runs a
--     CREATE POLICY on a listed table as the superuser (supabase/supautils src/supautils.c at
--     7e8cfb7e; realtime.messages is listed for `postgres` in supabase/postgres
--     ansible/files/postgresql_config/supautils.conf.j2 at 7db7e1a9) — and a `db push` has been seen
--     refused anyway with "must be owner of relation messages" (supabase/cli#6116, open);
--   * the CLI applies each migration file as one transaction, its history row in the same batch
--     (supabase/cli pkg/migration/file.go at 078ef54c: "ExecBatch is implicitly transactional"): a
--     failure here undoes this file alone and leaves it unrecorded, so the next `db push` tries it
--     again, and nothing before it is undone — not the outbox, the webhooks, or reconcile's pruning.
-- Until it is applied, status changes write their events and webhooks as ever, and nothing is
-- broadcast on the org channels (the broadcast is a trigger of this file), so whatever policies the
-- project has on realtime.messages, no event can reach anyone through Realtime.
-- tests/db/hosted-migrations.test.ts applies every migration as a hosted project's `postgres`.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

-- Refused, by name and signature, on a project whose Realtime has not created its schema yet (or a
-- self-hosted stack older than "Broadcast from Database", on which every broadcast would fail).
do $$
begin
  if to_regclass('realtime.messages') is null
     or to_regprocedure('realtime.send(jsonb, text, text, boolean)') is null then
    raise exception 'Realtime has not set up this project''s realtime schema yet: realtime.messages and realtime.send(jsonb, text, text, boolean) are missing'
      using hint = 'Every earlier migration is applied. Open the project''s Realtime once, then run db push again (docs/deploying.md, "Realtime: the last migration").';
  end if;
end
$$;

-- ─── the broadcast ───────────────────────────────────────────────────────────────────────────────
-- Each document event, as it is written to the outbox (a credential's goes to the org's webhooks,
-- which admins configure, not to every member).
--
-- realtime.send is Supabase's "Broadcast from Database" (supabase/realtime at 833cf36c,
-- lib/realtime/tenants/repo/migrations/20260605120000_rename_broadcast_send_warning.ex): it inserts
-- into realtime.messages, which Realtime reads and broadcasts once the transaction commits; it
-- catches its own failures (a warning), so Realtime can never undo a status change. It runs as the
-- role that wrote the outbox row — the owner of the security definer functions that write it (and
-- under their pinned search_path: every name here is qualified, and a search_path of its own would
-- cost every status change its switch) — so the row is inserted as that owner, `postgres`, which RLS
-- on realtime.messages does not restrict (it has BYPASSRLS: supabase/postgres
-- migrations/db/migrations/10000000000000_demote-postgres.sql at 7db7e1a9) and which Realtime grants
-- INSERT on the table (20241030150047_messages_partitioning.ex). Nobody may call it.
create function einv_private.broadcast_event() returns trigger
language plpgsql as $$
begin
  perform realtime.send(einv_private.event_payload(new), 'status_changed',
                        'org:' || new.org_id || ':documents', true);
  return null;
end
$$;
create trigger outbox_broadcast after insert on einv_private.outbox
  for each row when (new.kind <> 'credential')
  execute function einv_private.broadcast_event();
revoke all on function einv_private.broadcast_event() from public, anon, authenticated, service_role;

-- ─── Realtime: who may receive the org's channel ─────────────────────────────────────────────────
-- Realtime authorises a client joining a private channel by inserting a probe message for the
-- channel's topic, then reading it back as the client (role `authenticated`, its JWT claims, the
-- topic in `realtime.topic`) and rolling back; to send, by inserting as the client
-- (supabase/realtime lib/realtime/tenants/authorization.ex at 00bc6f2). So a SELECT policy admits
-- listeners and an INSERT policy senders. Every member of the org may listen — lectores too: they
-- read the same documents through RLS — and nobody may send: there is no insert policy for these
-- topics, and the restrictive policies keep both true whatever policies the project adds for its
-- own channels (permissive policies only ever widen). Anon's restrictive policy is its own, without
-- the membership function: anon may not execute it, and PostgreSQL checks that when the statement
-- starts, whichever arm of an `or` decides — so once the project lets anon read any channel of its
-- own, a policy naming the function for anon would refuse every anon join with an error.
create policy "members receive their organization's document events" on realtime.messages
  for select to authenticated
  using (
    realtime.messages.extension = 'broadcast'
    and realtime.messages.topic in (select 'org:' || o || ':documents' from einv_private.my_org_ids() o)
  );
create policy "only members listen on organization document channels" on realtime.messages
  as restrictive for select to authenticated
  using (
    realtime.messages.topic !~ '^org:.*:documents$'
    or realtime.messages.topic in (select 'org:' || o || ':documents' from einv_private.my_org_ids() o)
  );
create policy "anon never listens on organization document channels" on realtime.messages
  as restrictive for select to anon
  using (realtime.messages.topic !~ '^org:.*:documents$');
create policy "nobody sends on organization document channels" on realtime.messages
  as restrictive for insert to anon, authenticated
  with check (realtime.messages.topic !~ '^org:.*:documents$');
