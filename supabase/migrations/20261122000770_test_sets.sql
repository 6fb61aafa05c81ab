-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Habilitación's test set in one call (DESIGN §14; shared/core/integrations/test-set.ts; docs/adr/0011).
--
-- DIAN asks a company in habilitación for a number of invoices, credit notes and debit notes sent
-- under its TestSetId (SendTestSetAsync), and a minimum of each accepted (../shared/dian/
-- brief-business.md §2). The service issues them as real documents of the one lifecycle, so their
-- claim, lease, record, events and reconcile are every document's: an invoice marked with the set's
-- id (`invoices.test_set_id`, …_core_schema.sql), written here with content of no consequence, and
-- notes of those invoices made by the kinds' own create functions (a note of a test set's invoice
-- is the set's). They never take a number of the company's own: the set's invoices and notes count
-- from 994000001 in sequences of their own (`einv_private.next_note_number` with `p_test_set`,
-- …_notes.sql), the top of DIAN's habilitación range SETP 990000000–995000000 (brief §3), and an
-- invoice is written only when that number is inside the company's numbering resolution.
-- Only the service writes them (members read them as any document, under RLS).
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

-- ─── where a company's test set stands ───────────────────────────────────────────────────────────
-- The company's active environment, its uat adapter-tax credential's DIAN settings (provider,
-- test_set_id: the set is the credential's), and per kind the set's documents: issued, sent (all but
-- drafts), accepted, rejected (`error` after the set's validation), closed (`error` with DIAN's word
-- that the set is already closed, GetStatusZip's status 2: not validated by the set), and the ids still to act on — drafts never sent (a call that
-- stopped before sending them) and documents left `en_proceso` that no transmission holds — at most
-- 50 of each. `set_words`: DIAN's latest words about the set itself ("Set de prueba con
-- identificador … se encuentra Aceptado.", GetStatusZip's status 2 for a batch of a closed set), and
-- `base_invoice`: the set's first accepted invoice and its first line, which its notes are of.
-- Raises not_found (company) for another org's company.
create function public.einv_test_set_progress(p_org_id uuid, p_company_id uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  _company public.companies;
  _settings jsonb;
  _set text;
begin
  select * into _company from public.companies where id = p_company_id and org_id = p_org_id;
  if not found then
    raise exception 'company_not_found' using errcode = 'P0001', hint = 'not_found', detail = 'company';
  end if;
  select c.settings into _settings from einv_private.credentials c
   where c.company_id = p_company_id and c.org_id = p_org_id and c.service = 'adapter-tax'
     and c.environment = 'uat';
  _set := _settings ->> 'test_set_id';
  return jsonb_build_object(
    'environment', _company.active_environment,
    'provider', _settings ->> 'provider',
    'test_set_id', _set,
    'numbering', jsonb_build_object('prefix', _company.invoice_prefix,
                                    'from', _company.resolution_from, 'to', _company.resolution_to),
    'kinds', (
      select jsonb_object_agg(k.kind, (
               select jsonb_build_object(
                        'issued', count(*),
                        'sent', count(*) filter (where d.status <> 'pendiente'),
                        'accepted', count(*) filter (where d.status in ('transmitida', 'emitida')),
                        'rejected', count(*) filter (where d.status = 'error' and not d.closed),
                        'closed', count(*) filter (where d.status = 'error' and d.closed),
                        'in_flight', count(*) filter (where d.status = 'en_proceso' and d.lease_until > now()),
                        'drafts', coalesce((array_agg(d.id order by d.number) filter (where d.status = 'pendiente'))[1:50], '{}'),
                        'open', coalesce((array_agg(d.id order by d.number)
                                          filter (where d.status = 'en_proceso'
                                                    and (d.lease_until is null or d.lease_until <= now())))[1:50], '{}'))
                 from (select x.*, coalesce(x.authority_message ~* 'set de pruebas? con identificador .* se encuentra (aceptado|rechazado)', false) as closed
                 from (select i.id, i.number, i.status, i.lease_until, i.authority_message from public.invoices i
                        where k.kind = 'invoice' and i.company_id = p_company_id and i.org_id = p_org_id
                          and i.test_set_id = _set
                       union all
                       -- a note a later one replaced (`descartada`) counts as the rejection it was when
                       -- DIAN judged it (its words kept): DIAN's tally holds it
                       select n.id, n.number, case when n.status = 'descartada' then 'error' else n.status end,
                              n.lease_until, n.authority_message from public.credit_notes n
                         join public.invoices i on i.id = n.invoice_id
                        where k.kind = 'credit_note' and n.company_id = p_company_id and n.org_id = p_org_id
                          and i.test_set_id = _set
                          and (n.status <> 'descartada' or n.authority_message is not null
                               or n.authority_rules is not null)
                       union all
                       select n.id, n.number, n.status, n.lease_until, n.authority_message from public.debit_notes n
                         join public.invoices i on i.id = n.invoice_id
                        where k.kind = 'debit_note' and n.company_id = p_company_id and n.org_id = p_org_id
                          and i.test_set_id = _set) x) d))
        from (values ('invoice'), ('credit_note'), ('debit_note')) as k (kind)),
    'set_words', (
      select w.authority_message from (
               select i.authority_message, i.status_checked_at from public.invoices i
                where i.company_id = p_company_id and i.test_set_id = _set
               union all
               select n.authority_message, n.status_checked_at from public.credit_notes n
                 join public.invoices i on i.id = n.invoice_id
                where n.company_id = p_company_id and i.test_set_id = _set
               union all
               select n.authority_message, n.status_checked_at from public.debit_notes n
                 join public.invoices i on i.id = n.invoice_id
                where n.company_id = p_company_id and i.test_set_id = _set) w
       where w.authority_message ~* 'set de pruebas? con identificador .* se encuentra (aceptado|rechazado)'
       order by w.status_checked_at desc nulls last limit 1),
    'base_invoice', (
      select jsonb_build_object('id', i.id, 'line_id', l.id)
        from public.invoices i
        join public.invoice_lines l on l.invoice_id = i.id and l.position = 1
       where i.company_id = p_company_id and i.org_id = p_org_id and i.test_set_id = _set
         and i.status = 'transmitida'
       order by i.number limit 1));
end
$$;

-- ─── the set's invoices ──────────────────────────────────────────────────────────────────────────
-- Writes `p_count` (1 to 50) draft invoices of test set `p_test_set_id` for the company, numbered
-- with its invoice prefix from the set's own sequence (skipping a number an invoice of the company
-- already holds), each with two lines of content of no
-- consequence (50 × 2,000 at 19 % IVA, which 50 credit notes of one unit each can take from, and
-- 1 × 10,000 exempt), to a fictitious buyer; answers their ids. They are sent by the lifecycle's
-- claim like any draft (`einv_document_claim_sending`). Raises test_set_invalid (business_rule) for
-- a count or id out of bounds, test_set_full (business_rule) when they would take the set's
-- invoices beyond the run's `send` (einv_private.test_set_room), and test_set_outside_range (business_rule) when the set's numbers
-- are not inside the company's numbering resolution.
create function public.einv_test_set_invoices(
  p_org_id uuid, p_company_id uuid, p_test_set_id text, p_count integer
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _company public.companies;
  _number bigint;
  _id uuid;
  _ids uuid[] := '{}';
begin
  if p_count is null or p_count not between 1 and 50 or p_test_set_id !~ '^[0-9A-Za-z-]{1,64}$' then
    raise exception 'test_set_invalid' using errcode = 'P0001', hint = 'business_rule', detail = 'invoice';
  end if;
  select * into _company from public.companies where id = p_company_id and org_id = p_org_id;
  if not found then
    raise exception 'company_not_found' using errcode = 'P0001', hint = 'not_found', detail = 'company';
  end if;
  -- never beyond the run's `send` of invoices, under the run's row lock
  perform einv_private.test_set_room(p_company_id, p_test_set_id, 'invoice', p_count);
  for _n in 1..p_count loop
    -- the set's next number no invoice of the company holds (a draft of its own may have taken one)
    loop
      _number := einv_private.next_note_number(p_company_id, 'invoice', true);
      exit when not exists (select 1 from public.invoices i
                             where i.company_id = p_company_id and i.number = _company.invoice_prefix || _number);
    end loop;
    if _company.resolution_from is null or _company.resolution_to is null
       or _number not between _company.resolution_from and _company.resolution_to then
      raise exception 'test_set_outside_range:%', _company.invoice_prefix || _number
        using errcode = 'P0001', hint = 'business_rule', detail = 'invoice';
    end if;
    insert into public.invoices (org_id, company_id, number, currency, test_set_id,
      buyer_id_type, buyer_id_number, buyer_check_digit, buyer_name, buyer_email, buyer_address,
      buyer_city_code, notes)
    values (p_org_id, p_company_id, _company.invoice_prefix || _number, 'COP', p_test_set_id,
      '31', '860000001', einv_private.nit_check_digit('860000001'), 'Cliente Set de Pruebas S.A.S.',
      'set-de-pruebas@cliente.test', 'Avenida 68 # 1-01', '11001', 'Set de pruebas de habilitación')
    returning id into _id;
    insert into public.invoice_lines (invoice_id, org_id, position, code, description, quantity, unit_price, taxes)
    values (_id, p_org_id, 1, 'SET-01', 'Servicio de prueba (habilitación)', 50, 2000,
            '[{"code": "01", "percent": 19}]'),
           (_id, p_org_id, 2, 'SET-02', 'Libro de prueba (exento)', 1, 10000, '[{"code": "01", "percent": 0}]');
    _ids := _ids || _id;
  end loop;
  return to_jsonb(_ids);
end
$$;

-- ─── one call at a time per company ─────────────────────────────────────────────────────────────
-- Two calls at once would each read what is missing and issue it: the set would get twice what it
-- needs. A call holds the company's run lease (its own `token`) while it works, renews it each round
-- and stops when it lost it; another call meanwhile only reports. A call that dies leaves the lease
-- to end by itself (its budget and its last DIAN calls, plus a margin). `caps`: the holder's set and
-- its `send` of each kind ({"test_set_id": "…", "invoice": n, "credit_note": n, "debit_note": n}),
-- which the row keeps after the lease is given back: that set's documents are issued under this
-- row's lock and never beyond them (einv_private.test_set_room), so even calls that overlap (a lease
-- that ended under a slow call) never issue more than `send`.
create table einv_private.test_set_runs (
  company_id uuid primary key references public.companies (id) on delete cascade,
  lease_until timestamptz not null,
  token uuid,
  caps jsonb not null default '{}'
);
revoke all on einv_private.test_set_runs from public, anon, authenticated, service_role;

-- `p_seconds` > 0: takes the company's run lease for that long under `p_token` unless another token
-- holds it (true when taken; the holder's own token renews it), and records `p_caps` when given; 0:
-- gives it back, only when `p_token` holds it (true when it did). Raises not_found (company) for
-- another org's company.
create function public.einv_test_set_lease(
  p_org_id uuid, p_company_id uuid, p_token uuid, p_seconds integer, p_caps jsonb default null
) returns boolean
language plpgsql security definer set search_path = '' as $$
begin
  if not exists (select 1 from public.companies where id = p_company_id and org_id = p_org_id) then
    raise exception 'company_not_found' using errcode = 'P0001', hint = 'not_found', detail = 'company';
  end if;
  if p_token is null or p_seconds is null or p_seconds not between 0 and 3600
     or (p_caps is not null and jsonb_typeof(p_caps) <> 'object') then
    raise exception 'test_set_invalid' using errcode = 'P0001', hint = 'business_rule', detail = 'invoice';
  end if;
  if p_seconds = 0 then
    update einv_private.test_set_runs set token = null, lease_until = now()
     where company_id = p_company_id and token = p_token;
    return found;
  end if;
  insert into einv_private.test_set_runs as r (company_id, lease_until, token, caps)
  values (p_company_id, now() + make_interval(secs => p_seconds), p_token, coalesce(p_caps, '{}'))
  on conflict (company_id) do update
     set lease_until = excluded.lease_until, token = excluded.token,
         caps = case when p_caps is null then r.caps else excluded.caps end
   where r.lease_until <= now() or r.token = p_token;
  return found;
end
$$;

-- Room for `p_count` more documents of `p_kind` in the company's test set `p_test_set`: locks the
-- company's run row (`for update`, held to the end of the issuing transaction, so issuers wait for
-- each other) and counts what the set already has of the kind; raises test_set_full (business_rule)
-- when they would exceed the run's cap. No run row, a run of another set or no cap of the kind: no
-- limit (documents written outside a run).
create function einv_private.test_set_room(p_company_id uuid, p_test_set text, p_kind text, p_count integer)
returns void
language plpgsql security definer set search_path = '' as $$
declare
  _cap integer;
  _issued integer;
begin
  select case when r.caps ->> 'test_set_id' = p_test_set then (r.caps ->> p_kind)::integer end
    into _cap from einv_private.test_set_runs r
   where r.company_id = p_company_id for update;
  if _cap is null then
    return;
  end if;
  if p_kind = 'invoice' then
    select count(*) into _issued from public.invoices i
     where i.company_id = p_company_id and i.test_set_id = p_test_set;
  elsif p_kind = 'credit_note' then
    select count(*) into _issued from public.credit_notes n join public.invoices i on i.id = n.invoice_id
     where n.company_id = p_company_id and i.test_set_id = p_test_set
       -- a replaced note DIAN judged (its words kept) still counts: DIAN received it
       and (n.status <> 'descartada' or n.authority_message is not null or n.authority_rules is not null);
  else
    select count(*) into _issued from public.debit_notes n join public.invoices i on i.id = n.invoice_id
     where n.company_id = p_company_id and i.test_set_id = p_test_set;
  end if;
  if _issued + p_count > _cap then
    raise exception 'test_set_full:%', p_kind using errcode = 'P0001', hint = 'business_rule', detail = p_kind;
  end if;
end
$$;
revoke all on function einv_private.test_set_room(uuid, text, text, integer) from public, anon, authenticated, service_role;

revoke all on function public.einv_test_set_progress(uuid, uuid),
  public.einv_test_set_invoices(uuid, uuid, text, integer),
  public.einv_test_set_lease(uuid, uuid, uuid, integer, jsonb)
  from public, anon, authenticated;
grant execute on function public.einv_test_set_progress(uuid, uuid),
  public.einv_test_set_invoices(uuid, uuid, text, integer),
  public.einv_test_set_lease(uuid, uuid, uuid, integer, jsonb)
  to service_role;

-- ─── a test set's document never goes to production ─────────────────────────────────────────────
-- Its content is fictitious and its number the test range's: whatever the company's active
-- environment when a transmission claims it (a draft a stopped call left, the company switched to
-- `prd` since), it is sent in habilitación or not at all. The claim takes a draft's environment from
-- the company (…_lifecycle.sql); this refuses the claim instead (409, the reason's sentence). Its
-- notes are sent in their invoice's environment, so they follow it.
create function einv_private.test_set_stays_in_uat() returns trigger
language plpgsql set search_path = '' as $$
begin
  raise exception 'test_set_in_production' using errcode = 'P0001', hint = 'invalid_state', detail = 'invoice';
end;
$$;
revoke all on function einv_private.test_set_stays_in_uat() from public;
create trigger invoices_test_set_in_uat before update of environment on public.invoices
  for each row when (new.test_set_id is not null and new.environment = 'prd')
  execute function einv_private.test_set_stays_in_uat();

