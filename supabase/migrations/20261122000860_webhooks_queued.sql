-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Whether a transaction queued a webhook delivery, said by the calls that may have (issue 39).
--
-- After a request that changed a status, the service drains the organization's webhook deliveries
-- in the background (shared/http/announce.ts): one more database call after every such request,
-- which competes with the next ones for the connection and the CPU — for nothing, when the request
-- queued no delivery (the organization has no endpoint, or none that takes these events). The
-- fan-out happens in the request's own transaction (einv_private.emit_event), so the transaction
-- knows: emit_event marks it (a setting local to the transaction, gone at its end), and the answers
-- of the claim and of the outcome's record carry `webhooks_queued`. /transmit drains only when one
-- of its calls says true, or says nothing (an older database, an error): nothing is drained later
-- than before, since what a request did not queue is not its drain's to send. Retries of earlier
-- failures are taken, as before, by the next drain of the organization or reconcile's.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

-- …_events.sql's writer, the same but for the mark.
create or replace function einv_private.emit_event(
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
  -- local to the transaction (a function's own SET clause restores only the settings it names)
  if found then
    perform set_config('einv.webhooks_queued', 'on', true);
  end if;
end
$$;

-- Whether this transaction queued a webhook delivery so far.
create function einv_private.webhooks_queued() returns boolean
language sql stable set search_path = '' as $$
  select coalesce(current_setting('einv.webhooks_queued', true), '') = 'on'
$$;
revoke all on function einv_private.webhooks_queued() from public, anon, authenticated, service_role;

-- …_lifecycle.sql's answer of a recorded outcome (the record's, a refresh's), with the mark; stable,
-- no longer immutable, since it reads the transaction's setting.
create or replace function einv_private.recorded_result(p_life einv_private.lifecycle) returns jsonb
language plpgsql stable set search_path = '' as $$
begin
  return jsonb_build_object('code', p_life.last_code, 'message', p_life.last_message,
    'authority_message', p_life.authority_message, 'authority_rules', p_life.authority_rules,
    'webhooks_queued', einv_private.webhooks_queued());
end
$$;

-- …_lifecycle.sql's claim with the credentials it sends with, and the mark.
create or replace function public.einv_document_claim_sending(
  p_org_id uuid, p_kind text, p_document_ids jsonb, p_reissue boolean, p_actor_id uuid,
  p_lease_seconds integer, p_issued_at timestamptz, p_service text
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _entries jsonb := public.einv_document_claim(p_org_id, p_kind, p_document_ids, p_reissue, p_actor_id,
                                               p_lease_seconds, p_issued_at);
begin
  return jsonb_build_object('entries', _entries, 'credentials', coalesce((
    select jsonb_agg(c.credential order by w.company_id, w.environment)
      from (select distinct e ->> 'company_id' as company_id, e ->> 'environment' as environment
              from jsonb_array_elements(_entries) e
             where e ->> 'action' <> 'skip') w
     cross join lateral (select public.einv_credential_get(p_org_id, w.company_id::uuid, p_service,
                                                           w.environment) as credential) c
     where c.credential is not null), '[]'::jsonb),
    'webhooks_queued', einv_private.webhooks_queued());
end
$$;
