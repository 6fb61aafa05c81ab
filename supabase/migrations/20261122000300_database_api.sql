-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Database API: the functions the service calls (through PostgREST `rpc` or a direct connection).
--
-- They live in `public` because PostgREST only calls functions in an exposed schema; grants decide
-- who may call each. Every function returns jsonb so that both transports hand TypeScript the same
-- JSON. Functions default to EXECUTE for PUBLIC (and Supabase adds the API roles): each one is
-- revoked from everybody first and granted to exactly one role.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

-- ─── caller context (authenticated) ──────────────────────────────────────────────────────────────
-- The caller's membership in an organization, or null when the caller is not a member. Security
-- definer: it reads exactly the caller's own row by primary key, without the table's RLS.
create function public.einv_caller_membership(p_org_id uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  return (
    select jsonb_build_object('org_id', m.org_id, 'user_id', m.user_id, 'role', m.role)
      from public.memberships m
     where m.org_id = p_org_id
       and m.user_id = auth.uid());
end
$$;

revoke all on function public.einv_caller_membership(uuid) from public, anon, authenticated, service_role;
grant execute on function public.einv_caller_membership(uuid) to authenticated;

-- ─── the caller's membership, checked by the service ─────────────────────────────────────────────
-- The same membership for a user the service names (the verified token's subject): the check the
-- `_authorized` functions (lifecycle.sql, representation.sql) make before their call.
create function einv_private.membership_of(p_org_id uuid, p_user_id uuid)
returns jsonb
language plpgsql stable set search_path = '' as $$
begin
  return (
    select jsonb_build_object('org_id', m.org_id, 'user_id', m.user_id, 'role', m.role)
      from public.memberships m
     where m.org_id = p_org_id
       and m.user_id = p_user_id);
end
$$;

revoke all on function einv_private.membership_of(uuid, uuid) from public;

-- Fails closed: no membership, or `p_roles` anything but an array naming the role, is a refusal.
create function einv_private.role_listed(p_membership jsonb, p_roles jsonb) returns boolean
language plpgsql immutable set search_path = '' as $$
begin
  return p_membership is not null
     and jsonb_typeof(p_roles) is not distinct from 'array'
     and coalesce(p_roles ? (p_membership ->> 'role'), false);
end
$$;

revoke all on function einv_private.role_listed(jsonb, jsonb) from public;
