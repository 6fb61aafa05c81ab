-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Reconcile: the scheduled job that settles what was left open (functions/reconcile).
--
-- A run picks, in small batches, the documents of every registered kind left `en_proceso` past a
-- grace period and held by nobody, and leases them to itself: the lease sits on the document
-- (`lease_until`, so a transmission, a refresh or another run leaves it alone) and in
-- `reconcile_leases` (which run holds it, and the attempt it saw). The picking takes row locks with
-- `skip locked`, so two overlapping runs never pick one document. The run then asks the provider
-- about each — never a blind resend — and records the answer through `einv_reconcile_record`, which
-- only the lease's holder may do; or gives the document back (`einv_reconcile_release`) when the
-- provider cannot answer, for the next run. Each run is a row in `reconcile_runs`.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

create table einv_private.reconcile_runs (
  id uuid primary key default gen_random_uuid(),
  started_at timestamptz not null default now(),
  finished_at timestamptz,
  picked integer not null default 0,
  settled integer not null default 0,
  still_open integer not null default 0,
  deliveries_retried integer not null default 0,
  -- what went wrong, without secrets: [{ kind, document_id, error }], at most 50
  errors jsonb not null default '[]'::jsonb check (jsonb_typeof(errors) = 'array'),
  took_ms integer
);
create index reconcile_runs_started_at_idx on einv_private.reconcile_runs (started_at);

create table einv_private.reconcile_leases (
  kind text not null references einv_private.document_kinds (kind),
  document_id uuid not null,
  run_id uuid not null references einv_private.reconcile_runs (id) on delete cascade,
  -- the document's attempt when it was picked: a transmission since then wins
  attempt_count integer not null,
  until timestamptz not null,
  primary key (kind, document_id)
);
revoke all on einv_private.reconcile_runs, einv_private.reconcile_leases
  from public, anon, authenticated, service_role;

-- What a run picks stays cheap however many documents an organization has: only the open ones are
-- indexed, by when they were last looked at.
create index invoices_open_idx on public.invoices ((coalesce(status_checked_at, claimed_at)))
  where status = 'en_proceso';
create index credit_notes_open_idx on public.credit_notes ((coalesce(status_checked_at, claimed_at)))
  where status = 'en_proceso';
create index debit_notes_open_idx on public.debit_notes ((coalesce(status_checked_at, claimed_at)))
  where status = 'en_proceso';

-- The statement a run picks one kind's open documents with ($1 grace seconds, $2 limit, $3 lease
-- end, $4 kind, $5 run): the open ones idle past the grace period, held by nobody, not yet given back
-- by this run, oldest first, locked with `skip locked` so overlapping runs never pick one twice, and
-- leased. A function, so the tests can EXPLAIN the very statement a run executes.
create function einv_private.reconcile_pick_sql(p_table regclass) returns text
language sql stable set search_path = '' as $$
  select format(
    'with open as (
       select d.id, d.org_id, d.company_id, d.environment, d.attempt_count from %1$s d
        where d.status = ''en_proceso''
          and coalesce(d.status_checked_at, d.claimed_at) < now() - make_interval(secs => $1)
          and (d.lease_until is null or d.lease_until < now())
          and not exists (select 1 from einv_private.reconcile_leases l
                           where l.kind = $4 and l.document_id = d.id and l.run_id = $5)
        order by coalesce(d.status_checked_at, d.claimed_at)
        limit $2
          for update of d skip locked),
     leased as (
       update %1$s d set lease_until = $3 from open where d.id = open.id returning open.*)
     select coalesce(jsonb_agg(jsonb_build_object(''kind'', $4, ''document_id'', id, ''org_id'', org_id,
              ''company_id'', company_id, ''environment'', environment, ''attempt_count'', attempt_count)), ''[]'')
       from leased', p_table)
$$;

-- ─── database API (service_role) ─────────────────────────────────────────────────────────────────
create function public.einv_reconcile_begin() returns jsonb
language sql security definer set search_path = '' as $$
  insert into einv_private.reconcile_runs default values returning jsonb_build_object('run_id', id)
$$;

-- Up to `p_limit` open documents of every kind, idle for `p_grace_seconds`, leased to the run for
-- `p_lease_seconds`; each with what querying it needs (org, company, environment). A document this
-- run already gave back is not picked again by it (the next run may).
create function public.einv_reconcile_pick(
  p_run_id uuid, p_limit integer, p_grace_seconds integer, p_lease_seconds integer
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _kind record;
  _picked jsonb := '[]'::jsonb;
  _batch jsonb;
  _until timestamptz := now() + make_interval(secs => p_lease_seconds);
begin
  if p_limit not between 1 and 500 then
    raise exception 'limit_out_of_range' using errcode = 'P0001', hint = 'business_rule';
  end if;
  for _kind in select k.kind, k.content_table from einv_private.document_kinds k order by k.kind loop
    exit when jsonb_array_length(_picked) >= p_limit;
    execute einv_private.reconcile_pick_sql(_kind.content_table)
    into _batch
    using p_grace_seconds, p_limit - jsonb_array_length(_picked), _until, _kind.kind, p_run_id;
    insert into einv_private.reconcile_leases (kind, document_id, run_id, attempt_count, until)
    select _kind.kind, (e ->> 'document_id')::uuid, p_run_id, (e ->> 'attempt_count')::integer, _until
      from jsonb_array_elements(_batch) e
    on conflict (kind, document_id) do update
       set run_id = excluded.run_id, attempt_count = excluded.attempt_count, until = excluded.until;
    _picked := _picked || _batch;
  end loop;
  update einv_private.reconcile_runs set picked = picked + jsonb_array_length(_picked) where id = p_run_id;
  return _picked;
end
$$;

-- The lease of `p_document_id`, if the run still holds it and nobody transmitted the document since;
-- the document's block, locked.
create function einv_private.reconcile_held(p_run_id uuid, p_kind text, p_org_id uuid, p_document_id uuid)
returns table (id uuid, company_id uuid, life einv_private.lifecycle)
language plpgsql set search_path = '' as $$
begin
  return query
    select d.* from einv_private.read_documents(p_kind, p_org_id, array[p_document_id], true) d
      join einv_private.reconcile_leases l on l.kind = p_kind and l.document_id = d.id
     where l.run_id = p_run_id and l.attempt_count = (d.life).attempt_count
       and (d.life).lease_until = l.until and (d.life).status = 'en_proceso';
end
$$;

-- Records what the provider said about a leased document, and gives the lease back. Answers
-- whether it was recorded (false: the lease was lost, e.g. a transmission took the document over).
create function public.einv_reconcile_record(
  p_run_id uuid, p_org_id uuid, p_kind text, p_document_id uuid, p_outcome jsonb
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _doc record;
  _life einv_private.lifecycle;
begin
  select * into _doc from einv_private.reconcile_held(p_run_id, p_kind, p_org_id, p_document_id);
  if not found then return jsonb_build_object('recorded', false); end if;
  if coalesce(p_outcome ->> 'status', 'en_proceso')
     not in ('en_proceso', 'error', einv_private.accepted_status(p_kind)) then
    raise exception 'unknown_status' using errcode = 'P0001', hint = 'business_rule', detail = p_kind;
  end if;
  _life := einv_private.with_outcome(p_kind, _doc.life, p_outcome);
  _life.lease_until := null;
  perform einv_private.write_lifecycle(p_kind, p_document_id, _life);
  delete from einv_private.reconcile_leases where kind = p_kind and document_id = p_document_id;
  perform einv_private.log_event(p_org_id, p_kind, p_document_id, 'reconciled', null,
    jsonb_build_object('run_id', p_run_id, 'from', (_doc.life).status, 'to', _life.status,
                       'message', _life.last_message));
  return jsonb_build_object('recorded', true, 'status', _life.status);
end
$$;

-- Gives a leased document back untouched (the provider could not answer), for the next run; the
-- expired lease row remembers that this run tried it.
create function public.einv_reconcile_release(
  p_run_id uuid, p_org_id uuid, p_kind text, p_document_id uuid
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _doc record;
  _life einv_private.lifecycle;
begin
  select * into _doc from einv_private.reconcile_held(p_run_id, p_kind, p_org_id, p_document_id);
  if not found then return jsonb_build_object('released', false); end if;
  _life := _doc.life;
  _life.lease_until := null;
  perform einv_private.write_lifecycle(p_kind, p_document_id, _life);
  update einv_private.reconcile_leases set until = now() where kind = p_kind and document_id = p_document_id;
  return jsonb_build_object('released', true);
end
$$;

-- Closes the run with its counts; `still_open` is every document of every kind still `en_proceso`
-- (what the next run has left), counted on the open-documents indexes.
create function public.einv_reconcile_finish(
  p_run_id uuid, p_settled integer, p_deliveries_retried integer, p_errors jsonb, p_took_ms integer
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _kind record;
  _count integer;
  _open integer := 0;
  _result jsonb;
begin
  for _kind in select k.content_table from einv_private.document_kinds k loop
    execute format('select count(*)::integer from %s d where d.status = ''en_proceso''', _kind.content_table)
      into _count;
    _open := _open + _count;
  end loop;
  update einv_private.reconcile_runs
     set finished_at = now(), settled = p_settled, still_open = _open,
         deliveries_retried = p_deliveries_retried,
         errors = (select coalesce(jsonb_agg(e), '[]'::jsonb)
                     from (select e from jsonb_array_elements(coalesce(p_errors, '[]'::jsonb)) e limit 50) x),
         took_ms = p_took_ms
   where id = p_run_id
  returning jsonb_build_object('run_id', id, 'picked', picked, 'settled', settled, 'still_open', still_open,
                               'deliveries_retried', deliveries_retried, 'took_ms', took_ms)
    into _result;
  return _result;
end
$$;

revoke all on function public.einv_reconcile_begin(),
  public.einv_reconcile_pick(uuid, integer, integer, integer),
  public.einv_reconcile_record(uuid, uuid, text, uuid, jsonb),
  public.einv_reconcile_release(uuid, uuid, text, uuid),
  public.einv_reconcile_finish(uuid, integer, integer, jsonb, integer)
  from public, anon, authenticated, service_role;
grant execute on function public.einv_reconcile_begin(),
  public.einv_reconcile_pick(uuid, integer, integer, integer),
  public.einv_reconcile_record(uuid, uuid, text, uuid, jsonb),
  public.einv_reconcile_release(uuid, uuid, text, uuid),
  public.einv_reconcile_finish(uuid, integer, integer, jsonb, integer)
  to service_role;
revoke all on function einv_private.reconcile_held(uuid, text, uuid, uuid),
  einv_private.reconcile_pick_sql(regclass) from public;
