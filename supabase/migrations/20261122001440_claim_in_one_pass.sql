-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- The claim without its quadratic copying (issue 14).
--
-- `einv_document_claim` kept the entries it had made in one jsonb object, extended with `||` once
-- per document. jsonb is immutable, so each `||` copied everything before it, the issuer snapshot of
-- every claimed document included: a claim of 50 invoices spent 8 of its 14 ms copying
-- (pg_stat_user_functions, `self_time`). The entries now go into arrays, which PL/pgSQL extends in
-- place, and are matched to the requested ids by a join. The issuer and the active environment of
-- a company are looked up once per company in a row, not once per document.
--
-- Nothing else changes: the same row locks in the same order, the same lifecycle written, the same
-- events, the same entries in request order (`tests/db/claim-sending.test.ts`,
-- `tests/db/transmit-race.test.ts`).
-- ═════════════════════════════════════════════════════════════════════════════════════════════════
create or replace function public.einv_document_claim(
  p_org_id uuid, p_kind text, p_document_ids jsonb, p_reissue boolean, p_actor_id uuid,
  p_lease_seconds integer
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _ids uuid[] := array(select jsonb_array_elements_text(p_document_ids)::uuid);
  _accepted text := einv_private.accepted_status(p_kind);
  _doc record;
  _life einv_private.lifecycle;
  _action text;
  _prior_submitted integer;
  -- the documents found, in lock order, each one's entry and (claimed ones) the issuer it is sent with
  _found uuid[] := '{}';
  _entries jsonb[] := '{}';
  _issuers jsonb[] := '{}';
  -- the company of the last claimed document: its issuer as it is now and its active environment
  _company uuid;
  _company_issuer jsonb;
  _company_environment text;
begin
  for _doc in select * from einv_private.read_documents(p_kind, p_org_id, _ids, true) loop
    _life := _doc.life;
    _action := case
      when _life.status = 'pendiente' then 'send'
      when p_reissue and _life.status in ('error', 'en_proceso')
           and (_life.lease_until is null or _life.lease_until < now())
        then case when _life.submitted_attempt is not null then 'query' else 'send' end
    end;

    _found := array_append(_found, _doc.id);
    if _action is null then
      _entries := array_append(_entries, jsonb_build_object('document_id', _doc.id, 'action', 'skip',
        'status', _life.status,
        'reason', case
          when _life.status = _accepted then 'accepted'
          when _life.status = 'error' then 'failed'
          else 'in_progress'
        end,
        'last_message', _life.last_message));
      _issuers := array_append(_issuers, null::jsonb);
      continue;
    end if;

    if _company is distinct from _doc.company_id then
      _company := _doc.company_id;
      _company_issuer := einv_private.issuer_of(_company);
      _company_environment := (select c.active_environment from public.companies c where c.id = _company);
    end if;
    _prior_submitted := _life.submitted_attempt;
    _life.status := 'en_proceso';
    _life.attempt_count := _life.attempt_count + 1;
    -- a send records its intent before anything leaves: if this call dies before recording an
    -- outcome, the next reissue queries the provider and reuses this attempt's key
    _life.submitted_attempt := coalesce(_life.submitted_attempt, _life.attempt_count);
    _life.claimed_at := now();
    _life.lease_until := now() + make_interval(secs => p_lease_seconds);
    -- a document that may be at the provider keeps its environment and issuer; one never sent takes
    -- the company's active environment, unless its kind set one (a credit note: its invoice's)
    if _prior_submitted is null then
      _life.environment := coalesce(_life.environment, _company_environment);
    end if;
    _life.issuer_snapshot := coalesce(_life.issuer_snapshot, _company_issuer);
    _life.last_message := 'transmission in progress';
    perform einv_private.write_lifecycle(p_kind, _doc.id, _life);
    perform einv_private.log_event(p_org_id, p_kind, _doc.id, 'transmit_claimed', p_actor_id,
      jsonb_build_object('attempt', _life.attempt_count, 'action', _action, 'environment', _life.environment));

    -- the payload is attached below, once per requested id
    _entries := array_append(_entries, jsonb_build_object('document_id', _doc.id, 'action', _action,
      'status', _life.status, 'attempt', _life.attempt_count, 'submitted_attempt', _prior_submitted,
      'environment', _life.environment, 'company_id', _doc.company_id));
    _issuers := array_append(_issuers, _life.issuer_snapshot);
  end loop;

  return (
    select jsonb_agg(
             case
               when e.entry is null then jsonb_build_object('document_id', t.id, 'action', 'skip',
                                                            'status', 'error', 'reason', 'not_found')
               when e.entry ->> 'action' = 'skip' then e.entry
               else e.entry || jsonb_build_object('document',
                      einv_private.document_payload(p_kind, t.id, (e.entry ->> 'company_id')::uuid, e.issuer))
             end order by t.ord)
      from unnest(_ids) with ordinality as t (id, ord)
      left join unnest(_found, _entries, _issuers) as e (id, entry, issuer) on e.id = t.id
  );
end
$$;
