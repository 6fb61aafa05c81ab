-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Credit notes: the second kind of fiscal document (docs/adr/0001).
--
-- A credit note corrects or annuls a transmitted invoice. Each of its lines credits part or all of
-- one invoice line: a quantity of its units at its unit price (a return, concept 1), a base amount
-- (a discount or adjustment, concepts 3–6), or everything still left of it (whole lines, and an
-- annulment). Per invoice line, what the notes that stand credit, in units, in base amount and in
-- tax, never exceeds the line (a trigger checks every write, whoever writes), so the notes of an
-- invoice never credit more than it; the note that takes the last of a line's base takes the last
-- of its tax, so a line credited in full is credited to the cent. Notes are created only by the
-- service, through `einv_credit_note_create`, which locks the invoice (notes of one invoice are
-- made one at a time, so what is left of each line is read once, after the lock, and cannot change
-- before the note is written), takes the next number of the company's credit-note sequence in the
-- same transaction (no gaps, no duplicates), and claims the note for sending at once, so it is never
-- seen unclaimed. The rest of its life is the lifecycle's (…_lifecycle.sql); its CUDE uses the
-- company's software PIN, which members can set but never read, like the technical key.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

-- ─── the company: its credit-note numbering ─────────────────────────────────────────────────────
alter table public.companies
  -- letters only: a digit would run into the consecutive number (NC1 + 4 = NC14 = NC + 14)
  add column credit_note_prefix text not null default 'NC' check (credit_note_prefix ~ '^[A-Z]{0,4}$');
grant select (credit_note_prefix) on public.companies to authenticated;
grant insert (credit_note_prefix), update (credit_note_prefix) on public.companies to authenticated;
-- (its software PIN, the CUDE's secret, and the sequence of its notes: …_notes.sql)

-- ─── credit notes and their lines ────────────────────────────────────────────────────────────────
create table public.credit_notes (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references public.organizations (id) on delete cascade,
  company_id uuid not null,
  invoice_id uuid not null,
  number text not null check (number ~ '^[A-Z0-9]{0,4}[0-9]{1,15}$'),
  issue_date date not null,
  issue_time time(0) with time zone not null,
  -- DIAN correction concept (Anexo 1.9): 1 partial return, 2 annulment, 3 rebate, 4 price
  -- adjustment, 5 prompt-payment discount, 6 volume discount
  concept_code text not null check (concept_code in ('1', '2', '3', '4', '5', '6')),
  reason text not null check (length(reason) between 1 and 500),
  -- the invoice's deal, declared as it was (PaymentExchangeRate): the note is in pesos
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  exchange_rate numeric(16, 6) check (exchange_rate > 0),
  exchange_rate_date date,
  -- its amounts, as einv_private.document_amounts gives them for its lines (…_amounts.sql), in pesos:
  -- LineExtensionAmount, the taxes' sum, PayableAmount, and the rest of LegalMonetaryTotal; the
  -- taxes per scheme and rate; an annulment's document discounts and charges (the invoice's); the
  -- same totals in the deal's currency when it is not COP
  subtotal numeric(18, 2) not null check (subtotal >= 0),
  tax_total numeric(18, 2) not null check (tax_total >= 0),
  total numeric(18, 2) not null check (total >= 0),
  tax_exclusive_amount numeric(18, 2) not null default 0,
  tax_inclusive_amount numeric(18, 2) not null default 0,
  allowance_total_amount numeric(18, 2) not null default 0,
  charge_total_amount numeric(18, 2) not null default 0,
  tax_totals jsonb not null default '[]',
  allowance_charge_amounts jsonb not null default '[]',
  currency_totals jsonb,
  -- ── the fiscal-document lifecycle block (einv_private.lifecycle) ──
  -- `descartada`: a note in error (rejected, or never received) replaced by a later note that
  -- credits its lines; it never reached the authority's books and is never sent again
  status text not null default 'pendiente'
    check (status in ('pendiente', 'en_proceso', 'emitida', 'error', 'descartada')),
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
create index credit_notes_org_id_status_idx on public.credit_notes (org_id, status);
create index credit_notes_invoice_id_idx on public.credit_notes (invoice_id);
-- `company_id` is served by unique (company_id, number), as on invoices (core_schema.sql).

-- A note's line: what the document says (quantity, unit, unit price, discounts and charges, base,
-- taxes, in pesos as the authority reads them) and what it takes from its invoice line
-- (`credited_quantity` units, `line_extension` of base, and of each of its taxes the part's
-- `tax_subtotals`). A return shows the units it returns at the line's price, with their share of
-- the line's discounts and charges; a credited amount shows one unit (94) at that amount, and
-- returns no units. `currency_amounts`: the same part in the deal's currency, when it is not COP.
create table public.credit_note_lines (
  id uuid primary key default gen_random_uuid(),
  credit_note_id uuid not null,
  org_id uuid not null,
  invoice_line_id uuid not null references public.invoice_lines (id),
  position integer not null check (position between 1 and 1000),
  code text,
  description text not null,
  unit_code text not null,
  quantity numeric(18, 6) not null check (quantity > 0),
  unit_price numeric not null check (unit_price >= 0 and scale(unit_price) <= 6),
  allowance_charge_amounts jsonb not null default '[]',
  line_extension numeric(18, 2) not null check (line_extension >= 0),
  -- the part of each of the line's taxes: see einv_credit_note_create; and their sum
  tax_subtotals jsonb not null default '[]',
  tax_amount numeric(18, 2) not null check (tax_amount >= 0),
  currency_amounts jsonb,
  -- the invoice line's units this line returns: 0 when it credits an amount
  credited_quantity numeric(18, 6) not null check (credited_quantity >= 0),
  -- set when its note is `descartada`: what it took may be credited again
  released_at timestamptz,
  unique (credit_note_id, position),
  foreign key (credit_note_id, org_id) references public.credit_notes (id, org_id) on delete cascade
);
create index credit_note_lines_org_id_idx on public.credit_note_lines (org_id);
-- what stands credited on an invoice line: the balances the create function and the check read
create index credit_note_lines_standing_idx on public.credit_note_lines (invoice_line_id)
  where released_at is null;

-- Per invoice line, the lines that stand never take more units, more base, more tax, nor more of
-- any one of its taxes than it has, whoever writes (the create function's invoice lock makes that
-- hold under concurrency; this says so).
create function einv_private.credit_note_lines_within_invoice_lines() returns trigger
language plpgsql set search_path = '' as $$
declare
  _line uuid;
begin
  with standing as (
    select c.invoice_line_id, c.credited_quantity, c.line_extension, c.tax_amount, c.tax_subtotals
      from public.credit_note_lines c
     where c.invoice_line_id in (select a.invoice_line_id from added a) and c.released_at is null),
  per_tax as (
    select s.invoice_line_id, t ->> 'code' as code, sum((t ->> 'tax_amount')::numeric) as amount
      from standing s, jsonb_array_elements(s.tax_subtotals) as t
     group by s.invoice_line_id, t ->> 'code')
  select l.id into _line
    from public.invoice_lines l
    join (select s.invoice_line_id, sum(s.credited_quantity) as units, sum(s.line_extension) as base,
                 sum(s.tax_amount) as tax
            from standing s group by s.invoice_line_id) x on x.invoice_line_id = l.id
   where x.units > l.quantity or x.base > l.line_extension or x.tax > l.tax_amount
      or exists (select 1 from per_tax p
                  where p.invoice_line_id = l.id
                    and p.amount > coalesce((select sum((t ->> 'tax_amount')::numeric)
                                               from jsonb_array_elements(l.tax_subtotals) as t
                                              where t ->> 'code' = p.code), 0))
   limit 1;
  if found then
    raise exception 'invoice line % would be credited beyond what it has', _line using errcode = 'P0001';
  end if;
  return null;
end
$$;
create trigger credit_note_lines_within_invoice_lines after insert on public.credit_note_lines
  referencing new table as added
  for each statement execute function einv_private.credit_note_lines_within_invoice_lines();

create trigger credit_notes_touch before update on public.credit_notes
  for each row execute function einv_private.touch_updated_at();

-- What a note says never changes once written, for every role: only its lifecycle block moves.
-- Every other column spelled out (tests/db/access-control.test.ts fails when one is missing). Its
-- issue date and time move only while nothing of it at the authority can still be accepted (in
-- error or left in progress, every attempt refused: einv_private.note_restampable): a resend on a
-- later day is issued anew (…_lifecycle.sql, docs/adr/0010).
create function einv_private.freeze_credit_note() returns trigger
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
    raise exception 'credit note % cannot change', old.id using errcode = 'P0001', hint = 'invalid_state';
  end if;
  return new;
end
$$;
create trigger credit_notes_freeze before update on public.credit_notes
  for each row execute function einv_private.freeze_credit_note();
create trigger credit_notes_no_delete before delete on public.credit_notes
  for each row execute function einv_private.forbid_change();
create trigger credit_note_lines_no_delete before delete on public.credit_note_lines
  for each row execute function einv_private.forbid_change();

-- A credited line never changes; it can only be released, once, when its note is discarded.
create function einv_private.credit_note_line_release_only() returns trigger
language plpgsql set search_path = '' as $$
begin
  if old.released_at is not null or new.released_at is null
     or (to_jsonb(old) - 'released_at') is distinct from (to_jsonb(new) - 'released_at') then
    raise exception 'credit note lines are append-only' using errcode = 'P0001';
  end if;
  return new;
end
$$;
create trigger credit_note_lines_release_only before update on public.credit_note_lines
  for each row execute function einv_private.credit_note_line_release_only();

-- ─── access: members read their org's notes; only the service writes them ───────────────────────
revoke all on public.credit_notes, public.credit_note_lines from anon, authenticated, service_role;
alter table public.credit_notes enable row level security;
alter table public.credit_note_lines enable row level security;
grant select on public.credit_notes, public.credit_note_lines to authenticated, service_role;

create policy "members read their organization's credit notes" on public.credit_notes
  for select to authenticated using (org_id in (select einv_private.my_org_ids()));
create policy "members read their organization's credit note lines" on public.credit_note_lines
  for select to authenticated using (org_id in (select einv_private.my_org_ids()));

-- ─── the kind: payload builder and registry row ──────────────────────────────────────────────────
-- A note's content and its credited lines, with what every note takes from its invoice and company
-- (…_notes.sql: the buyer, the billing reference, the invoice's payment form, means and due date,
-- `p_issuer` with the software PIN, read live). Its amounts in the shape of an invoice's
-- (…_lifecycle.sql): a line's `unit_price` is already in pesos, so it is its `price_amount` too.
create function einv_private.credit_note_payload(p_id uuid, p_issuer jsonb) returns jsonb
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
                        'id', l.id, 'invoice_line_id', l.invoice_line_id, 'position', l.position,
                        'code', l.code, 'description', l.description, 'unit_code', l.unit_code,
                        'quantity', l.quantity, 'unit_price', l.unit_price, 'price_amount', l.unit_price,
                        'line_extension', l.line_extension, 'tax_amount', l.tax_amount,
                        'taxes', l.tax_subtotals, 'allowance_charges', l.allowance_charge_amounts,
                        'currency_amounts', l.currency_amounts)
                        order by l.position)
                 from public.credit_note_lines l where l.credit_note_id = n.id), '[]'::jsonb))
           || einv_private.note_of_invoice(n.invoice_id, n.company_id, p_issuer)
      from public.credit_notes n
     where n.id = p_id);
end
$$;
revoke all on function einv_private.credit_note_payload(uuid, jsonb), einv_private.freeze_credit_note(),
  einv_private.credit_note_line_release_only(), einv_private.credit_note_lines_within_invoice_lines()
  from public;

insert into einv_private.document_kinds (kind, content_table, accepted_status, payload)
values ('credit_note', 'public.credit_notes', 'emitida', 'einv_private.credit_note_payload');

-- A note a later note may replace: in error, and the authority definitely did not accept it — it
-- rejected the attempt in doubt, or nothing of the note could have reached it.
create function einv_private.credit_note_replaceable(n public.credit_notes) returns boolean
language sql stable set search_path = '' as $$
  select n.status = 'error' and (n.submitted_attempt is null or n.submitted_attempt is not distinct from n.refused_attempt)
$$;
revoke all on function einv_private.credit_note_replaceable(public.credit_notes) from public;

-- ─── what a note takes of a line ─────────────────────────────────────────────────────────────────
-- What the notes that stand credit of an invoice line: units, and in pesos (`cop`) and in the
-- deal's currency (`deal`) the base and each tax by its code (`{ "01": 19.00 }`).
create function einv_private.credited_of(p_invoice_line_id uuid) returns jsonb
language sql stable set search_path = '' as $$
  with standing as (
    select c.credited_quantity, c.line_extension, c.tax_subtotals, c.currency_amounts
      from public.credit_note_lines c
      join public.credit_notes n on n.id = c.credit_note_id
     where c.invoice_line_id = p_invoice_line_id and c.released_at is null
       and not einv_private.credit_note_replaceable(n))
  select jsonb_build_object(
    'units', (select coalesce(sum(s.credited_quantity), 0) from standing s),
    'cop', jsonb_build_object(
      'base', (select coalesce(sum(s.line_extension), 0) from standing s),
      'taxes', (select coalesce(jsonb_object_agg(t.code, t.amount), '{}'::jsonb)
                  from (select x ->> 'code' as code, sum((x ->> 'tax_amount')::numeric) as amount
                          from standing s, jsonb_array_elements(s.tax_subtotals) as x group by 1) t)),
    'deal', jsonb_build_object(
      'base', (select coalesce(sum((s.currency_amounts ->> 'line_extension')::numeric), 0) from standing s),
      'taxes', (select coalesce(jsonb_object_agg(t.code, t.amount), '{}'::jsonb)
                  from (select x ->> 'code' as code, sum((x ->> 'tax_amount')::numeric) as amount
                          from standing s, jsonb_array_elements(coalesce(s.currency_amounts -> 'taxes', '[]')) as x
                         group by 1) t)))
$$;

-- A line's discounts and charges (as line_amounts answers them) as inputs again, for `p_share` of
-- its units: percentages as they are, amounts in proportion, rounded (a share that rounds to
-- nothing is left out); with `p_fixed`, percentages too become their amounts in proportion.
create function einv_private.allowance_charges_share(p_items jsonb, p_share numeric, p_fixed boolean) returns jsonb
language sql immutable set search_path = '' as $$
  select coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
           'charge', i -> 'charge',
           'reason_code', case when not (i ->> 'charge')::boolean then i -> 'reason_code' end,
           'reason', i -> 'reason',
           'percent', case when not p_fixed then i -> 'percent' end,
           'amount', case when p_fixed or i ->> 'percent' is null
                          then to_jsonb(einv_private.money((i ->> 'amount')::numeric * p_share)) end))
           order by (i ->> 'id')::integer), '[]'::jsonb)
    from jsonb_array_elements(p_items) as i
   where (not p_fixed and i ->> 'percent' is not null) or einv_private.money((i ->> 'amount')::numeric * p_share) > 0
$$;

-- The part of one invoice line a note credits, in one currency. `p_line`: the line as its
-- invoice computed it in that currency, `{ quantity, price, unit_code, line_extension, taxes,
-- allowance_charges }`; `p_units_credited` and `p_credited` (`{ base, taxes }`): what the notes
-- that stand credit of it; the part asked: `p_quantity` units returned (concept 1), an amount
-- `p_amount` of base (concepts 3–6), or, neither, everything left. Answers `{ quantity,
-- unit_price, unit_code, credited_quantity, allowance_charges, line_extension, taxes, tax_amount }`:
--   - units returned are the line computed again for them (line_amounts: their price, their share
--     of its discounts and charges); an amount is one unit (94) of it; what is left is shown as the
--     units left when they still come to the base left, else as one unit of it;
--   - of each percentage tax, the part takes that rate of all the base credited once it is added,
--     less what is already credited (never below 0, never above what is left); the part that takes
--     the last of the base takes what is left. Rounding each part alone would let a line split in
--     parts credit cents more tax than it has (2 × 0.095 → 0.20 of 0.19) or fewer, never to be
--     cancelled (10 × 6,333.3327 → 63,333.30 of 63,333.33). Per-unit taxes, the same by units
--     (an amount returns none, so takes none of them).
create function einv_private.credit_part(
  p_line jsonb, p_units_credited numeric, p_credited jsonb, p_quantity numeric, p_amount numeric, p_where text
) returns jsonb
language plpgsql immutable set search_path = '' as $$
declare
  _quantity_of_line numeric := (p_line ->> 'quantity')::numeric;
  _price numeric := (p_line ->> 'price')::numeric;
  _units_left numeric := _quantity_of_line - p_units_credited;
  _base_credited numeric := (p_credited ->> 'base')::numeric;
  _base_left numeric := (p_line ->> 'line_extension')::numeric - _base_credited;
  _units numeric;
  _quantity numeric := 1;
  _unit_price numeric;
  _unit_code text := '94';
  _charges jsonb := '[]';
  _base numeric;
  _again jsonb;
  _tax jsonb;
  _done numeric;
  _left numeric;
  _amount numeric;
  _taxes jsonb[] := '{}';
  _total numeric := 0;
begin
  if p_quantity is not null then
    _units := p_quantity;
    _again := einv_private.line_amounts(p_quantity, _price, '[]',
      einv_private.allowance_charges_share(p_line -> 'allowance_charges', p_quantity / _quantity_of_line, false),
      1, p_where);
    _base := (_again ->> 'line_extension')::numeric;
    _quantity := p_quantity; _unit_price := _price; _unit_code := p_line ->> 'unit_code';
    _charges := _again -> 'allowance_charges';
  elsif p_amount is not null then
    _units := 0; _base := p_amount; _unit_price := p_amount;
  else
    _units := _units_left; _base := _base_left; _unit_price := _base_left;
    if _units_left > 0 then
      _again := einv_private.line_amounts(_units_left, _price, '[]',
        einv_private.allowance_charges_share(p_line -> 'allowance_charges', _units_left / _quantity_of_line, false),
        1, p_where);
      if (_again ->> 'line_extension')::numeric = _base_left then
        _quantity := _units_left; _unit_price := _price; _unit_code := p_line ->> 'unit_code';
        _charges := _again -> 'allowance_charges';
      end if;
    end if;
  end if;

  for _tax in select t from jsonb_array_elements(p_line -> 'taxes') as t loop
    _done := coalesce((p_credited -> 'taxes' ->> (_tax ->> 'code'))::numeric, 0);
    _left := (_tax ->> 'tax_amount')::numeric - _done;
    if _tax ? 'percent' then
      _amount := case when _base = _base_left then _left
                      else least(_left, greatest(0, einv_private.money(
                             (_base_credited + _base) * (_tax ->> 'percent')::numeric / 100) - _done)) end;
      _taxes := array_append(_taxes, jsonb_build_object('code', _tax -> 'code', 'name', _tax -> 'name',
        'percent', _tax -> 'percent', 'taxable_amount', _base, 'tax_amount', _amount));
    elsif _units > 0 then
      _amount := case when p_units_credited + _units = _quantity_of_line then _left
                      else least(_left, greatest(0, einv_private.money(
                             round((p_units_credited + _units) * (_tax ->> 'unit_measure')::numeric, 6)
                             / (_tax ->> 'per_quantity')::numeric * (_tax ->> 'per_unit_amount')::numeric) - _done)) end;
      _taxes := array_append(_taxes, (_tax - 'tax_amount') || jsonb_build_object(
        'measure', round(_units * (_tax ->> 'unit_measure')::numeric, 6), 'tax_amount', _amount));
    else
      continue;
    end if;
    _total := _total + _amount;
  end loop;

  return jsonb_build_object('quantity', _quantity, 'unit_price', einv_private.price(_unit_price),
    'unit_code', _unit_code, 'credited_quantity', _units, 'allowance_charges', _charges,
    'line_extension', _base, 'taxes', to_jsonb(_taxes), 'tax_amount', _total);
end
$$;

revoke all on function einv_private.credited_of(uuid), einv_private.allowance_charges_share(jsonb, numeric, boolean),
  einv_private.credit_part(jsonb, numeric, jsonb, numeric, numeric, text)
  from public;

-- ─── database API (service_role) ─────────────────────────────────────────────────────────────────
-- Creates a note for a transmitted invoice of the org and claims it for sending, or creates
-- nothing and raises: not_found, invoice_in_progress (invalid_state, passes by itself),
-- invoice_not_accepted:<status> (invalid_state), or (business_rule) credit_line_invalid:<entry>,
-- line_not_of_invoice:<id>, line_already_credited:<id>, credit_exceeds_line:<id> <units left>
-- <base left>, credit_below_a_cent:<id>, nothing_left_to_credit, annulment_incomplete:<lines left
-- out>, document_allowances_need_annulment.
--
-- `p_lines` null credits everything still left of the invoice. Otherwise it lists distinct lines of
-- the invoice, each `{ line_id }` (everything left of it: the API's `line_ids`), `{ line_id,
-- quantity }` (units returned at the line's unit price; concept 1) or `{ line_id, amount }` (a base
-- before tax, in the invoice's currency; concepts 3–6), quantities and amounts as decimals > 0 of
-- at most 6 and 2 decimals. An annulment (2) takes only whole lines, and all that are left. A line
-- is left while base or some tax remains to credit (a line worth nothing: while units remain).
-- Each part — its base, its share of the line's discounts and charges, its part of each of the
-- line's taxes — is einv_private.credit_part's, in pesos and, for a foreign currency, in it; the
-- note's totals are einv_private.document_amounts' over its parts, as an invoice's over its lines.
-- An invoice with document discounts or charges is credited whole (an annulment, which takes them
-- as they were): a part of it would need a share of them that DIAN's totals have no place for.
--
-- A line held by a note in `error` (rejected, or never received: nothing on the authority's books)
-- counts as uncredited; when the new note takes it, that note is `descartada` and its lines
-- released, so a rejection never locks an invoice. The note is sent in its invoice's environment,
-- and issued at `p_issued_at` (the service's instant: its date and time in Colombia, as the claim
-- stamps a document it first sends; docs/adr/0010).
-- Answers the claim's entry (action `send`, with the payload).
create function public.einv_credit_note_create(
  p_org_id uuid, p_invoice_id uuid, p_concept_code text, p_reason text, p_lines jsonb,
  p_actor_id uuid, p_lease_seconds integer, p_issued_at timestamptz
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _inv public.invoices;
  _rate numeric;
  _foreign boolean;
  _bad text;
  _line record;
  _open boolean;
  _units_left numeric;
  _base_left numeric;
  _part jsonb;
  _deal jsonb;
  _parts jsonb[] := '{}'; -- the note's lines, appended in place
  _where text;
  _left_out integer := 0;
  _charges jsonb := '[]';
  _deal_charges jsonb := '[]';
  _amounts jsonb;
  _old record;
  _replaced record;
  _life einv_private.lifecycle;
  _number bigint;
  _id uuid := gen_random_uuid();
begin
  -- the notes of one invoice are made one at a time, so what is left is read once and kept
  _inv := einv_private.note_invoice(p_org_id, p_invoice_id, 'credit_note');
  _rate := coalesce(_inv.exchange_rate, 1);
  _foreign := _inv.currency <> 'COP';

  -- the request's own shape (the HTTP API refuses all of it first, with a 400)
  if p_lines is not null then
    if jsonb_typeof(p_lines) <> 'array' or jsonb_array_length(p_lines) not between 1 and 1000 then
      raise exception 'credit_line_invalid:' using errcode = 'P0001', hint = 'business_rule', detail = 'credit_note';
    end if;
    select coalesce(r.x ->> 'line_id', '#' || r.n) into _bad
      from (select e.x, e.n, count(*) over (partition by lower(e.x ->> 'line_id')) as twins
              from jsonb_array_elements(p_lines) with ordinality as e(x, n)) r
     where r.twins > 1
        or case
             when jsonb_typeof(r.x) <> 'object' or (r.x ? 'quantity' and r.x ? 'amount')
               or coalesce(r.x ->> 'line_id', '') !~* '^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$' then true
             when r.x ? 'quantity' then
               case when p_concept_code <> '1' or coalesce(r.x ->> 'quantity', '') !~ '^[0-9]{1,12}(\.[0-9]{1,6})?$'
                    then true else (r.x ->> 'quantity')::numeric = 0 end
             when r.x ? 'amount' then
               case when p_concept_code not in ('3', '4', '5', '6')
                      or coalesce(r.x ->> 'amount', '') !~ '^[0-9]{1,16}(\.[0-9]{1,2})?$'
                    then true else (r.x ->> 'amount')::numeric = 0 end
             else false
           end
     order by r.n limit 1;
    if found then
      raise exception 'credit_line_invalid:%', _bad using errcode = 'P0001', hint = 'business_rule',
        detail = 'credit_note';
    end if;
    select r.x ->> 'line_id' into _bad from jsonb_array_elements(p_lines) as r(x)
     where not exists (select 1 from public.invoice_lines l
                        where l.id = (r.x ->> 'line_id')::uuid and l.invoice_id = _inv.id) limit 1;
    if found then
      raise exception 'line_not_of_invoice:%', _bad using errcode = 'P0001', hint = 'business_rule',
        detail = 'credit_note';
    end if;
  end if;

  -- document discounts and charges change no line: only an annulment credits them, as they were
  if _inv.allowance_total_amount > 0 or _inv.charge_total_amount > 0 then
    if p_concept_code <> '2' then
      raise exception 'document_allowances_need_annulment' using errcode = 'P0001', hint = 'business_rule',
        detail = 'credit_note';
    end if;
    _charges := einv_private.allowance_charges_share(_inv.allowance_charge_amounts, 1, true);
    _deal_charges := einv_private.allowance_charges_share(_inv.currency_totals -> 'allowance_charges', 1, true);
  end if;

  -- Every note holding a line of this invoice is locked (in id order, as a claim locks documents)
  -- before anything about them is read. A claim (reissue, transmit, reconcile) or a recorded
  -- outcome of one of them holds the same row lock: it either committed first, and its status is
  -- read below, or it waits until this note is made and then finds the other note `descartada`.
  -- So a note is discarded only from the status `error` it has now, never from a stale read.
  perform 1 from public.credit_notes n
   where n.invoice_id = _inv.id
     and exists (select 1 from public.credit_note_lines c where c.credit_note_id = n.id and c.released_at is null)
   order by n.id
     for update;

  -- What is left of each line: what the notes that stand credit subtracted (credited_of). A note
  -- stops standing only in an error the provider made definite: it rejected the note, or nothing of
  -- it could have reached it (`refused_attempt` is the attempt in doubt). A note in error whose
  -- earlier submit may still arrive (never received by a query, refused unprocessed on a resend)
  -- still stands: it is reissued or refreshed, not replaced.
  for _line in
    select l.id, l.position, l.code, l.description, l.unit_code, l.quantity as line_quantity, l.unit_price,
           l.price_amount, l.line_extension, l.tax_subtotals, l.allowance_charge_amounts, l.currency_amounts,
           einv_private.credited_of(l.id) as credited,
           r.x is not null as asked, (r.x ->> 'quantity')::numeric as quantity, (r.x ->> 'amount')::numeric as amount
      from public.invoice_lines l
      left join jsonb_array_elements(p_lines) as r(x) on (r.x ->> 'line_id')::uuid = l.id
     where l.invoice_id = _inv.id
     order by l.position
  loop
    _units_left := _line.line_quantity - (_line.credited ->> 'units')::numeric;
    _base_left := _line.line_extension - (_line.credited #>> '{cop,base}')::numeric;
    _open := _base_left > 0 or (_line.line_extension = 0 and _units_left > 0)
             or exists (select 1 from jsonb_array_elements(_line.tax_subtotals) as t
                         where (t ->> 'tax_amount')::numeric
                               > coalesce((_line.credited -> 'cop' -> 'taxes' ->> (t ->> 'code'))::numeric, 0));
    if not _line.asked and p_lines is not null then
      _left_out := _left_out + _open::integer;
      continue;
    end if;
    if not _open then
      continue when p_lines is null;
      raise exception 'line_already_credited:%', _line.id using errcode = 'P0001', hint = 'business_rule',
        detail = 'credit_note';
    end if;
    if _line.quantity > _units_left then
      raise exception 'credit_exceeds_line:% % %', _line.id, trim_scale(_units_left), _base_left
        using errcode = 'P0001', hint = 'business_rule', detail = 'credit_note';
    end if;
    _where := format('credit of invoice line %s', _line.position);
    _part := einv_private.credit_part(
      jsonb_build_object('quantity', _line.line_quantity, 'price', _line.price_amount, 'unit_code', _line.unit_code,
                         'line_extension', _line.line_extension, 'taxes', _line.tax_subtotals,
                         'allowance_charges', _line.allowance_charge_amounts),
      (_line.credited ->> 'units')::numeric, _line.credited -> 'cop', _line.quantity,
      einv_private.money(_line.amount * _rate), _where);
    if (_part ->> 'line_extension')::numeric > _base_left then
      raise exception 'credit_exceeds_line:% % %', _line.id, trim_scale(_units_left), _base_left
        using errcode = 'P0001', hint = 'business_rule', detail = 'credit_note';
    end if;
    if (_part ->> 'line_extension')::numeric = 0 and (_line.amount > 0 or _line.price_amount > 0 and _line.quantity > 0) then
      raise exception 'credit_below_a_cent:%', _line.id using errcode = 'P0001', hint = 'business_rule',
        detail = 'credit_note';
    end if;
    _deal := case when _foreign then einv_private.credit_part(
      jsonb_build_object('quantity', _line.line_quantity, 'price', _line.unit_price, 'unit_code', _line.unit_code,
                         'line_extension', _line.currency_amounts -> 'line_extension',
                         'taxes', _line.currency_amounts -> 'taxes',
                         'allowance_charges', _line.currency_amounts -> 'allowance_charges'),
      (_line.credited ->> 'units')::numeric, _line.credited -> 'deal', _line.quantity, _line.amount, _where) end;
    _parts := array_append(_parts, _part || jsonb_build_object(
      'position', cardinality(_parts) + 1, 'invoice_line_id', _line.id, 'code', _line.code,
      'description', _line.description, 'currency_amounts', _deal));
  end loop;
  if cardinality(_parts) = 0 then
    raise exception 'nothing_left_to_credit' using errcode = 'P0001', hint = 'business_rule', detail = 'credit_note';
  end if;
  if p_concept_code = '2' and _left_out > 0 then
    raise exception 'annulment_incomplete:%', _left_out using errcode = 'P0001', hint = 'business_rule',
      detail = 'credit_note';
  end if;
  _amounts := einv_private.document_amounts(to_jsonb(_parts), _charges, '[]', '[]', 1, 'credit note');

  -- a test set's note: never beyond the run's `send` of the kind, under the run's row lock (…_test_sets.sql)
  if _inv.test_set_id is not null then
    perform einv_private.test_set_room(_inv.company_id, _inv.test_set_id, 'credit_note', 1);
  end if;
  -- the company's next number, under its counter's row lock, in this transaction: no gap, no twin
  _number := einv_private.next_note_number(_inv.company_id, 'credit_note', _inv.test_set_id is not null);

  -- notes in error holding a line this one credits are replaced: discarded, their lines released
  for _old in
    select distinct n.id from public.credit_notes n
      join public.credit_note_lines c on c.credit_note_id = n.id
     where n.invoice_id = _inv.id and einv_private.credit_note_replaceable(n) and c.released_at is null
       and c.invoice_line_id in (select (p ->> 'invoice_line_id')::uuid from unnest(_parts) p)
     order by n.id
  loop
    select * into _replaced from einv_private.document_of('credit_note', p_org_id, _old.id, true);
    _life := _replaced.life;
    -- cannot happen under the locks above; never guess
    if (_life.status = 'error' and (_life.submitted_attempt is null
                                    or _life.submitted_attempt = _life.refused_attempt)) is not true then
      raise exception 'line_already_credited:%', (select c.invoice_line_id from public.credit_note_lines c
          where c.credit_note_id = _old.id and c.released_at is null limit 1)
        using errcode = 'P0001', hint = 'business_rule', detail = 'credit_note';
    end if;
    _life.status := 'descartada';
    _life.last_message := 'replaced by a later credit note that credits its lines; it is not sent again';
    _life.last_code := 'replaced';
    perform einv_private.write_lifecycle('credit_note', _old.id, _life);
    update public.credit_note_lines set released_at = now() where credit_note_id = _old.id and released_at is null;
    perform einv_private.log_event(p_org_id, 'credit_note', _old.id, 'credit_note_discarded', p_actor_id,
      jsonb_build_object('replaced_by', _id));
  end loop;

  -- the claim below stamps a draft with the same instant; the note is written with it already
  insert into public.credit_notes (id, org_id, company_id, invoice_id, number, issue_date, issue_time,
    concept_code, reason, currency, exchange_rate, exchange_rate_date, subtotal, tax_total, total,
    tax_exclusive_amount, tax_inclusive_amount, allowance_total_amount, charge_total_amount, tax_totals,
    allowance_charge_amounts, currency_totals, environment, created_by)
  values (_id, _inv.org_id, _inv.company_id, _inv.id,
          (select c.credit_note_prefix from public.companies c where c.id = _inv.company_id) || _number,
          einv_private.bogota_date(p_issued_at), einv_private.bogota_time(p_issued_at),
          p_concept_code, p_reason, _inv.currency, _inv.exchange_rate, _inv.exchange_rate_date,
          (_amounts ->> 'line_extension_amount')::numeric, (_amounts ->> 'tax_total')::numeric,
          (_amounts ->> 'payable_amount')::numeric, (_amounts ->> 'tax_exclusive_amount')::numeric,
          (_amounts ->> 'tax_inclusive_amount')::numeric, (_amounts ->> 'allowance_total_amount')::numeric,
          (_amounts ->> 'charge_total_amount')::numeric, _amounts -> 'tax_totals', _amounts -> 'allowance_charges',
          case when _foreign then einv_private.document_amounts(
            (select jsonb_agg(p -> 'currency_amounts' order by (p ->> 'position')::integer) from unnest(_parts) p),
            _deal_charges, '[]', '[]', 1, 'credit note') end,
          _inv.environment, p_actor_id);
  insert into public.credit_note_lines (credit_note_id, org_id, invoice_line_id, position, code, description,
    unit_code, quantity, unit_price, allowance_charge_amounts, line_extension, tax_subtotals, tax_amount,
    credited_quantity, currency_amounts)
  select _id, _inv.org_id, (p ->> 'invoice_line_id')::uuid, (p ->> 'position')::integer, p ->> 'code',
         p ->> 'description', p ->> 'unit_code', (p ->> 'quantity')::numeric, (p ->> 'unit_price')::numeric,
         p -> 'allowance_charges', (p ->> 'line_extension')::numeric, p -> 'taxes', (p ->> 'tax_amount')::numeric,
         (p ->> 'credited_quantity')::numeric, p -> 'currency_amounts'
    from unnest(_parts) as p;

  return einv_private.note_created(p_org_id, 'credit_note', _id, _inv.id,
    jsonb_build_object('concept_code', p_concept_code, 'lines', cardinality(_parts)),
    p_actor_id, p_lease_seconds, p_issued_at);
end
$$;

revoke all on function public.einv_credit_note_create(uuid, uuid, text, text, jsonb, uuid, integer, timestamptz)
  from public, anon, authenticated, service_role;
grant execute on function public.einv_credit_note_create(uuid, uuid, text, text, jsonb, uuid, integer, timestamptz)
  to service_role;
