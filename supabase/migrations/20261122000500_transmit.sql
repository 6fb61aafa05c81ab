-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Transmission: claiming invoices and recording what the provider answered.
--
-- Exactly-once rests on three things: (1) a claim takes row locks in id order and moves each
-- invoice to `en_proceso` with a lease, so a concurrent call finds it claimed and skips it; (2) an
-- outcome is recorded only by the holder of the claim (same attempt number); (3) an invoice that
-- may have reached the provider before is queried, never re-sent blindly (`action = 'query'`), and
-- a resend reuses the idempotency key of the submit that may have arrived (`submitted_attempt`).
-- The issuer is frozen at the first claim, so every resend and every PDF shows what was sent.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

alter table public.invoices
  -- while set and in the future, a transmission holds the invoice
  add column lease_until timestamptz,
  -- the attempt whose submit may have reached the provider; its idempotency key is reused on resend
  add column submitted_attempt integer,
  -- the issuer (company row) as it was when the invoice was first claimed
  add column issuer_snapshot jsonb;

-- ─── the document as the provider needs it: invoice, lines and issuer ────────────────────────────
-- The issuer as members may see it: the company row without its DIAN technical key.
create function einv_private.issuer_of(p_company_id uuid) returns jsonb
language sql stable security definer set search_path = '' as $$
  select to_jsonb(c) - array['created_at', 'updated_at', 'technical_key']
    from public.companies c where c.id = p_company_id
$$;

create function einv_private.invoice_document(p_invoice_id uuid) returns jsonb
language sql stable security definer set search_path = '' as $$
  select to_jsonb(i) - array['status', 'authority_code', 'qr_text', 'provider_reference', 'last_message',
           'attempt_count', 'claimed_at', 'transmitted_at', 'status_checked_at', 'lease_until',
           'submitted_attempt', 'issuer_snapshot', 'created_at', 'updated_at']
         || jsonb_build_object(
              'lines', coalesce((select jsonb_agg(to_jsonb(l) - array['org_id', 'created_at'] order by l.position)
                                   from public.invoice_lines l where l.invoice_id = i.id), '[]'::jsonb),
              -- the technical key is read live: it is not kept in the snapshot members can read
              'company', coalesce(i.issuer_snapshot, einv_private.issuer_of(i.company_id))
                         || jsonb_build_object('technical_key',
                              (select c.technical_key from public.companies c where c.id = i.company_id)))
    from public.invoices i
   where i.id = p_invoice_id
$$;

-- ─── claim ───────────────────────────────────────────────────────────────────────────────────────
-- One entry per requested id, in request order: `action` is `send` (never sent), `query` (may have
-- reached the provider: ask before sending) or `skip` (left as it is; `status`/`message` say why).
create function public.einv_transmit_claim(
  p_org_id uuid, p_invoice_ids jsonb, p_reissue boolean, p_actor_id uuid, p_lease_seconds integer
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _ids uuid[] := array(select jsonb_array_elements_text(p_invoice_ids)::uuid);
  _inv public.invoices;
  _action text;
  _entries jsonb := '{}'::jsonb;
  _entry jsonb;
  _prior_submitted integer;
begin
  for _inv in
    select * from public.invoices
     where id = any (_ids) and org_id = p_org_id
     order by id
       for update
  loop
    _action := case
      when _inv.status = 'pendiente' then 'send'
      when p_reissue and _inv.status in ('error', 'en_proceso')
           and (_inv.lease_until is null or _inv.lease_until < now())
        then case when _inv.submitted_attempt is not null then 'query' else 'send' end
    end;

    if _action is null then
      _entry := jsonb_build_object('invoice_id', _inv.id, 'action', 'skip', 'status', _inv.status,
        'message', case _inv.status
          when 'transmitida' then 'already transmitted: the authority accepted this invoice'
          when 'error' then coalesce(_inv.last_message, 'the last transmission failed')
                            || ' (pass reissue: true to send it again)'
          else 'transmission in progress; use /refresh to ask the authority, or reissue: true once it is idle'
        end);
    else
      _prior_submitted := _inv.submitted_attempt;
      update public.invoices i
         set status = 'en_proceso',
             attempt_count = i.attempt_count + 1,
             -- a send records its intent before anything leaves: if this call dies before recording an
             -- outcome, the next reissue queries the provider and reuses this attempt's key
             submitted_attempt = coalesce(i.submitted_attempt, i.attempt_count + 1),
             claimed_at = now(),
             lease_until = now() + make_interval(secs => p_lease_seconds),
             -- a document that may be at the provider keeps its environment and issuer
             environment = case when i.submitted_attempt is null
                                then (select c.active_environment from public.companies c where c.id = i.company_id)
                                else i.environment end,
             issuer_snapshot = coalesce(i.issuer_snapshot, einv_private.issuer_of(i.company_id)),
             last_message = 'transmission in progress'
       where i.id = _inv.id
      returning * into _inv;

      insert into public.events (org_id, document_type, document_id, kind, actor_id, data)
      values (p_org_id, 'invoice', _inv.id, 'transmit_claimed', p_actor_id,
              jsonb_build_object('attempt', _inv.attempt_count, 'action', _action, 'environment', _inv.environment));

      -- the document is attached below, once, so this map of entries stays small while it grows
      _entry := jsonb_build_object('invoice_id', _inv.id, 'action', _action, 'status', _inv.status,
        'message', _inv.last_message, 'attempt', _inv.attempt_count,
        'submitted_attempt', _prior_submitted, 'environment', _inv.environment,
        'company_id', _inv.company_id);
    end if;
    _entries := _entries || jsonb_build_object(_inv.id::text, _entry);
  end loop;

  return (
    select jsonb_agg(
             case
               when e.entry is null then jsonb_build_object('invoice_id', t.id, 'action', 'skip',
                                                            'status', 'error', 'message', 'invoice not found')
               when e.entry ->> 'action' = 'skip' then e.entry
               else e.entry || jsonb_build_object('document', einv_private.invoice_document(t.id))
             end order by t.ord)
      from unnest(_ids) with ordinality as t (id, ord)
      cross join lateral (select _entries -> t.id::text as entry) e
  );
end
$$;

-- ─── record an outcome ───────────────────────────────────────────────────────────────────────────
-- p_outcome: { status: transmitida | error | en_proceso | pendiente, message, authority_code?,
--              qr_text?, provider_reference?, validated_at?, submitted_attempt?, detail? }.
-- `en_proceso` means the outcome is unknown: the lease is released so that a later reissue or
-- refresh can ask the provider. `pendiente` releases an invoice that was never submitted (a check
-- failed, no credential): it stays an editable draft, with the reason in last_message.
create function public.einv_transmit_record(
  p_org_id uuid, p_invoice_id uuid, p_attempt integer, p_outcome jsonb
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _status text := p_outcome ->> 'status';
  _inv public.invoices;
begin
  if _status is null or _status not in ('transmitida', 'error', 'en_proceso', 'pendiente') then
    raise exception 'unknown outcome status %', _status using errcode = 'P0001', hint = 'business_rule';
  end if;

  update public.invoices i
     set status = _status,
         -- released without sending: the claim's intent is withdrawn
         submitted_attempt = case when _status = 'pendiente' then null
                                  else coalesce((p_outcome ->> 'submitted_attempt')::integer, i.submitted_attempt) end,
         -- after a rejection (or a release) the next submit is a new request: it takes the company anew
         issuer_snapshot = case when _status in ('pendiente', 'error') then null else i.issuer_snapshot end,
         environment = case when _status = 'pendiente' then null else i.environment end,
         authority_code = coalesce(p_outcome ->> 'authority_code', i.authority_code),
         qr_text = coalesce(p_outcome ->> 'qr_text', i.qr_text),
         provider_reference = coalesce(p_outcome ->> 'provider_reference', i.provider_reference),
         last_message = p_outcome ->> 'message',
         transmitted_at = case when _status = 'transmitida'
                               then coalesce((p_outcome ->> 'validated_at')::timestamptz, now())
                               else i.transmitted_at end,
         status_checked_at = now(),
         lease_until = null
   where i.id = p_invoice_id and i.org_id = p_org_id
     and i.status = 'en_proceso' and i.attempt_count = p_attempt
     -- only a draft whose one intent to send is this claim's own (nothing earlier may be at the
     -- provider) goes back to pendiente
     and (_status <> 'pendiente' or i.submitted_attempt = p_attempt)
  returning * into _inv;

  if not found then
    raise exception 'invoice % is no longer claimed by attempt %', p_invoice_id, p_attempt
      using errcode = 'P0001', hint = 'invalid_state';
  end if;

  insert into public.events (org_id, document_type, document_id, kind, data)
  values (p_org_id, 'invoice', p_invoice_id,
          case when _status = 'pendiente' then 'transmit_not_sent' else 'transmit_attempt' end,
          jsonb_build_object('attempt', p_attempt, 'status', _status, 'message', _inv.last_message,
                             'provider_reference', _inv.provider_reference,
                             'authority_code', _inv.authority_code)
          || coalesce(p_outcome -> 'detail', '{}'::jsonb));

  return jsonb_build_object('invoice_id', _inv.id, 'status', _inv.status, 'message', _inv.last_message);
end
$$;

revoke all on function public.einv_transmit_claim(uuid, jsonb, boolean, uuid, integer),
  public.einv_transmit_record(uuid, uuid, integer, jsonb) from public, anon, authenticated, service_role;
grant execute on function public.einv_transmit_claim(uuid, jsonb, boolean, uuid, integer),
  public.einv_transmit_record(uuid, uuid, integer, jsonb) to service_role;
revoke all on function einv_private.invoice_document(uuid), einv_private.issuer_of(uuid) from public;
