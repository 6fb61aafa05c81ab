-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- The membership check in the same round trip as a request's first call (issue 14).
--
-- Every request checked the caller's membership with one call (`einv_caller_membership`, as the
-- user) and then made its first service call. For the calls below, the service can instead ask for
-- both at once: the `_authorized` function looks up the membership of `p_user_id` (the verified
-- token's subject, passed by the service — these functions are the service's alone, like the calls
-- they wrap) and makes the call only when that user is a member of the org with one of `p_roles`
-- (a JSON array of role names).
-- It answers `{ membership }` when not (null: not a member), `{ membership, result }` when so; the
-- membership has the shape `einv_caller_membership` answers. Nothing is read or written for a
-- caller who is not authorized, so a refusal is the same as before, and costs the same.
--
-- Also: `einv_document_get_with_credentials`, a document and the stored credential of one service
-- for its company in the document's environment (the one it was sent in, else the company's active
-- one), as `einv_document_claim_sending` returns the claim's: a representation or a refresh needs
-- both, and read them with two calls.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

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

create function public.einv_document_get_with_credentials(
  p_org_id uuid, p_kind text, p_document_id uuid, p_service text
) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  _record jsonb := public.einv_document_get(p_org_id, p_kind, p_document_id);
  _credential jsonb := public.einv_credential_get(
    p_org_id, (_record #>> '{document,company_id}')::uuid, p_service,
    coalesce(_record #>> '{fiscal,environment}', _record #>> '{document,company,active_environment}'));
begin
  return jsonb_build_object('record', _record, 'credentials',
    case when _credential is null then '[]'::jsonb else jsonb_build_array(_credential) end);
end
$$;

create function public.einv_document_get_with_credentials_authorized(
  p_user_id uuid, p_roles jsonb, p_org_id uuid, p_kind text, p_document_id uuid, p_service text
) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  _membership jsonb := einv_private.membership_of(p_org_id, p_user_id);
begin
  if not einv_private.role_listed(_membership, p_roles) then
    return jsonb_build_object('membership', _membership);
  end if;
  return jsonb_build_object('membership', _membership, 'result',
    public.einv_document_get_with_credentials(p_org_id, p_kind, p_document_id, p_service));
end
$$;

create function public.einv_document_claim_sending_authorized(
  p_user_id uuid, p_roles jsonb, p_org_id uuid, p_kind text, p_document_ids jsonb, p_reissue boolean,
  p_actor_id uuid, p_lease_seconds integer, p_service text
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _membership jsonb := einv_private.membership_of(p_org_id, p_user_id);
begin
  if not einv_private.role_listed(_membership, p_roles) then
    return jsonb_build_object('membership', _membership);
  end if;
  return jsonb_build_object('membership', _membership, 'result',
    public.einv_document_claim_sending(p_org_id, p_kind, p_document_ids, p_reissue, p_actor_id,
                                       p_lease_seconds, p_service));
end
$$;

revoke all on function public.einv_document_get_with_credentials(uuid, text, uuid, text),
  public.einv_document_get_with_credentials_authorized(uuid, jsonb, uuid, text, uuid, text),
  public.einv_document_claim_sending_authorized(uuid, jsonb, uuid, text, jsonb, boolean, uuid, integer, text)
  from public, anon, authenticated, service_role;
grant execute on function public.einv_document_get_with_credentials(uuid, text, uuid, text),
  public.einv_document_get_with_credentials_authorized(uuid, jsonb, uuid, text, uuid, text),
  public.einv_document_claim_sending_authorized(uuid, jsonb, uuid, text, jsonb, boolean, uuid, integer, text)
  to service_role;
