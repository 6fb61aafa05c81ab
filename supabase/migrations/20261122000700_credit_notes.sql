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

-- ─── the company: its software PIN and its credit-note numbering ─────────────────────────────────
alter table public.companies
  -- DIAN Software-PIN: the CUDE's secret. Hidden from members (no select grant), like technical_key.
  add column software_pin text check (length(software_pin) between 1 and 200),
  -- letters only: a digit would run into the consecutive number (NC1 + 4 = NC14 = NC + 14)
  add column credit_note_prefix text not null default 'NC' check (credit_note_prefix ~ '^[A-Z]{0,4}$');
grant select (credit_note_prefix) on public.companies to authenticated;
grant insert (software_pin, credit_note_prefix), update (software_pin, credit_note_prefix)
  on public.companies to authenticated;

-- The next consecutive number of each company's credit notes; taken with a row lock.
create table einv_private.credit_note_counters (
  company_id uuid primary key references public.companies (id) on delete cascade,
  next_number bigint not null default 1 check (next_number between 1 and 999999999999999)
);
revoke all on einv_private.credit_note_counters from public, anon, authenticated, service_role;

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
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  subtotal numeric(18, 2) not null check (subtotal >= 0),
  tax_total numeric(18, 2) not null check (tax_total >= 0),
  total numeric(18, 2) not null check (total >= 0),
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

-- A note's line: what the document says (quantity, unit, unit price, base, tax, as the authority
-- reads it) and what it takes from its invoice line (`credited_quantity` units and `line_extension`
-- of base). A return shows the units it returns at the line's price; a credited amount shows one
-- unit (94) at that amount, and returns no units.
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
  unit_price numeric(18, 2) not null check (unit_price >= 0),
  line_extension numeric(18, 2) not null check (line_extension >= 0),
  tax_code text not null check (tax_code in ('01', '04', 'ZZ')),
  tax_rate numeric(5, 2) not null check (tax_rate >= 0 and tax_rate <= 100),
  -- the part's tax at the line's rate: see einv_credit_note_create
  tax_amount numeric(18, 2) not null check (tax_amount >= 0),
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

-- Per invoice line, the lines that stand never take more units, more base or more tax than it has,
-- whoever writes (the create function's invoice lock makes that hold under concurrency; this says so).
create function einv_private.credit_note_lines_within_invoice_lines() returns trigger
language plpgsql set search_path = '' as $$
declare
  _line uuid;
begin
  select l.id into _line
    from public.invoice_lines l
    join public.credit_note_lines c on c.invoice_line_id = l.id and c.released_at is null
   where l.id in (select a.invoice_line_id from added a)
   group by l.id, l.quantity, l.line_extension, l.tax_amount
  having sum(c.credited_quantity) > l.quantity or sum(c.line_extension) > l.line_extension
      or sum(c.tax_amount) > l.tax_amount
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

-- What a note says never changes once written, for every role: only its lifecycle block moves. Its
-- issue date and time move only while nothing of it at the authority can still be accepted (in
-- error or left in progress, every attempt refused): a resend on a later day is issued anew
-- (…_lifecycle.sql, docs/adr/0010).
create function einv_private.freeze_credit_note() returns trigger
language plpgsql set search_path = '' as $$
begin
  if (old.org_id, old.company_id, old.invoice_id, old.number,
      old.concept_code, old.reason, old.currency, old.subtotal, old.tax_total, old.total)
     is distinct from
     (new.org_id, new.company_id, new.invoice_id, new.number,
      new.concept_code, new.reason, new.currency, new.subtotal, new.tax_total, new.total)
     or ((old.issue_date, old.issue_time) is distinct from (new.issue_date, new.issue_time)
         and not (old.status in ('error', 'en_proceso')
                  and (old.submitted_attempt is null or old.submitted_attempt is not distinct from old.refused_attempt))) then
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
-- A note's content, its credited lines, the buyer and the billing reference (the invoice's number,
-- date and CUFE), and `p_issuer` with the CUDE's secret, the software PIN, read live.
create function einv_private.credit_note_payload(p_id uuid, p_issuer jsonb) returns jsonb
language plpgsql stable set search_path = '' as $$
begin
  return (
    select jsonb_build_object(
             'id', n.id, 'org_id', n.org_id, 'company_id', n.company_id, 'invoice_id', n.invoice_id,
             'number', n.number, 'issue_date', n.issue_date, 'issue_time', n.issue_time,
             'concept_code', n.concept_code, 'reason', n.reason, 'currency', n.currency,
             'subtotal', n.subtotal, 'tax_total', n.tax_total, 'total', n.total,
             'buyer_id_type', i.buyer_id_type, 'buyer_id_number', i.buyer_id_number,
             'buyer_check_digit', i.buyer_check_digit, 'buyer_name', i.buyer_name,
             'buyer_email', i.buyer_email, 'buyer_address', i.buyer_address,
             'buyer_city_code', i.buyer_city_code, 'buyer_phone', i.buyer_phone,
             'billing_reference', jsonb_build_object(
               'number', i.number, 'issue_date', i.issue_date, 'authority_code', i.authority_code),
             'lines', coalesce((
               select jsonb_agg(jsonb_build_object(
                        'id', l.id, 'invoice_line_id', l.invoice_line_id, 'position', l.position,
                        'code', l.code, 'description', l.description, 'unit_code', l.unit_code,
                        'quantity', l.quantity, 'unit_price', l.unit_price,
                        'line_extension', l.line_extension, 'tax_code', l.tax_code,
                        'tax_rate', l.tax_rate, 'tax_amount', l.tax_amount) order by l.position)
                 from public.credit_note_lines l where l.credit_note_id = n.id), '[]'::jsonb),
             'company', p_issuer || jsonb_build_object('software_pin',
               (select c.software_pin from public.companies c where c.id = n.company_id)))
      from public.credit_notes n
      join public.invoices i on i.id = n.invoice_id
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

-- ─── database API (service_role) ─────────────────────────────────────────────────────────────────
-- Creates a note for a transmitted invoice of the org and claims it for sending, or creates
-- nothing and raises: not_found, invoice_in_progress (invalid_state, passes by itself),
-- invoice_not_accepted:<status> (invalid_state), or (business_rule) credit_line_invalid:<entry>,
-- line_not_of_invoice:<id>, line_already_credited:<id>, credit_exceeds_line:<id> <units left>
-- <base left>, credit_below_a_cent:<id>, nothing_left_to_credit, annulment_incomplete:<lines left out>.
--
-- `p_lines` null credits everything still left of the invoice. Otherwise it lists distinct lines of
-- the invoice, each `{ line_id }` (everything left of it: the API's `line_ids`), `{ line_id,
-- quantity }` (units returned at the line's unit price; concept 1) or `{ line_id, amount }` (a base
-- before tax; concepts 3–6), quantities and amounts as decimals > 0 of at most 6 and 2 decimals. An
-- annulment (2) takes only whole lines, and all that are left. A line is left while base remains
-- to credit (a line worth nothing: while units remain); what is left of it takes the units and the
-- base that remain, shown as those units at the line's price when they still make that base, else
-- as one unit of what remains.
--
-- A part's tax keeps what the line's notes credit in step with the line: it is the tax, at the line's
-- rate rounded to the cent, of all the base credited once the part is added, less the tax already
-- credited (never below 0, never above what is left); the part that takes the last of the base takes
-- the tax that is left. Rounding each part alone would let a line split in parts credit cents more
-- tax than it has (2 × 0.095 → 0.20 of 0.19) or fewer, never to be cancelled (10 × 6,333.3327 →
-- 63,333.30 of 63,333.33). This way a part's tax stays within a cent of its base at the rate (a few
-- cents after notes in error released what they held), and the parts of a line add up to its tax.
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
  _bad text;
  _line record;
  _open boolean;
  _units numeric;
  _price numeric;
  _unit text;
  _base numeric;
  _tax numeric;
  _credited numeric;
  _parts jsonb[] := '{}'; -- the note's lines, appended in place
  _left_out integer := 0;
  _old record;
  _replaced record;
  _life einv_private.lifecycle;
  _number bigint;
  _id uuid := gen_random_uuid();
begin
  -- the notes of one invoice are made one at a time, so what is left is read once and kept
  select * into _inv from public.invoices where id = p_invoice_id and org_id = p_org_id for no key update;
  if not found then
    raise exception 'not_found' using errcode = 'P0001', hint = 'not_found', detail = 'invoice';
  end if;
  if _inv.status = 'en_proceso' then
    raise exception 'invoice_in_progress' using errcode = 'P0001', hint = 'invalid_state', detail = 'credit_note';
  end if;
  if _inv.status <> einv_private.accepted_status('invoice') then
    raise exception 'invoice_not_accepted:%', _inv.status using errcode = 'P0001', hint = 'invalid_state',
      detail = 'credit_note';
  end if;

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

  -- What is left of each line: what the notes that stand credit subtracted. A note stops standing
  -- only in an error the provider made definite: it rejected the note, or nothing of it could have
  -- reached it (`refused_attempt` is the attempt in doubt). A note in error whose earlier submit may
  -- still arrive (never received by a query, refused unprocessed on a resend) still stands: it is
  -- reissued or refreshed, not replaced.
  for _line in
    select l.id, l.code, l.description, l.unit_code, l.unit_price, l.line_extension, l.tax_code, l.tax_rate,
           l.quantity - coalesce(c.units, 0) as units_left, l.line_extension - coalesce(c.base, 0) as base_left,
           coalesce(c.base, 0) as base_credited, coalesce(c.tax, 0) as tax_credited,
           l.tax_amount - coalesce(c.tax, 0) as tax_left,
           r.x is not null as asked, (r.x ->> 'quantity')::numeric as quantity, (r.x ->> 'amount')::numeric as amount
      from public.invoice_lines l
      left join lateral (
        select sum(c.credited_quantity) as units, sum(c.line_extension) as base, sum(c.tax_amount) as tax
          from public.credit_note_lines c
          join public.credit_notes n on n.id = c.credit_note_id
         where c.invoice_line_id = l.id and c.released_at is null
           and not einv_private.credit_note_replaceable(n)) c on true
      left join jsonb_array_elements(p_lines) as r(x) on (r.x ->> 'line_id')::uuid = l.id
     where l.invoice_id = _inv.id
     order by l.position
  loop
    _open := _line.base_left > 0 or (_line.line_extension = 0 and _line.units_left > 0);
    if not _line.asked and p_lines is not null then
      _left_out := _left_out + _open::integer;
      continue;
    end if;
    if not _open then
      continue when p_lines is null;
      raise exception 'line_already_credited:%', _line.id using errcode = 'P0001', hint = 'business_rule',
        detail = 'credit_note';
    end if;
    if _line.quantity is not null then
      _units := _line.quantity; _price := _line.unit_price; _unit := _line.unit_code; _credited := _line.quantity;
      _base := round(_line.quantity * _line.unit_price, 2);
      if _base = 0 and _line.unit_price > 0 then
        raise exception 'credit_below_a_cent:%', _line.id using errcode = 'P0001', hint = 'business_rule',
          detail = 'credit_note';
      end if;
    elsif _line.amount is not null then
      _units := 1; _price := _line.amount; _unit := '94'; _credited := 0; _base := _line.amount;
    elsif _line.units_left > 0 and round(_line.units_left * _line.unit_price, 2) = _line.base_left then
      _units := _line.units_left; _price := _line.unit_price; _unit := _line.unit_code;
      _credited := _line.units_left; _base := _line.base_left;
    else
      _units := 1; _price := _line.base_left; _unit := '94'; _credited := _line.units_left; _base := _line.base_left;
    end if;
    if _credited > _line.units_left or _base > _line.base_left then
      raise exception 'credit_exceeds_line:% % %', _line.id, trim_scale(_line.units_left), _line.base_left
        using errcode = 'P0001', hint = 'business_rule', detail = 'credit_note';
    end if;
    _tax := case when _base = _line.base_left then _line.tax_left
                 else least(_line.tax_left, greatest(0,
                        round((_line.base_credited + _base) * _line.tax_rate / 100, 2) - _line.tax_credited)) end;
    _parts := array_append(_parts, jsonb_build_object(
      'position', cardinality(_parts) + 1, 'invoice_line_id', _line.id, 'code', _line.code,
      'description', _line.description, 'unit_code', _unit, 'quantity', _units, 'unit_price', _price,
      'line_extension', _base, 'tax_code', _line.tax_code, 'tax_rate', _line.tax_rate,
      'tax_amount', _tax, 'credited_quantity', _credited));
  end loop;
  if cardinality(_parts) = 0 then
    raise exception 'nothing_left_to_credit' using errcode = 'P0001', hint = 'business_rule', detail = 'credit_note';
  end if;
  if p_concept_code = '2' and _left_out > 0 then
    raise exception 'annulment_incomplete:%', _left_out using errcode = 'P0001', hint = 'business_rule',
      detail = 'credit_note';
  end if;

  -- the company's next number, under its counter's row lock, in this transaction: no gap, no twin
  insert into einv_private.credit_note_counters (company_id) values (_inv.company_id)
  on conflict (company_id) do nothing;
  update einv_private.credit_note_counters set next_number = next_number + 1
   where company_id = _inv.company_id
  returning next_number - 1 into _number;

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
    concept_code, reason, currency, subtotal, tax_total, total, environment, created_by)
  select _id, _inv.org_id, _inv.company_id, _inv.id,
         (select c.credit_note_prefix from public.companies c where c.id = _inv.company_id) || _number,
         (date_trunc('second', p_issued_at) at time zone 'America/Bogota')::date,
         (date_trunc('second', p_issued_at)::time(0) with time zone) at time zone 'America/Bogota',
         p_concept_code, p_reason, _inv.currency,
         sum(p.line_extension), sum(p.tax_amount), sum(p.line_extension + p.tax_amount), _inv.environment, p_actor_id
    from jsonb_to_recordset(to_jsonb(_parts)) as p(line_extension numeric, tax_amount numeric);
  insert into public.credit_note_lines (credit_note_id, org_id, invoice_line_id, position, code, description,
    unit_code, quantity, unit_price, line_extension, tax_code, tax_rate, tax_amount, credited_quantity)
  select _id, _inv.org_id, p.invoice_line_id, p.position, p.code, p.description, p.unit_code, p.quantity,
         p.unit_price, p.line_extension, p.tax_code, p.tax_rate, p.tax_amount, p.credited_quantity
    from jsonb_to_recordset(to_jsonb(_parts))
           as p(invoice_line_id uuid, position integer, code text, description text, unit_code text,
                quantity numeric, unit_price numeric, line_extension numeric, tax_code text, tax_rate numeric,
                tax_amount numeric, credited_quantity numeric);

  perform einv_private.log_event(p_org_id, 'credit_note', _id, 'credit_note_created', p_actor_id,
    jsonb_build_object('invoice_id', _inv.id, 'concept_code', p_concept_code,
                       'lines', cardinality(_parts)));
  -- claimed at once: nobody ever sees the note unclaimed
  return public.einv_document_claim(p_org_id, 'credit_note', jsonb_build_array(_id), false, p_actor_id,
                                    p_lease_seconds, p_issued_at) -> 0;
end
$$;

revoke all on function public.einv_credit_note_create(uuid, uuid, text, text, jsonb, uuid, integer, timestamptz)
  from public, anon, authenticated, service_role;
grant execute on function public.einv_credit_note_create(uuid, uuid, text, text, jsonb, uuid, integer, timestamptz)
  to service_role;
