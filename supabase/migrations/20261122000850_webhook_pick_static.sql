-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- A drain's pick, planned once per connection instead of on every call (issue 39).
--
-- `einv_webhook_pick` (…_events.sql) ran its picking statement as dynamic SQL, `execute
-- einv_private.webhook_due_sql(…)`, so PostgreSQL parsed and planned it anew on every call — and a
-- drain runs after every request that changed a status, most of them finding nothing due. Here the
-- function is written again with that same statement as static SQL, one branch per case (by org, or
-- every org), so PL/pgSQL keeps its plan for the session as it does for every static statement
-- (the same reason as compile_document_kinds() in …_lifecycle.sql). The text is still the one
-- `webhook_due_sql` returns, spliced in here, so the statement the tests EXPLAIN is the statement
-- that runs (tests/db/webhook-pick.test.ts explains it with its generic plan too, the one a cached
-- statement ends up with). Behaviour is unchanged: the same rows taken, leased and answered.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

do $do$
declare
  -- the statement's parameters, as this function names them
  _by_org text := replace(replace(einv_private.webhook_due_sql(true), '$1', 'p_org_id'), '$2', 'p_limit');
  _every text := replace(replace(einv_private.webhook_due_sql(false), '$1', 'p_org_id'), '$2', 'p_limit');
begin
  -- `create or replace` keeps the function's owner and grants (service_role only)
  execute format($f$
create or replace function public.einv_webhook_pick(p_org_id uuid, p_limit integer, p_lease_seconds integer)
returns jsonb
language plpgsql security definer set search_path = '' as $body$
-- written by …_webhook_pick_static.sql from einv_private.webhook_due_sql()
declare
  _ids bigint[];
  _picked jsonb;
begin
  if p_limit not between 1 and 500 or p_lease_seconds not between 1 and 3600 then
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
$body$$f$, _by_org, _every);
end
$do$;
