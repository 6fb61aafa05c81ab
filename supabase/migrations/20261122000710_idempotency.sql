-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Idempotency-Key (DESIGN §4): the first final answer to a key, per organization and route, kept
-- 24 hours and replayed to a retry that sends the same body.
--
-- The service (shared/http/idempotency.ts, wired once by `operation()`) calls `begin` after the
-- body is valid and the caller is a member with the route's role, then runs the handler, then calls
-- `finish` with the answer, or with none to release the key. One row per (org, route, key):
--   running  a call holds the key: a retry with the same body is told it is in flight (409), unless
--            the holder's lease ran out (its process died holding it): then the retry takes it over;
--   done     the answer (status, body) is kept until `expires_at` and replayed.
-- A row past `expires_at` is as good as absent: `begin` replaces it. `begin` also deletes a few
-- expired rows of any organization on each call (more than the one row a call can add), so the
-- table holds about a day of keys without a sweeper.
--
-- What is stored is the route's own answer, which never holds a secret (provider keys and technical
-- keys are never part of an answer), and a SHA-256 of the request body, never the body itself. The
-- table is in the unexposed schema, RLS on, no grants: only the two functions below reach it.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

create table einv_private.idempotency_keys (
  org_id uuid not null references public.organizations (id) on delete cascade,
  -- the route as the app matched it, e.g. `/einvoicing/deliver`
  route text not null check (length(route) between 1 and 200),
  -- 1–255 printable ASCII characters, as the header allows
  key text not null check (key ~ '^[ -~]{1,255}$'),
  -- SHA-256 (hex) of the canonical JSON of the request body
  request_hash text not null check (request_hash ~ '^[0-9a-f]{64}$'),
  state text not null check (state in ('running', 'done')),
  -- the holder of a running key; `finish` must name it, so a holder whose lease was taken over
  -- cannot overwrite its successor's answer
  claim_id uuid not null,
  lease_until timestamptz,
  status smallint check (status between 200 and 499),
  response jsonb,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (org_id, route, key),
  check (state <> 'running' or (lease_until is not null and status is null and response is null)),
  check (state <> 'done' or (status is not null and response is not null))
);
create index idempotency_keys_expires_at_idx on einv_private.idempotency_keys (expires_at);
alter table einv_private.idempotency_keys enable row level security;
revoke all on einv_private.idempotency_keys from public, anon, authenticated, service_role;

-- ─── database API (service_role only) ────────────────────────────────────────────────────────────
-- Takes the key, or says why not, in one statement that cannot race another call's:
--   { outcome: 'proceed', claim_id }           run the handler, then `finish` with this claim;
--   { outcome: 'replay', status, response }    the kept answer;
--   { outcome: 'conflict', reason }            `idempotency_body_differs` or `idempotency_in_flight`.
-- The lease (10 minutes) outlasts any call the platform lets run (an Edge Function is stopped after
-- at most 400 s), so a key is taken over only from a holder that is surely gone.
create function public.einv_idempotency_begin(
  p_org_id uuid, p_route text, p_key text, p_request_hash text
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _claim uuid := gen_random_uuid();
  _row einv_private.idempotency_keys;
begin
  -- a few expired rows, oldest first; rows another call is replacing right now are skipped
  delete from einv_private.idempotency_keys k
   using (select e.org_id, e.route, e.key from einv_private.idempotency_keys e
           where e.expires_at <= now()
           order by e.expires_at
           limit 10
             for update skip locked) old
   where (k.org_id, k.route, k.key) = (old.org_id, old.route, old.key);

  -- A new key is inserted; an expired one, or a dead holder's key for the same body, is replaced.
  -- Otherwise the upsert changes nothing but leaves the row locked, so what is read next stays true.
  insert into einv_private.idempotency_keys as k
    (org_id, route, key, request_hash, state, claim_id, lease_until, expires_at)
  values (p_org_id, p_route, p_key, p_request_hash, 'running', _claim, now() + interval '10 minutes',
    now() + interval '24 hours')
  on conflict (org_id, route, key) do update
     set request_hash = excluded.request_hash, state = 'running', claim_id = excluded.claim_id,
         lease_until = excluded.lease_until, status = null, response = null, created_at = now(),
         expires_at = excluded.expires_at
   where k.expires_at <= now()
      or (k.state = 'running' and k.lease_until <= now() and k.request_hash = excluded.request_hash)
  returning * into _row;
  if found then
    return jsonb_build_object('outcome', 'proceed', 'claim_id', _claim);
  end if;

  select * into _row from einv_private.idempotency_keys k
   where k.org_id = p_org_id and k.route = p_route and k.key = p_key;
  if not found then -- cannot happen while the upsert's lock holds; a retry decides
    return jsonb_build_object('outcome', 'conflict', 'reason', 'idempotency_in_flight');
  elsif _row.request_hash <> p_request_hash then
    return jsonb_build_object('outcome', 'conflict', 'reason', 'idempotency_body_differs');
  elsif _row.state = 'running' then
    return jsonb_build_object('outcome', 'conflict', 'reason', 'idempotency_in_flight');
  end if;
  return jsonb_build_object('outcome', 'replay', 'status', _row.status, 'response', _row.response);
end
$$;

-- Ends the claim: with a status, keeps the answer for 24 hours from now; with a null status,
-- releases the key so that a retry runs again. Only the claim's holder can do either; anyone else
-- (a holder whose lease was taken over, or whose row expired) gets `lost` and changes nothing.
create function public.einv_idempotency_finish(
  p_org_id uuid, p_route text, p_key text, p_claim_id uuid, p_status integer, p_response jsonb
) returns jsonb
language plpgsql security definer set search_path = '' as $$
begin
  if p_status is null then
    delete from einv_private.idempotency_keys k
     where k.org_id = p_org_id and k.route = p_route and k.key = p_key
       and k.claim_id = p_claim_id and k.state = 'running';
    return jsonb_build_object('outcome', case when found then 'released' else 'lost' end);
  end if;
  update einv_private.idempotency_keys k
     set state = 'done', status = p_status, response = p_response, lease_until = null,
         expires_at = now() + interval '24 hours'
   where k.org_id = p_org_id and k.route = p_route and k.key = p_key
     and k.claim_id = p_claim_id and k.state = 'running';
  return jsonb_build_object('outcome', case when found then 'stored' else 'lost' end);
end
$$;

revoke all on function public.einv_idempotency_begin(uuid, text, text, text),
  public.einv_idempotency_finish(uuid, text, text, uuid, integer, jsonb)
  from public, anon, authenticated, service_role;
grant execute on function public.einv_idempotency_begin(uuid, text, text, text),
  public.einv_idempotency_finish(uuid, text, text, uuid, integer, jsonb)
  to service_role;
