-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- A claim and the credentials its documents are sent with, in one round trip (issue 14).
--
-- After a claim, every document it hands out for sending needs its company's credential for the
-- environment it is sent in, and the service read each one with a second call. This function makes
-- the claim (`einv_document_claim`, unchanged: the same locks, the same entries) and reads, in the
-- same transaction, the stored credential of `p_service` for each company and environment among
-- the entries it did not skip — of the org only, ciphertext included, as `einv_credential_get` does.
-- Answers `{ entries, credentials }`; a company without a credential has no row.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════
create function public.einv_document_claim_sending(
  p_org_id uuid, p_kind text, p_document_ids jsonb, p_reissue boolean, p_actor_id uuid,
  p_lease_seconds integer, p_service text
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _entries jsonb := public.einv_document_claim(p_org_id, p_kind, p_document_ids, p_reissue, p_actor_id,
                                               p_lease_seconds);
begin
  return jsonb_build_object('entries', _entries, 'credentials', coalesce((
    select jsonb_agg(c.credential order by w.company_id, w.environment)
      from (select distinct e ->> 'company_id' as company_id, e ->> 'environment' as environment
              from jsonb_array_elements(_entries) e
             where e ->> 'action' <> 'skip') w
     cross join lateral (select public.einv_credential_get(p_org_id, w.company_id::uuid, p_service,
                                                           w.environment) as credential) c
     where c.credential is not null), '[]'::jsonb));
end
$$;

revoke all on function public.einv_document_claim_sending(uuid, text, jsonb, boolean, uuid, integer, text)
  from public, anon, authenticated, service_role;
grant execute on function public.einv_document_claim_sending(uuid, text, jsonb, boolean, uuid, integer, text)
  to service_role;
