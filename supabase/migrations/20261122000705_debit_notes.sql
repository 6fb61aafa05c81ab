-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Debit notes: the third kind of fiscal document, the second kind of note of an invoice (docs/adr/0001).
--
-- A debit note raises what a transmitted invoice charges: interest, expenses to recover, a price
-- change, or another cause — DIAN's debit-note concepts (ConceptoNotaDebito-2.1: 1 intereses,
-- 2 gastos por cobrar, 3 cambio del valor, 4 otros; ../shared/dian/brief-business.md §1). Its lines
-- are new: each says what is charged — a description, a quantity, a unit price, and the same taxes
-- and discounts or charges an invoice line takes — and the amounts module computes them
-- (einv_private.line_amounts and document_amounts, …_amounts.sql: no new arithmetic), in pesos from
-- the invoice's currency and rate, as an invoice line's. The rest is every note's (…_notes.sql): the
-- invoice is locked and must be accepted, the company's debit-note sequence gives the number, the
-- note is issued at the service's instant and claimed at once; its CUDE uses the software PIN.
--
-- Unlike a credit note, a debit note takes nothing from its invoice's lines, so nothing bounds it
-- by them and a rejected one is not replaced: it is corrected by a reissue, or left in error.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

-- ─── the company: its debit-note numbering ───────────────────────────────────────────────────────
alter table public.companies
  -- letters only, as credit_note_prefix: a digit would run into the consecutive number
  add column debit_note_prefix text not null default 'ND' check (debit_note_prefix ~ '^[A-Z]{0,4}$');
grant select (debit_note_prefix) on public.companies to authenticated;
grant insert (debit_note_prefix), update (debit_note_prefix) on public.companies to authenticated;

-- ─── debit notes and their lines ─────────────────────────────────────────────────────────────────
create table public.debit_notes (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references public.organizations (id) on delete cascade,
  company_id uuid not null,
  invoice_id uuid not null,
  number text not null check (number ~ '^[A-Z0-9]{0,4}[0-9]{1,15}$'),
  issue_date date not null,
  issue_time time(0) with time zone not null,
  -- DIAN's debit-note concept: 1 intereses, 2 gastos por cobrar, 3 cambio del valor, 4 otros
  concept_code text not null check (concept_code in ('1', '2', '3', '4')),
  reason text not null check (length(reason) between 1 and 500),
  -- the invoice's deal, declared as it was (PaymentExchangeRate): prices are in its currency, the
  -- note is in pesos, as an invoice is
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  exchange_rate numeric(16, 6) check (exchange_rate > 0),
  exchange_rate_date date,
  -- its amounts, as einv_private.document_amounts gives them for its lines (…_amounts.sql), in pesos:
  -- LineExtensionAmount, the taxes' sum, PayableAmount and the rest of RequestedMonetaryTotal; the
  -- taxes per scheme and rate; the same totals in the deal's currency when it is not COP
  subtotal numeric(18, 2) not null check (subtotal >= 0),
  tax_total numeric(18, 2) not null check (tax_total >= 0),
  total numeric(18, 2) not null check (total > 0),
  tax_exclusive_amount numeric(18, 2) not null default 0,
  tax_inclusive_amount numeric(18, 2) not null default 0,
  allowance_total_amount numeric(18, 2) not null default 0,
  charge_total_amount numeric(18, 2) not null default 0,
  tax_totals jsonb not null default '[]',
  allowance_charge_amounts jsonb not null default '[]',
  currency_totals jsonb,
  -- ── the fiscal-document lifecycle block (einv_private.lifecycle) ──
  status text not null default 'pendiente' check (status in ('pendiente', 'en_proceso', 'emitida', 'error')),
  authority_code text, -- CUDE
  qr_text text,
  provider_reference text,
  environment text check (environment in ('uat', 'prd')),
  last_message text,
  last_code text check (last_code ~ '^[a-z_]{1,40}$'),
  authority_message text,
  authority_rules jsonb check (jsonb_typeof(authority_rules) = 'array'),
  attempt_count integer not null default 0 check (attempt_count >= 0),
  submitted_attempt integer,
  refused_attempt integer,
  lease_until timestamptz,
  issuer_snapshot jsonb,
  claimed_at timestamptz,
  transmitted_at timestamptz,
  status_checked_at timestamptz,
  -- ── end of the lifecycle block ──
  created_by uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (company_id, number),
  unique (id, org_id),
  foreign key (company_id, org_id) references public.companies (id, org_id),
  foreign key (invoice_id, org_id) references public.invoices (id, org_id)
);
create index debit_notes_org_id_status_idx on public.debit_notes (org_id, status);
create index debit_notes_invoice_id_idx on public.debit_notes (invoice_id);

-- A note's line, as the request wrote it (`code`, `description`, `unit_code`, `quantity`,
-- `unit_price` in the invoice's currency, `taxes`, `allowance_charges`: an invoice line's inputs,
-- with its bounds) and as einv_private.line_amounts computed it, in pesos.
create table public.debit_note_lines (
  id uuid primary key default gen_random_uuid(),
  debit_note_id uuid not null,
  org_id uuid not null,
  position integer not null check (position between 1 and 1000),
  code text check (length(code) <= 60),
  description text not null check (length(description) between 1 and 1000),
  unit_code text not null check (length(unit_code) between 1 and 10),
  quantity numeric(18, 6) not null check (quantity > 0),
  unit_price numeric not null check (unit_price >= 0 and unit_price < 1000000000000 and scale(unit_price) <= 6),
  taxes jsonb not null default '[]' check (jsonb_typeof(taxes) = 'array' and jsonb_array_length(taxes) <= 10),
  allowance_charges jsonb not null default '[]'
    check (jsonb_typeof(allowance_charges) = 'array' and jsonb_array_length(allowance_charges) <= 10),
  price_amount numeric not null,
  line_extension numeric(18, 2) not null check (line_extension >= 0),
  tax_amount numeric(18, 2) not null check (tax_amount >= 0),
  tax_subtotals jsonb not null default '[]',
  allowance_charge_amounts jsonb not null default '[]',
  currency_amounts jsonb,
  unique (debit_note_id, position),
  foreign key (debit_note_id, org_id) references public.debit_notes (id, org_id) on delete cascade
);
create index debit_note_lines_org_id_idx on public.debit_note_lines (org_id);

create trigger debit_notes_touch before update on public.debit_notes
  for each row execute function einv_private.touch_updated_at();

-- What a note says never changes once written, for every role: only its lifecycle block moves.
-- Every other column spelled out (tests/db/access-control.test.ts fails when one is missing); the
-- issue date and time move only as every note's may (einv_private.note_restampable).
create function einv_private.freeze_debit_note() returns trigger
language plpgsql set search_path = '' as $$
begin
  if (old.id, old.org_id, old.company_id, old.invoice_id, old.number,
      old.concept_code, old.reason, old.currency, old.exchange_rate, old.exchange_rate_date, old.subtotal,
      old.tax_total, old.total, old.tax_exclusive_amount, old.tax_inclusive_amount, old.allowance_total_amount,
      old.charge_total_amount, old.tax_totals, old.allowance_charge_amounts, old.currency_totals,
      old.created_by, old.created_at)
     is distinct from
     (new.id, new.org_id, new.company_id, new.invoice_id, new.number,
      new.concept_code, new.reason, new.currency, new.exchange_rate, new.exchange_rate_date, new.subtotal,
      new.tax_total, new.total, new.tax_exclusive_amount, new.tax_inclusive_amount, new.allowance_total_amount,
      new.charge_total_amount, new.tax_totals, new.allowance_charge_amounts, new.currency_totals,
      new.created_by, new.created_at)
     or ((old.issue_date, old.issue_time) is distinct from (new.issue_date, new.issue_time)
         and not einv_private.note_restampable(old.status, old.submitted_attempt, old.refused_attempt)) then
    raise exception 'debit note % cannot change', old.id using errcode = 'P0001', hint = 'invalid_state';
  end if;
  return new;
end
$$;
create trigger debit_notes_freeze before update on public.debit_notes
  for each row execute function einv_private.freeze_debit_note();
create trigger debit_notes_no_delete before delete on public.debit_notes
  for each row execute function einv_private.forbid_change();
create trigger debit_note_lines_no_change before update or delete on public.debit_note_lines
  for each row execute function einv_private.forbid_change();

-- ─── access: members read their org's notes; only the service writes them ───────────────────────
revoke all on public.debit_notes, public.debit_note_lines from anon, authenticated, service_role;
alter table public.debit_notes enable row level security;
alter table public.debit_note_lines enable row level security;
grant select on public.debit_notes, public.debit_note_lines to authenticated, service_role;

create policy "members read their organization's debit notes" on public.debit_notes
  for select to authenticated using (org_id in (select einv_private.my_org_ids()));
create policy "members read their organization's debit note lines" on public.debit_note_lines
  for select to authenticated using (org_id in (select einv_private.my_org_ids()));

-- ─── the kind: payload builder and registry row ──────────────────────────────────────────────────
-- A note's content and its lines, with what every note takes from its invoice and company
-- (…_notes.sql). Its amounts in the shape of an invoice's, with the same one-tax fields per line.
create function einv_private.debit_note_payload(p_id uuid, p_issuer jsonb) returns jsonb
language plpgsql stable set search_path = '' as $$
begin
  return (
    select jsonb_build_object(
             'id', n.id, 'org_id', n.org_id, 'company_id', n.company_id, 'invoice_id', n.invoice_id,
             'number', n.number, 'issue_date', n.issue_date, 'issue_time', n.issue_time,
             'concept_code', n.concept_code, 'reason', n.reason, 'currency', n.currency,
             'exchange_rate', n.exchange_rate, 'exchange_rate_date', n.exchange_rate_date,
             'subtotal', n.subtotal, 'tax_total', n.tax_total, 'total', n.total,
             'tax_exclusive_amount', n.tax_exclusive_amount, 'tax_inclusive_amount', n.tax_inclusive_amount,
             'allowance_total_amount', n.allowance_total_amount, 'charge_total_amount', n.charge_total_amount,
             'tax_totals', n.tax_totals, 'allowance_charges', n.allowance_charge_amounts,
             'currency_totals', n.currency_totals,
             'lines', coalesce((
               select jsonb_agg(jsonb_build_object(
                        'id', l.id, 'position', l.position, 'code', l.code, 'description', l.description,
                        'unit_code', l.unit_code, 'quantity', l.quantity, 'unit_price', l.unit_price,
                        'price_amount', l.price_amount, 'line_extension', l.line_extension,
                        'tax_amount', l.tax_amount, 'taxes', l.tax_subtotals,
                        'allowance_charges', l.allowance_charge_amounts, 'currency_amounts', l.currency_amounts,
                        -- the line's one tax, for the one-tax builders: its first, or ZZ at 0 for none
                        'tax_code', coalesce(l.tax_subtotals -> 0 ->> 'code', 'ZZ'),
                        'tax_rate', coalesce((l.tax_subtotals -> 0 ->> 'percent')::numeric, 0))
                        order by l.position)
                 from public.debit_note_lines l where l.debit_note_id = n.id), '[]'::jsonb))
           || einv_private.note_of_invoice(n.invoice_id, n.company_id, p_issuer)
      from public.debit_notes n
     where n.id = p_id);
end
$$;
revoke all on function einv_private.debit_note_payload(uuid, jsonb), einv_private.freeze_debit_note()
  from public;

insert into einv_private.document_kinds (kind, content_table, accepted_status, payload)
values ('debit_note', 'public.debit_notes', 'emitida', 'einv_private.debit_note_payload');

-- ─── database API (service_role) ─────────────────────────────────────────────────────────────────
-- Creates a debit note for a transmitted invoice of the org and claims it for sending, or creates
-- nothing and raises: not_found, invoice_in_progress (invalid_state, passes by itself),
-- invoice_not_accepted:<status> (invalid_state), debit_note_invalid (a concept or reason the HTTP API
-- refuses) or debit_line_invalid:<entry> (business_rule: the list or an entry is not what the HTTP API
-- lets through), debit_note_empty (business_rule: its lines
-- come to nothing), or, for an input the amounts module refuses, validation_failed with the sentence
-- and the field (`lines.<i>.<path>`) in the detail.
--
-- `p_lines`: 1 to 1,000 lines, each `{ description, quantity, unit_price, taxes?, allowance_charges?,
-- code?, unit_code? }` — an invoice line's inputs (…_core_schema.sql, …_amounts.sql), quantity and
-- price as decimals (at most 6 decimals), the price in the invoice's currency. Each is computed by
-- einv_private.line_amounts at the invoice's rate (and at 1 in its own currency, when foreign), the
-- note's totals by einv_private.document_amounts over them: what is charged, to the cent, as an
-- invoice would charge it. The note is sent in its invoice's environment and issued at `p_issued_at`
-- (the service's instant; docs/adr/0010). Answers the claim's entry (action `send`, with the payload).
create function public.einv_debit_note_create(
  p_org_id uuid, p_invoice_id uuid, p_concept_code text, p_reason text, p_lines jsonb,
  p_actor_id uuid, p_lease_seconds integer, p_issued_at timestamptz
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _inv public.invoices;
  _rate numeric;
  _foreign boolean;
  _line jsonb;
  _n bigint;
  _bad text;
  _field text;
  _sentence text;
  _quantity numeric;
  _price numeric;
  _where text;
  _amounts jsonb;
  _parts jsonb[] := '{}';
  _deal jsonb[] := '{}';
  _number bigint;
  _id uuid := gen_random_uuid();
begin
  _inv := einv_private.note_invoice(p_org_id, p_invoice_id, 'debit_note');
  _rate := coalesce(_inv.exchange_rate, 1);
  _foreign := _inv.currency <> 'COP';
  if p_concept_code is null or p_concept_code not in ('1', '2', '3', '4')
     or p_reason is null or length(btrim(p_reason)) not between 1 and 500 then
    raise exception 'debit_note_invalid' using errcode = 'P0001', hint = 'business_rule', detail = 'debit_note';
  end if;

  -- the request's own shape (the HTTP API refuses all of it first, with a 400)
  if jsonb_typeof(p_lines) is distinct from 'array' or jsonb_array_length(p_lines) not between 1 and 1000 then
    raise exception 'debit_line_invalid:' using errcode = 'P0001', hint = 'business_rule', detail = 'debit_note';
  end if;
  select '#' || r.n into _bad
    from jsonb_array_elements(p_lines) with ordinality as r(x, n)
   where jsonb_typeof(r.x) <> 'object'
      or einv_private.unknown_key(r.x, array['description', 'quantity', 'unit_price', 'taxes',
                                             'allowance_charges', 'code', 'unit_code']) is not null
      or jsonb_typeof(r.x -> 'description') is distinct from 'string'
      or length(btrim(r.x ->> 'description')) not between 1 and 1000
      or (r.x ? 'code' and (jsonb_typeof(r.x -> 'code') <> 'string' or length(r.x ->> 'code') not between 1 and 60))
      or (r.x ? 'unit_code' and (jsonb_typeof(r.x -> 'unit_code') <> 'string'
                                 or length(r.x ->> 'unit_code') not between 1 and 10))
      or (r.x ? 'taxes' and (jsonb_typeof(r.x -> 'taxes') <> 'array' or jsonb_array_length(r.x -> 'taxes') > 10))
      or (r.x ? 'allowance_charges' and (jsonb_typeof(r.x -> 'allowance_charges') <> 'array'
                                         or jsonb_array_length(r.x -> 'allowance_charges') > 10))
   order by r.n limit 1;
  if found then
    raise exception 'debit_line_invalid:%', _bad using errcode = 'P0001', hint = 'business_rule', detail = 'debit_note';
  end if;

  -- each line as an invoice line is computed; the module's refusals name the field, under `lines.<i>`
  begin
    for _line, _n in select r.x, r.n from jsonb_array_elements(p_lines) with ordinality as r(x, n) order by r.n loop
      _where := format('debit note line %s', _n);
      _quantity := einv_private.input_decimal(_line -> 'quantity', 6, 0, false, 1000000000000, false, _where,
                                              'quantity');
      _price := einv_private.input_decimal(_line -> 'unit_price', 6, 0, true, 1000000000000, false, _where,
                                           'unit_price');
      _amounts := einv_private.line_amounts(_quantity, _price, coalesce(_line -> 'taxes', '[]'),
                                            coalesce(_line -> 'allowance_charges', '[]'), _rate, _where);
      _parts := array_append(_parts, _amounts || jsonb_build_object(
        'position', _n, 'code', _line ->> 'code', 'description', btrim(_line ->> 'description'),
        'unit_code', coalesce(_line ->> 'unit_code', '94'), 'quantity', _quantity,
        'unit_price', einv_private.price(_price), 'taxes_input', coalesce(_line -> 'taxes', '[]'),
        'allowance_charges_input', coalesce(_line -> 'allowance_charges', '[]')));
      if _foreign then
        _deal := array_append(_deal, einv_private.line_amounts(_quantity, _price, coalesce(_line -> 'taxes', '[]'),
                                                               coalesce(_line -> 'allowance_charges', '[]'), 1, _where));
      end if;
    end loop;
  exception when check_violation then
    get stacked diagnostics _field = pg_exception_detail, _sentence = message_text;
    raise exception '%', _sentence using errcode = 'P0001', hint = 'validation_failed',
      detail = format('lines.%s.%s', _n - 1, regexp_replace(coalesce(nullif(_field, ''), 'line'), '\[([0-9]+)\]', '.\1', 'g'));
  end;
  _amounts := einv_private.document_amounts(to_jsonb(_parts), '[]', '[]', '[]', 1, 'debit note');
  if (_amounts ->> 'payable_amount')::numeric <= 0 then
    raise exception 'debit_note_empty' using errcode = 'P0001', hint = 'business_rule', detail = 'debit_note';
  end if;

  -- a test set's note: never beyond the run's `send` of the kind, under the run's row lock (…_test_sets.sql)
  if _inv.test_set_id is not null then
    perform einv_private.test_set_room(_inv.company_id, _inv.test_set_id, 'debit_note', 1);
  end if;
  -- the company's next number, under its counter's row lock, in this transaction: no gap, no twin
  _number := einv_private.next_note_number(_inv.company_id, 'debit_note', _inv.test_set_id is not null);

  -- the claim below stamps a draft with the same instant; the note is written with it already
  insert into public.debit_notes (id, org_id, company_id, invoice_id, number, issue_date, issue_time,
    concept_code, reason, currency, exchange_rate, exchange_rate_date, subtotal, tax_total, total,
    tax_exclusive_amount, tax_inclusive_amount, allowance_total_amount, charge_total_amount, tax_totals,
    allowance_charge_amounts, currency_totals, environment, created_by)
  values (_id, _inv.org_id, _inv.company_id, _inv.id,
          (select c.debit_note_prefix from public.companies c where c.id = _inv.company_id) || _number,
          einv_private.bogota_date(p_issued_at), einv_private.bogota_time(p_issued_at),
          p_concept_code, btrim(p_reason), _inv.currency, _inv.exchange_rate, _inv.exchange_rate_date,
          (_amounts ->> 'line_extension_amount')::numeric, (_amounts ->> 'tax_total')::numeric,
          (_amounts ->> 'payable_amount')::numeric, (_amounts ->> 'tax_exclusive_amount')::numeric,
          (_amounts ->> 'tax_inclusive_amount')::numeric, (_amounts ->> 'allowance_total_amount')::numeric,
          (_amounts ->> 'charge_total_amount')::numeric, _amounts -> 'tax_totals', _amounts -> 'allowance_charges',
          case when _foreign then einv_private.document_amounts(to_jsonb(_deal), '[]', '[]', '[]', 1, 'debit note') end,
          _inv.environment, p_actor_id);
  insert into public.debit_note_lines (debit_note_id, org_id, position, code, description, unit_code, quantity,
    unit_price, taxes, allowance_charges, price_amount, line_extension, tax_amount, tax_subtotals,
    allowance_charge_amounts, currency_amounts)
  select _id, _inv.org_id, (p ->> 'position')::integer, p ->> 'code', p ->> 'description', p ->> 'unit_code',
         (p ->> 'quantity')::numeric, (p ->> 'unit_price')::numeric, p -> 'taxes_input', p -> 'allowance_charges_input',
         (p ->> 'price_amount')::numeric, (p ->> 'line_extension')::numeric, (p ->> 'tax_amount')::numeric,
         p -> 'taxes', p -> 'allowance_charges', _deal[(p ->> 'position')::integer]
    from unnest(_parts) as p;

  return einv_private.note_created(p_org_id, 'debit_note', _id, _inv.id,
    jsonb_build_object('concept_code', p_concept_code, 'lines', cardinality(_parts)),
    p_actor_id, p_lease_seconds, p_issued_at);
end
$$;

revoke all on function public.einv_debit_note_create(uuid, uuid, text, text, jsonb, uuid, integer, timestamptz)
  from public, anon, authenticated, service_role;
grant execute on function public.einv_debit_note_create(uuid, uuid, text, text, jsonb, uuid, integer, timestamptz)
  to service_role;
