-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Events: one outbox row per status change, written with the change; the same event broadcast to
-- the organization's private Realtime channel; and signed webhooks (Standard Webhooks) drained from
-- it. docs/api.md ("Events") is the reader's side of this file.
--
-- Written where it cannot be bypassed: an `after update` trigger on the status of every kind's
-- table (invoices, credit notes) and of deliveries, and one on the audit rows of a credential's save
-- or refused save. The trigger runs inside the transaction that made the change, so a change that
-- rolls back leaves no event, and one that commits always has one. What counts as a change: a new
-- status, or the same status with a new result code (`in_progress` → `outcome_unknown` while
-- `en_proceso`); a write that changes neither (a refresh that learns nothing new, a lease taken or
-- given back, a draft edited) writes none. A row's first status (a draft inserted `pendiente`, a
-- note inserted before its claim, a delivery opened `pendiente`) is where it starts, not a change.
--
-- Order: the events of one document are written under that document's row lock, so they are
-- numbered 1, 2, 3… (`sequence`, from einv_private.event_sequences) in the order its changes
-- committed. Receivers see that number and a random id (`evt_` + 32 hex digits, the webhook-id):
-- the outbox's own row id grows with every event of every organization, so an organization reading
-- the gaps between its own ids would learn how busy the others are; it stays inside, where it
-- orders the drains. Webhook deliveries keep the order per endpoint and document: a delivery waits
-- while an earlier one of the same document to the same endpoint is still pending.
--
-- Only the service writes here (security definer functions owned by the migration's role); the
-- outbox and the deliveries are in the unexposed schema and granted to nobody. Members read events
-- through Realtime and admins read their endpoints (not their secrets).
--
-- Realtime is not here: the broadcast of each event and who may receive the org's channel are
-- `…_realtime.sql`, the last migration, so that this file applies whatever Realtime's state on the
-- project (not set up yet on a new one; its policies refused to `db push`): docs/deploying.md.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

-- ─── the outbox ──────────────────────────────────────────────────────────────────────────────────
-- Kept 7 days (einv_events_prune, called by every reconcile run): longer than a webhook is retried.
-- No foreign key to the organization: it would lock the org's row (key share) on every status change
-- of every document; an org's events outlive it by those days at most.
create table einv_private.outbox (
  id bigint generated always as identity primary key,
  org_id uuid not null,
  kind text not null check (kind in ('invoice', 'credit_note', 'debit_note', 'delivery', 'credential')),
  -- the document, the delivery, or for a credential its company
  document_id uuid not null,
  status text not null check (status ~ '^[a-z_]{1,30}$'),
  -- the outcome's machine code (shared/kernel/result-codes.ts; a credential's in docs/api.md)
  code text check (code ~ '^[a-z_]{1,40}$'),
  occurred_at timestamptz not null default now(),
  -- what receivers see as the event's id: random, so it counts nobody's activity (see "Order")
  public_id uuid not null default gen_random_uuid(),
  -- the event's place among its document's events: 1, 2, 3…
  sequence bigint not null check (sequence >= 1)
);
create index outbox_occurred_at_idx on einv_private.outbox (occurred_at);
revoke all on einv_private.outbox from public, anon, authenticated, service_role;

-- Each document's last event number (a credential's under its company), kept when its events are
-- pruned, so a document's numbers never start again. Written under the document's row lock, with
-- its event: two writers of one document's events are never at once.
create table einv_private.event_sequences (
  document_id uuid primary key,
  last bigint not null check (last >= 1)
);
revoke all on einv_private.event_sequences from public, anon, authenticated, service_role;

-- The event as it is broadcast and sent: a positive list, so nothing else (no message, no e-mail
-- address, no provider's or authority's text) can reach a receiver. PL/pgSQL, like the lifecycle's
-- functions (…_lifecycle.sql): a `language sql` function with a pinned search_path is planned again
-- at every call, which made it most of an event's cost. No search_path of its own (every name is
-- qualified): it runs on every status change, under its callers' pinned one.
create function einv_private.event_payload(p_event einv_private.outbox) returns jsonb
language plpgsql stable as $$
begin
  return jsonb_build_object(
    'id', 'evt_' || replace(p_event.public_id::text, '-', ''), 'sequence', p_event.sequence,
    'type', p_event.kind || '.' || p_event.status, 'org_id', p_event.org_id,
    'kind', p_event.kind, 'document_id', p_event.document_id, 'status', p_event.status,
    'code', p_event.code,
    'occurred_at', to_char(p_event.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'));
end
$$;

-- ─── webhook endpoints (admins read them; only the service writes) ───────────────────────────────
create table public.webhook_endpoints (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references public.organizations (id) on delete cascade,
  -- through the provider URL policy (shared/ports/egress/url-policy.ts) before it is stored
  url text not null check (length(url) <= 2048 and url ~ '^https?://'),
  -- the event types sent (docs/api.md lists them); null: every type
  events text[] check (events is null or cardinality(events) between 1 and 16),
  enabled boolean not null default true,
  -- why the service disabled it (410 Gone, or failing for 3 days), for an admin to read
  disabled_reason text check (length(disabled_reason) <= 600),
  disabled_at timestamptz,
  -- the signing secret (`whsec_…`), sealed like a provider key (AES-256-GCM, the org and the
  -- endpoint as associated data), with the id of the credentials key that sealed it; the one it
  -- replaced still signs beside it until `previous_secret_until` (Standard Webhooks' rotation)
  secret_ciphertext text not null check (secret_ciphertext ~ '^v1:' and length(secret_ciphertext) <= 512),
  secret_key_id text not null check (secret_key_id ~ '^[0-9a-f]{16}$'),
  previous_secret_ciphertext text check (length(previous_secret_ciphertext) <= 512),
  previous_secret_key_id text check (previous_secret_key_id ~ '^[0-9a-f]{16}$'),
  previous_secret_until timestamptz,
  created_by uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhook_endpoints_org_id_idx on public.webhook_endpoints (org_id);
create trigger webhook_endpoints_touch before update on public.webhook_endpoints
  for each row execute function einv_private.touch_updated_at();

revoke all on public.webhook_endpoints from anon, authenticated, service_role;
alter table public.webhook_endpoints enable row level security;
-- Every column but the secrets: an endpoint's url may carry a path token, and its deliveries' state is
-- an admin's matter, so only admins read them.
grant select (id, org_id, url, events, enabled, disabled_reason, disabled_at, created_by, created_at,
  updated_at) on public.webhook_endpoints to authenticated;
grant select on public.webhook_endpoints to service_role;
create policy "admins read their organization's webhook endpoints" on public.webhook_endpoints
  for select to authenticated using (org_id in (select einv_private.my_org_ids(array['admin'])));

-- One row per event and endpoint it is sent to, made with the event. `next_attempt_at` is also the
-- lease: a drain that takes a delivery moves it past the time its batch may take to send (every
-- send within its timeout, so many at once), so no other drain takes it meanwhile, and a drain that
-- died leaves it due again once that time is past.
create table einv_private.webhook_deliveries (
  id bigint generated always as identity primary key,
  endpoint_id uuid not null references public.webhook_endpoints (id) on delete cascade,
  event_id bigint not null references einv_private.outbox (id) on delete cascade,
  org_id uuid not null,
  document_id uuid not null,
  state text not null default 'pending' check (state in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0 check (attempts between 0 and 1000),
  next_attempt_at timestamptz not null default now(),
  -- the last answer's HTTP status (null: none came) and what went wrong, in our words
  last_status integer,
  last_error text check (length(last_error) <= 300),
  created_at timestamptz not null default now(),
  finished_at timestamptz,
  unique (endpoint_id, event_id)
);
-- Only pending deliveries are indexed for the drains, so what they read does not grow with history.
create index webhook_deliveries_due_idx on einv_private.webhook_deliveries (next_attempt_at)
  where state = 'pending';
create index webhook_deliveries_org_due_idx on einv_private.webhook_deliveries (org_id, next_attempt_at)
  where state = 'pending';
create index webhook_deliveries_order_idx on einv_private.webhook_deliveries (endpoint_id, document_id, event_id)
  where state = 'pending';
create index webhook_deliveries_event_id_idx on einv_private.webhook_deliveries (event_id);
revoke all on einv_private.webhook_deliveries from public, anon, authenticated, service_role;

-- ─── the one writer ──────────────────────────────────────────────────────────────────────────────
-- Writes the event and queues it for every enabled endpoint of the org that takes its type. The
-- outbox row is also what the org's Realtime channel is told (a trigger on it, …_realtime.sql).
-- A delivery queued marks the transaction (`webhooks_queued()` below): /transmit drains the org's
-- deliveries after its answer only when one of its calls says one waits (shared/http/route.ts).
create function einv_private.emit_event(
  p_kind text, p_org_id uuid, p_document_id uuid, p_status text, p_code text
) returns void
language plpgsql as $$
declare
  _event einv_private.outbox;
  _sequence bigint;
begin
  insert into einv_private.event_sequences as s (document_id, last) values (p_document_id, 1)
  on conflict (document_id) do update set last = s.last + 1
  returning s.last into _sequence;
  insert into einv_private.outbox (org_id, kind, document_id, status, code, sequence)
  values (p_org_id, p_kind, p_document_id, p_status, p_code, _sequence)
  returning * into _event;
  insert into einv_private.webhook_deliveries (endpoint_id, event_id, org_id, document_id)
  select w.id, _event.id, p_org_id, p_document_id
    from public.webhook_endpoints w
   where w.org_id = p_org_id and w.enabled
     and (w.events is null or p_kind || '.' || p_status = any (w.events));
  -- local to the transaction (a calling function's SET clause restores only the settings it names)
  if found then
    perform set_config('einv.webhooks_queued', 'on', true);
  end if;
end
$$;

-- Whether this transaction queued a webhook delivery so far: what the claim and the outcome's record
-- answer as `webhooks_queued` (…_lifecycle.sql), so a request that queued none starts no drain.
create function einv_private.webhooks_queued() returns boolean
language sql stable set search_path = '' as $$
  select coalesce(current_setting('einv.webhooks_queued', true), '') = 'on'
$$;

-- The kinds' tables and deliveries: `tg_argv[0]` names the kind. A document's code is its
-- `last_code`, a delivery's its `code` (…_documents.sql); each branch is prepared only for the tables
-- that reach it (PL/pgSQL keeps a trigger function's plans per table).
create function einv_private.status_changed() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_argv[0] = 'delivery' then
    perform einv_private.emit_event('delivery', new.org_id, new.id, new.status, new.code);
  else
    perform einv_private.emit_event(tg_argv[0], new.org_id, new.id, new.status, new.last_code);
  end if;
  return null;
end
$$;

create trigger invoices_status_event after update of status, last_code on public.invoices
  for each row when (old.status is distinct from new.status or old.last_code is distinct from new.last_code)
  execute function einv_private.status_changed('invoice');
create trigger credit_notes_status_event after update of status, last_code on public.credit_notes
  for each row when (old.status is distinct from new.status or old.last_code is distinct from new.last_code)
  execute function einv_private.status_changed('credit_note');
create trigger debit_notes_status_event after update of status, last_code on public.debit_notes
  for each row when (old.status is distinct from new.status or old.last_code is distinct from new.last_code)
  execute function einv_private.status_changed('debit_note');
create trigger deliveries_status_event after update of status, provider_reference on public.deliveries
  for each row when (old.status is distinct from new.status or old.code is distinct from new.code)
  execute function einv_private.status_changed('delivery');

-- A credential has no status column: its save and its refused save are each an audit row
-- (einv_private.log_credential_event, …_integrations.sql), written in the same transaction. Saved:
-- `credential.saved`, code `verified` (the provider accepted the key); refused: `credential.rejected`,
-- code the reason — `rejected` (the provider refused the key), `unverified` (it could not be asked),
-- `refused_url` (the url policy refused the address). A test of a key changes nothing: no event.
create function einv_private.credential_changed() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform einv_private.emit_event('credential', new.org_id, new.document_id,
    case new.kind when 'credential_saved' then 'saved' else 'rejected' end,
    case new.kind when 'credential_saved' then 'verified' else new.data ->> 'outcome' end);
  return null;
end
$$;
create trigger events_credential_event after insert on public.events
  for each row when (new.document_type = 'credential' and new.kind in ('credential_saved', 'credential_save_refused'))
  execute function einv_private.credential_changed();

-- ─── webhook endpoints: the database API (service_role) ──────────────────────────────────────────
-- An endpoint as its admin sees it (never a secret).
create function einv_private.webhook_answer(p_endpoint public.webhook_endpoints) returns jsonb
language sql stable set search_path = '' as $$
  select jsonb_build_object('webhook_id', p_endpoint.id, 'url', p_endpoint.url,
    'events', to_jsonb(p_endpoint.events), 'enabled', p_endpoint.enabled,
    'disabled_reason', p_endpoint.disabled_reason)
$$;

-- The sealed secrets that sign an endpoint's deliveries now: its secret, and the one it replaced
-- while that still signs.
create function einv_private.webhook_secrets(p_endpoint public.webhook_endpoints) returns jsonb
language sql stable set search_path = '' as $$
  select jsonb_build_object('secrets', jsonb_build_array(p_endpoint.secret_ciphertext)
    || case when p_endpoint.previous_secret_until > now()
            then jsonb_build_array(p_endpoint.previous_secret_ciphertext) else '[]'::jsonb end)
$$;

-- Stops sending to an endpoint: disabled with `p_reason` (null: by an admin), and what was still
-- pending for it given up. Re-enabled, it receives the events that happen from then on.
create function einv_private.webhook_disable(p_endpoint_id uuid, p_reason text) returns void
language plpgsql set search_path = '' as $$
begin
  update public.webhook_endpoints
     set enabled = false, disabled_reason = left(p_reason, 600), disabled_at = now()
   where id = p_endpoint_id;
  update einv_private.webhook_deliveries
     set state = 'failed', finished_at = now(), last_error = coalesce(last_error, 'the endpoint was disabled')
   where endpoint_id = p_endpoint_id and state = 'pending';
end
$$;

-- Creates (`p_create`) or updates an endpoint of the org. The service has checked the url against
-- the URL policy and sealed the secret (for a new endpoint, or a rotation: `p_secret_ciphertext`
-- given; on a rotation the current secret keeps signing beside the new one for 24 hours). On an
-- update a null `p_url`/`p_enabled` keeps what is stored, and `p_events` is taken only when
-- `p_events_given` (JSON null: every type). At most `p_max_endpoints` per organization, counted under
-- a lock per organization; another org's endpoint is not found.
create function public.einv_webhook_save(
  p_org_id uuid, p_webhook_id uuid, p_create boolean, p_url text, p_events jsonb, p_events_given boolean,
  p_enabled boolean, p_secret_ciphertext text, p_secret_key_id text, p_actor_id uuid, p_max_endpoints integer
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _w public.webhook_endpoints;
  _events text[] := case when jsonb_typeof(p_events) = 'array'
                         then array(select jsonb_array_elements_text(p_events)) end;
begin
  if p_create then
    perform pg_advisory_xact_lock(hashtextextended('einv_webhook_save:' || p_org_id::text, 0));
    if (select count(*) from public.webhook_endpoints w where w.org_id = p_org_id) >= p_max_endpoints then
      raise exception 'too_many_webhooks:%', p_max_endpoints using errcode = 'P0001', hint = 'business_rule',
        detail = 'webhook';
    end if;
    if p_url is null or p_secret_ciphertext is null or p_secret_key_id is null then
      raise exception 'incomplete_webhook' using errcode = 'P0001', hint = 'business_rule', detail = 'webhook';
    end if;
    insert into public.webhook_endpoints (id, org_id, url, events, enabled, secret_ciphertext, secret_key_id,
                                          created_by)
    values (p_webhook_id, p_org_id, p_url, _events, coalesce(p_enabled, true), p_secret_ciphertext,
            p_secret_key_id, p_actor_id)
    returning * into _w;
    return einv_private.webhook_answer(_w);
  end if;

  -- `no key update`, the lock the update below takes anyway: a status change fanning out to this
  -- endpoint (its delivery row's foreign key takes `key share`) need not wait for the save
  select * into _w from public.webhook_endpoints w where w.id = p_webhook_id and w.org_id = p_org_id
     for no key update;
  if not found then
    raise exception 'not_found' using errcode = 'P0001', hint = 'not_found', detail = 'webhook';
  end if;
  if p_enabled is false and _w.enabled then
    perform einv_private.webhook_disable(_w.id, null);
  end if;
  update public.webhook_endpoints w
     set url = coalesce(p_url, w.url),
         events = case when p_events_given then _events else w.events end,
         enabled = coalesce(p_enabled, w.enabled),
         disabled_reason = case when coalesce(p_enabled, w.enabled) then null else w.disabled_reason end,
         disabled_at = case when coalesce(p_enabled, w.enabled) then null else w.disabled_at end,
         previous_secret_ciphertext = case when p_secret_ciphertext is null then w.previous_secret_ciphertext
                                           else w.secret_ciphertext end,
         previous_secret_key_id = case when p_secret_ciphertext is null then w.previous_secret_key_id
                                       else w.secret_key_id end,
         previous_secret_until = case when p_secret_ciphertext is null then w.previous_secret_until
                                      else now() + interval '24 hours' end,
         secret_ciphertext = coalesce(p_secret_ciphertext, w.secret_ciphertext),
         secret_key_id = coalesce(p_secret_key_id, w.secret_key_id)
   where w.id = _w.id
  returning * into _w;
  return einv_private.webhook_answer(_w);
end
$$;

-- An endpoint of the org with its sealed secrets (what /webhooks/test signs with); not_found otherwise.
create function public.einv_webhook_get(p_org_id uuid, p_webhook_id uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  _w public.webhook_endpoints;
begin
  select * into _w from public.webhook_endpoints w where w.id = p_webhook_id and w.org_id = p_org_id;
  if not found then
    raise exception 'not_found' using errcode = 'P0001', hint = 'not_found', detail = 'webhook';
  end if;
  return einv_private.webhook_answer(_w) || einv_private.webhook_secrets(_w);
end
$$;

-- ─── the drains (a request's, for its org; reconcile's, for every org) ───────────────────────────
-- The statement a drain takes deliveries with ($1 the org, or null for every org; $2 how many):
-- pending ones whose time has come, each the earliest still pending of its document for its
-- endpoint, oldest due first, under `for update skip locked` so two drains never take one. One text
-- per case, so each is planned with the index its `where` needs (only pending rows are indexed: what
-- it reads does not grow with history). A function, so the tests EXPLAIN the very statement.
create function einv_private.webhook_due_sql(p_by_org boolean) returns text
language sql immutable set search_path = '' as $$
  select format(
    'select array(
       select d.id from einv_private.webhook_deliveries d
        where d.state = ''pending'' and d.next_attempt_at <= now() %s
          and not exists (select 1 from einv_private.webhook_deliveries e
                           where e.endpoint_id = d.endpoint_id and e.document_id = d.document_id
                             and e.state = ''pending'' and e.event_id < d.event_id)
        order by d.next_attempt_at
        limit $2
          for update of d skip locked)',
    case when p_by_org then 'and d.org_id = $1' else 'and $1::uuid is null' end)
$$;

-- Up to `p_limit` deliveries due (of one org, or of every org when `p_org_id` is null), taken and
-- leased for `p_lease_seconds`; each with the endpoint's url and sealed secrets, the attempt number
-- (the lease's token) and the event. Written here from `webhook_due_sql`'s own text, as static SQL
-- with a branch per case, so PL/pgSQL keeps each statement's plan for the session (a drain runs
-- after requests that queued a delivery, most finding one or two due): as dynamic SQL it was parsed
-- and planned on every call. tests/db/webhook-pick.test.ts EXPLAINs that text, with its custom and
-- its generic plan (the one a cached statement ends up with).
do $do$
begin
  execute format($f$
create function public.einv_webhook_pick(p_org_id uuid, p_limit integer, p_lease_seconds integer) returns jsonb
language plpgsql security definer set search_path = '' as $body$
-- written by …_events.sql from einv_private.webhook_due_sql()
declare
  _ids bigint[];
  _picked jsonb;
begin
  if p_limit is null or p_lease_seconds is null
     or p_limit not between 1 and 500 or p_lease_seconds not between 1 and 3600 then
    raise exception 'limit_out_of_range' using errcode = 'P0001', hint = 'business_rule';
  end if;
  if p_org_id is not null then
    _ids := (%s);
  else
    _ids := (%s);
  end if;
  if cardinality(_ids) = 0 then
    return '[]'::jsonb;
  end if;
  with taken as (
    update einv_private.webhook_deliveries d
       set attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => p_lease_seconds)
     where d.id = any (_ids)
    returning d.*)
  select coalesce(jsonb_agg(jsonb_build_object(
           'delivery_id', t.id, 'attempt', t.attempts, 'webhook_id', w.id, 'org_id', w.org_id,
           'url', w.url, 'event', einv_private.event_payload(o)) || einv_private.webhook_secrets(w)
           order by t.event_id), '[]'::jsonb)
    into _picked
    from taken t
    join public.webhook_endpoints w on w.id = t.endpoint_id
    join einv_private.outbox o on o.id = t.event_id;
  return _picked;
end
$body$$f$,
    -- the statement's parameters, as the function names them
    replace(replace(einv_private.webhook_due_sql(true), '$1', 'p_org_id'), '$2', 'p_limit'),
    replace(replace(einv_private.webhook_due_sql(false), '$1', 'p_org_id'), '$2', 'p_limit'));
end
$do$;

-- The wait after a delivery's `p_attempts`-th failed attempt: 30 s doubling, at most 12 hours, with
-- jitter (50–100 % of it), so endpoints that failed together are not all retried together.
create function einv_private.webhook_backoff(p_attempts integer) returns interval
language sql volatile set search_path = '' as $$
  select make_interval(secs => least(30 * power(2, least(greatest(p_attempts, 1), 20) - 1), 43200)
                               * (0.5 + random() / 2))
$$;

-- Records how a delivery's attempt went, if the attempt still holds it (`p_attempt`, as picked).
-- `p_outcome`: { delivered, status?, error?, retry_after_seconds?, gone? }. Delivered: done. Gone
-- (410): the endpoint is disabled at once. Otherwise it is tried again after the backoff (or the
-- endpoint's Retry-After, if longer), until 3 days after its event; the attempt at that mark that
-- fails gives it up and disables the endpoint, with the reason. Answers the delivery's state.
create function public.einv_webhook_record(p_delivery_id bigint, p_attempt integer, p_outcome jsonb)
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _d einv_private.webhook_deliveries;
  _status integer := (p_outcome ->> 'status')::integer;
  _error text := left(p_outcome ->> 'error', 300);
  _deadline timestamptz;
  _next timestamptz;
begin
  select * into _d from einv_private.webhook_deliveries d
   where d.id = p_delivery_id and d.attempts = p_attempt and d.state = 'pending'
     for update;
  if not found then return jsonb_build_object('recorded', false); end if;
  if coalesce((p_outcome ->> 'delivered')::boolean, false) then
    update einv_private.webhook_deliveries
       set state = 'delivered', finished_at = now(), last_status = _status, last_error = null
     where id = _d.id;
    return jsonb_build_object('recorded', true, 'state', 'delivered');
  end if;
  _deadline := (select o.occurred_at from einv_private.outbox o where o.id = _d.event_id) + interval '3 days';
  _next := least(now() + greatest(einv_private.webhook_backoff(_d.attempts),
                                  make_interval(secs => least(coalesce((p_outcome ->> 'retry_after_seconds')::integer, 0), 43200))),
                 _deadline);
  update einv_private.webhook_deliveries
     set last_status = _status, last_error = _error, next_attempt_at = _next
   where id = _d.id;
  if coalesce((p_outcome ->> 'gone')::boolean, false) then
    perform einv_private.webhook_disable(_d.endpoint_id,
      format('disabled %s: the endpoint answered 410 Gone', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')));
    return jsonb_build_object('recorded', true, 'state', 'failed');
  end if;
  if now() >= _deadline then
    perform einv_private.webhook_disable(_d.endpoint_id,
      format('disabled %s: deliveries failed for 3 days (%s attempts); last: %s',
             to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), _d.attempts, coalesce(_error, 'no answer')));
    return jsonb_build_object('recorded', true, 'state', 'failed');
  end if;
  return jsonb_build_object('recorded', true, 'state', 'pending', 'next_attempt_at', _next);
end
$$;

-- Deletes up to `p_limit` events older than `p_keep_days` (at least 4: past the 3 days a delivery is
-- retried), oldest first, with their deliveries; answers how many. Every reconcile run calls it, so
-- the outbox stays about a week deep whatever the history.
create function public.einv_events_prune(p_keep_days integer, p_limit integer) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _deleted integer;
begin
  if p_keep_days < 4 or p_limit not between 1 and 100000 then
    raise exception 'limit_out_of_range' using errcode = 'P0001', hint = 'business_rule';
  end if;
  delete from einv_private.outbox o
   where o.id in (select x.id from einv_private.outbox x
                   where x.occurred_at < now() - make_interval(days => p_keep_days)
                   order by x.occurred_at limit p_limit);
  get diagnostics _deleted = row_count;
  return jsonb_build_object('deleted', _deleted);
end
$$;

-- ─── re-sealing under a new credentials key (npm run credentials:reseal) ─────────────────────────
-- A page of endpoints' sealed secrets, of every org, in id order after `p_after`: what a re-seal walks
-- through beside the provider keys (…_integrations.sql).
create function public.einv_webhook_secret_list(p_after uuid, p_limit integer) returns jsonb
language sql stable security definer set search_path = '' as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', w.id, 'org_id', w.org_id, 'secret_ciphertext', w.secret_ciphertext, 'key_id', w.secret_key_id,
           'previous_secret_ciphertext', w.previous_secret_ciphertext, 'previous_key_id', w.previous_secret_key_id)
           order by w.id), '[]'::jsonb)
    from (select * from public.webhook_endpoints
           where p_after is null or id > p_after
           order by id
           limit least(greatest(coalesce(p_limit, 100), 1), 500)) w
$$;

-- Replaces one of an endpoint's sealed secrets (`p_previous`: the one a rotation replaced) with the
-- same secret sealed under the current credentials key, only if it still holds the ciphertext that
-- was opened (a save or rotation meanwhile wins). True when it did.
create function public.einv_webhook_secret_reseal(
  p_id uuid, p_previous boolean, p_expected_ciphertext text, p_ciphertext text, p_key_id text
) returns boolean
language plpgsql security definer set search_path = '' as $$
begin
  if p_previous then
    update public.webhook_endpoints set previous_secret_ciphertext = p_ciphertext, previous_secret_key_id = p_key_id
     where id = p_id and previous_secret_ciphertext = p_expected_ciphertext;
  else
    update public.webhook_endpoints set secret_ciphertext = p_ciphertext, secret_key_id = p_key_id
     where id = p_id and secret_ciphertext = p_expected_ciphertext;
  end if;
  return found;
end
$$;

revoke all on function einv_private.event_payload(einv_private.outbox),
  einv_private.emit_event(text, uuid, uuid, text, text), einv_private.status_changed(),
  einv_private.credential_changed(), einv_private.webhook_answer(public.webhook_endpoints),
  einv_private.webhook_disable(uuid, text), einv_private.webhook_secrets(public.webhook_endpoints),
  einv_private.webhook_backoff(integer), einv_private.webhook_due_sql(boolean),
  einv_private.webhooks_queued()
  from public, anon, authenticated, service_role;
revoke all on function public.einv_webhook_save(uuid, uuid, boolean, text, jsonb, boolean, boolean, text, text, uuid, integer),
  public.einv_webhook_get(uuid, uuid),
  public.einv_webhook_pick(uuid, integer, integer),
  public.einv_webhook_record(bigint, integer, jsonb),
  public.einv_events_prune(integer, integer),
  public.einv_webhook_secret_list(uuid, integer),
  public.einv_webhook_secret_reseal(uuid, boolean, text, text, text)
  from public, anon, authenticated, service_role;
grant execute on function public.einv_webhook_save(uuid, uuid, boolean, text, jsonb, boolean, boolean, text, text, uuid, integer),
  public.einv_webhook_get(uuid, uuid),
  public.einv_webhook_pick(uuid, integer, integer),
  public.einv_webhook_record(bigint, integer, jsonb),
  public.einv_events_prune(integer, integer),
  public.einv_webhook_secret_list(uuid, integer),
  public.einv_webhook_secret_reseal(uuid, boolean, text, text, text)
  to service_role;
