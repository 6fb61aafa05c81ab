-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Credit notes: the second kind of fiscal document (docs/adr/0001).
--
-- A credit note corrects or annuls a transmitted invoice. It credits whole invoice lines; a line is
-- credited at most once across all notes of its invoice (a unique index says so, whoever writes),
-- so the notes of an invoice never credit more than it. Notes are created only by the service,
-- through `einv_credit_note_create`, which locks the invoice (notes of one invoice are made one at
-- a time), takes the next number of the company's credit-note sequence in the same transaction (no
-- gaps, no duplicates), and claims the note for sending at once, so it is never seen unclaimed. The
-- rest of its life is the lifecycle's (…_lifecycle.sql); its CUDE uses the company's software PIN,
-- which members can set but never read, like the technical key.
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
  tax_amount numeric(18, 2) not null check (tax_amount >= 0),
  -- set when its note is `descartada`: the line may be credited again
  released_at timestamptz,
  unique (credit_note_id, position),
  foreign key (credit_note_id, org_id) references public.credit_notes (id, org_id) on delete cascade
);
create index credit_note_lines_org_id_idx on public.credit_note_lines (org_id);
-- credited in full, at most once across every note that stands: nothing is ever credited twice
create unique index credit_note_lines_credited_once on public.credit_note_lines (invoice_line_id)
  where released_at is null;

create trigger credit_notes_touch before update on public.credit_notes
  for each row execute function einv_private.touch_updated_at();

-- What a note says never changes once written, for every role: only its lifecycle block moves.
create function einv_private.freeze_credit_note() returns trigger
language plpgsql set search_path = '' as $$
begin
  if (old.org_id, old.company_id, old.invoice_id, old.number, old.issue_date, old.issue_time,
      old.concept_code, old.reason, old.currency, old.subtotal, old.tax_total, old.total)
     is distinct from
     (new.org_id, new.company_id, new.invoice_id, new.number, new.issue_date, new.issue_time,
      new.concept_code, new.reason, new.currency, new.subtotal, new.tax_total, new.total) then
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
  einv_private.credit_note_line_release_only()
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
-- invoice_not_accepted:<status> (invalid_state), or (business_rule) line_not_of_invoice:<id>,
-- line_already_credited:<id>, nothing_left_to_credit, annulment_incomplete:<lines left out>.
-- `p_line_ids` null credits every line still uncredited. A line held by a note in `error` (rejected,
-- or never received: nothing on the authority's books) counts as uncredited; when the new note takes
-- it, that note is `descartada` and its lines released, so a rejection never locks an invoice.
-- The note is sent in its invoice's environment. Answers the claim's entry (action `send`, with
-- the payload).
create function public.einv_credit_note_create(
  p_org_id uuid, p_invoice_id uuid, p_concept_code text, p_reason text, p_line_ids jsonb,
  p_actor_id uuid, p_lease_seconds integer
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _inv public.invoices;
  _remaining uuid[];
  _chosen uuid[];
  _bad uuid;
  _old record;
  _replaced record;
  _life einv_private.lifecycle;
  _number bigint;
  _id uuid := gen_random_uuid();
  _now timestamp := now() at time zone interval '-05:00'; -- Colombia: UTC-5, no daylight saving
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

  -- credited: held by a note that stands. A note stops standing only in an error the provider made
  -- definite: it rejected the note, or nothing of it could have reached it (`refused_attempt` is the
  -- attempt in doubt). A note in error whose earlier submit may still arrive (never received by a
  -- query, refused unprocessed on a resend) still stands: it is reissued or refreshed, not replaced.
  _remaining := array(
    select l.id from public.invoice_lines l
     where l.invoice_id = _inv.id
       and not exists (select 1 from public.credit_note_lines c
                         join public.credit_notes n on n.id = c.credit_note_id
                        where c.invoice_line_id = l.id and c.released_at is null
                          and not einv_private.credit_note_replaceable(n))
     order by l.position);
  if p_line_ids is null then
    _chosen := _remaining;
  else
    _chosen := array(select distinct x::uuid from jsonb_array_elements_text(p_line_ids) as x);
    select x into _bad from unnest(_chosen) x
     where not exists (select 1 from public.invoice_lines l where l.id = x and l.invoice_id = _inv.id) limit 1;
    if found then
      raise exception 'line_not_of_invoice:%', _bad using errcode = 'P0001', hint = 'business_rule',
        detail = 'credit_note';
    end if;
    select x into _bad from unnest(_chosen) x where x <> all (_remaining) limit 1;
    if found then
      raise exception 'line_already_credited:%', _bad using errcode = 'P0001', hint = 'business_rule',
        detail = 'credit_note';
    end if;
  end if;
  if cardinality(_chosen) = 0 then
    raise exception 'nothing_left_to_credit' using errcode = 'P0001', hint = 'business_rule', detail = 'credit_note';
  end if;
  if p_concept_code = '2' and cardinality(_chosen) < cardinality(_remaining) then
    raise exception 'annulment_incomplete:%', cardinality(_remaining) - cardinality(_chosen)
      using errcode = 'P0001', hint = 'business_rule', detail = 'credit_note';
  end if;

  -- the company's next number, under its counter's row lock, in this transaction: no gap, no twin
  insert into einv_private.credit_note_counters (company_id) values (_inv.company_id)
  on conflict (company_id) do nothing;
  update einv_private.credit_note_counters set next_number = next_number + 1
   where company_id = _inv.company_id
  returning next_number - 1 into _number;

  -- notes in error whose lines this one takes are replaced: discarded, their lines released
  for _old in
    select distinct n.id from public.credit_notes n
      join public.credit_note_lines c on c.credit_note_id = n.id
     where n.invoice_id = _inv.id and einv_private.credit_note_replaceable(n) and c.released_at is null
       and c.invoice_line_id = any (_chosen)
     order by n.id
  loop
    select * into _replaced from einv_private.document_of('credit_note', p_org_id, _old.id, true);
    _life := _replaced.life;
    -- cannot happen under the locks above; never guess
    if (_life.status = 'error' and (_life.submitted_attempt is null
                                    or _life.submitted_attempt = _life.refused_attempt)) is not true then
      raise exception 'line_already_credited:%', (select c.invoice_line_id from public.credit_note_lines c
          where c.credit_note_id = _old.id and c.released_at is null and c.invoice_line_id = any (_chosen) limit 1)
        using errcode = 'P0001', hint = 'business_rule', detail = 'credit_note';
    end if;
    _life.status := 'descartada';
    _life.last_message := 'replaced by a later credit note that credits its lines; it is not sent again';
    perform einv_private.write_lifecycle('credit_note', _old.id, _life);
    update public.credit_note_lines set released_at = now() where credit_note_id = _old.id and released_at is null;
    perform einv_private.log_event(p_org_id, 'credit_note', _old.id, 'credit_note_discarded', p_actor_id,
      jsonb_build_object('replaced_by', _id));
  end loop;

  insert into public.credit_notes (id, org_id, company_id, invoice_id, number, issue_date, issue_time,
    concept_code, reason, currency, subtotal, tax_total, total, environment, created_by)
  select _id, _inv.org_id, _inv.company_id, _inv.id,
         (select c.credit_note_prefix from public.companies c where c.id = _inv.company_id) || _number,
         _now::date, (to_char(_now, 'HH24:MI:SS') || '-05')::time(0) with time zone,
         p_concept_code, p_reason, _inv.currency,
         coalesce(sum(l.line_extension), 0), coalesce(sum(l.tax_amount), 0),
         coalesce(sum(l.line_extension + l.tax_amount), 0), _inv.environment, p_actor_id
    from public.invoice_lines l where l.id = any (_chosen);
  insert into public.credit_note_lines (credit_note_id, org_id, invoice_line_id, position, code, description,
    unit_code, quantity, unit_price, line_extension, tax_code, tax_rate, tax_amount)
  select _id, _inv.org_id, l.id, row_number() over (order by l.position), l.code, l.description, l.unit_code,
         l.quantity, l.unit_price, l.line_extension, l.tax_code, l.tax_rate, l.tax_amount
    from public.invoice_lines l where l.id = any (_chosen);

  perform einv_private.log_event(p_org_id, 'credit_note', _id, 'credit_note_created', p_actor_id,
    jsonb_build_object('invoice_id', _inv.id, 'concept_code', p_concept_code,
                       'lines', cardinality(_chosen)));
  -- claimed at once: nobody ever sees the note unclaimed
  return public.einv_document_claim(p_org_id, 'credit_note', jsonb_build_array(_id), false, p_actor_id,
                                    p_lease_seconds) -> 0;
end
$$;

revoke all on function public.einv_credit_note_create(uuid, uuid, text, text, jsonb, uuid, integer)
  from public, anon, authenticated, service_role;
grant execute on function public.einv_credit_note_create(uuid, uuid, text, text, jsonb, uuid, integer)
  to service_role;
