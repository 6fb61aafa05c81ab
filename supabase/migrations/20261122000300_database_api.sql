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
language sql stable security definer set search_path = '' as $$
  select jsonb_build_object('org_id', m.org_id, 'user_id', m.user_id, 'role', m.role)
    from public.memberships m
   where m.org_id = p_org_id
     and m.user_id = auth.uid()
$$;

revoke all on function public.einv_caller_membership(uuid) from public, anon, authenticated, service_role;
grant execute on function public.einv_caller_membership(uuid) to authenticated;
