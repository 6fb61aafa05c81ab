-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Delivery retries: a delivery that failed because the provider failed (nothing says the buyer got
-- it) is tried again by the reconcile job, with exponential backoff — 1, 2, 4 and 8 minutes after
-- the attempt that failed — and given up, with the reason, after its 5th attempt. A retry is a new
-- delivery row (`attempt` + 1, `retry_of`), sent under the same provider reference and key as the
-- first try (`send_id`), so a provider that did take an earlier try delivers the message once, and
-- with the same package name: it resends the same package.
-- A delivery the provider refused (a bounced address) is not retried.
--
-- A delivery whose outcome was never recorded (the function died, or the database failed, after
-- the provider may have taken the message) stays `pendiente`: past the grace period the job asks
-- the provider about its reference (`send_id`) — never a resend — and records what it says; one the
-- provider never received is recorded as failed and retried as above.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

alter table public.deliveries
  add column attempt integer not null default 1 check (attempt between 1 and 100),
  add column retry_of uuid references public.deliveries (id),
  -- the provider's reference and idempotency key of this delivery's message
  add column send_id uuid,
  add column next_retry_at timestamptz,
  add column retried_by uuid,
  add column gave_up_reason text check (length(gave_up_reason) <= 600),
  -- a reconcile run is asking the provider about this `pendiente` delivery until then
  add column lease_until timestamptz;
create index deliveries_retry_due_idx on public.deliveries (next_retry_at)
  where status = 'error' and next_retry_at is not null;
create index deliveries_open_idx on public.deliveries (created_at) where status = 'pendiente';
-- One package name per package: a retry resends its first try's package (the same document, the
-- same files) under the same name, one attempt further; two packages never share a name (the name
-- is the issuer's NIT, the year and the consecutive).
create unique index deliveries_package_idx
  on public.deliveries (issuer_nit, package_year, package_number, attempt);

-- A failed delivery, to be tried again later (or given up after its 5th attempt). One already
-- retried (a newer attempt was opened) is left as it is: its retry owns what happens next.
create function public.einv_delivery_retry_later(p_org_id uuid, p_delivery_id uuid, p_send_id uuid)
returns jsonb
language sql security definer set search_path = '' as $$
  update public.deliveries d
     set send_id = p_send_id,
         next_retry_at = case when d.attempt < 5
                              then now() + make_interval(mins => power(2, d.attempt - 1)::integer) end,
         gave_up_reason = case when d.attempt >= 5
                               then left('gave up after ' || d.attempt || ' attempts: ' || coalesce(d.message, ''), 600) end
   where d.id = p_delivery_id and d.org_id = p_org_id and d.status = 'error' and d.retried_by is null
  returning jsonb_build_object('next_retry_at', d.next_retry_at, 'gave_up_reason', d.gave_up_reason)
$$;

-- Up to `p_limit` failed deliveries whose retry is due, taken by the run (skip locked: two runs
-- never take one). A retry is opened by einv_delivery_begin with `p_retry_of`, which ends the hold.
-- Taking one holds it for 10 minutes, not for good: a run may die between taking it and beginning
-- its retry (the platform kills a worker at its wall-clock limit, requests in flight or not:
-- supabase/edge-runtime crates/base/src/worker/supervisor/strategy_per_worker.rs at b1edf453), and
-- then it is due again once the hold ends. 10 minutes is longer than any run can live (150 s on the
-- Free plan, 400 s on paid ones), so no two runs retry one at once.
create function public.einv_reconcile_pick_deliveries(p_run_id uuid, p_limit integer) returns jsonb
language sql security definer set search_path = '' as $$
  with due as (
    select d.id from public.deliveries d
     where d.status = 'error' and d.next_retry_at <= now() and d.retried_by is null
     order by d.next_retry_at
     limit least(greatest(p_limit, 1), 500)
       for update skip locked),
  taken as (
    update public.deliveries d set next_retry_at = now() + interval '10 minutes' from due where d.id = due.id
    returning d.*)
  select coalesce(jsonb_agg(jsonb_build_object(
           'delivery_id', id, 'org_id', org_id, 'document_type', document_type, 'document_id', document_id,
           'to', recipient, 'attempt', attempt, 'send_id', coalesce(send_id, id), 'created_by', created_by,
           'run_id', p_run_id)), '[]'::jsonb)
    from taken
$$;

-- Up to `p_limit` deliveries left `pendiente` for `p_grace_seconds`, leased to the run for
-- `p_lease_seconds` (skip locked, and the lease: two runs never ask about one at once).
create function public.einv_reconcile_pick_open_deliveries(
  p_run_id uuid, p_limit integer, p_grace_seconds integer, p_lease_seconds integer
) returns jsonb
language sql security definer set search_path = '' as $$
  with due as (
    select d.id from public.deliveries d
     where d.status = 'pendiente' and d.created_at <= now() - make_interval(secs => greatest(p_grace_seconds, 0))
       and (d.lease_until is null or d.lease_until <= now())
     order by d.created_at
     limit least(greatest(p_limit, 1), 500)
       for update skip locked),
  taken as (
    update public.deliveries d set lease_until = now() + make_interval(secs => greatest(p_lease_seconds, 1))
      from due where d.id = due.id returning d.*)
  -- the document's company and environment name the deliver provider that was asked to send it
  select coalesce(jsonb_agg(jsonb_build_object(
           'delivery_id', t.id, 'org_id', t.org_id, 'document_type', t.document_type,
           'document_id', t.document_id, 'to', t.recipient, 'send_id', coalesce(t.send_id, t.id),
           'company_id', doc.company_id, 'environment', (doc.life).environment, 'run_id', p_run_id)), '[]'::jsonb)
    from taken t
   cross join lateral einv_private.document_of(t.document_type, t.org_id, t.document_id, false) doc
$$;

revoke all on function public.einv_delivery_retry_later(uuid, uuid, uuid),
  public.einv_reconcile_pick_deliveries(uuid, integer),
  public.einv_reconcile_pick_open_deliveries(uuid, integer, integer, integer)
  from public, anon, authenticated, service_role;
grant execute on function public.einv_delivery_retry_later(uuid, uuid, uuid),
  public.einv_reconcile_pick_deliveries(uuid, integer),
  public.einv_reconcile_pick_open_deliveries(uuid, integer, integer, integer)
  to service_role;
