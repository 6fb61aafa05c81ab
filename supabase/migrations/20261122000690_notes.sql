-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Notes of an invoice: what every kind of note shares (docs/adr/0001).
--
-- A note corrects an invoice the authority accepted: a credit note (…_credit_notes.sql) takes away
-- from it, a debit note (…_debit_notes.sql) adds to it. Every note is written only by the service,
-- through its kind's create function, which calls what is here in this order:
--   1. `note_invoice` locks the invoice (`for no key update`: the notes of one invoice are made one
--      at a time, so what a note reads of its invoice and of the notes before it cannot change
--      before it is written) and refuses an invoice that is not accepted;
--   2. `next_note_number` takes the next number of the company's sequence of that kind, under its
--      counter's row lock, in the same transaction: no gap, no twin;
--   3. the kind writes the note and its lines, issued at the service's instant (its date and time
--      in Colombia: `bogota_date`, `bogota_time`, as the claim stamps a document it first sends;
--      docs/adr/0010);
--   4. `note_created` records the creation and claims the note for sending at once, so it is
--      never seen unclaimed.
-- A note's payload carries its invoice's buyer and the invoice itself as the billing reference
-- (number, date, CUFE), and the company's software PIN, its CUDE's secret, which members can set but
-- never read, like the technical key (`note_of_invoice`). Its content — what its lines say and how
-- its amounts come about — is its kind's.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

-- ─── the company: its software PIN ───────────────────────────────────────────────────────────────
alter table public.companies
  -- DIAN Software-PIN: the CUDE's secret. Hidden from members (no select grant), like technical_key.
  add column software_pin text check (length(software_pin) between 1 and 200);
grant insert (software_pin), update (software_pin) on public.companies to authenticated;

-- ─── numbering ───────────────────────────────────────────────────────────────────────────────────
-- The next consecutive number of each company's notes of each kind; taken with a row lock. The
-- notes of a habilitación test set's invoices (…_test_sets.sql) have a sequence of their own, from
-- 994000001, so they never take a number of the company's own notes.
create table einv_private.note_counters (
  company_id uuid not null references public.companies (id) on delete cascade,
  kind text not null references einv_private.document_kinds (kind),
  test_set boolean not null default false,
  next_number bigint not null default 1 check (next_number between 1 and 999999999999999),
  primary key (company_id, kind, test_set)
);
revoke all on einv_private.note_counters from public, anon, authenticated, service_role;

-- The company's next number of notes of `p_kind`, in the caller's transaction: the counter's row
-- stays locked until it ends, so concurrent notes of one company take consecutive numbers and a
-- rolled-back note gives its number back.
-- `p_test_set`: of a test set's sequence (see above; `invoice` is a test set's invoices' own).
create function einv_private.next_note_number(p_company_id uuid, p_kind text, p_test_set boolean)
returns bigint
language plpgsql set search_path = '' as $$
declare
  _number bigint;
begin
  insert into einv_private.note_counters (company_id, kind, test_set, next_number)
  values (p_company_id, p_kind, p_test_set, case when p_test_set then 994000001 else 1 end)
  on conflict (company_id, kind, test_set) do nothing;
  update einv_private.note_counters set next_number = next_number + 1
   where company_id = p_company_id and kind = p_kind and test_set = p_test_set
  returning next_number - 1 into _number;
  return _number;
end
$$;

-- ─── the invoice a note is of ────────────────────────────────────────────────────────────────────
-- The org's invoice `p_invoice_id`, locked for the note of kind `p_kind` being made; raises
-- not_found, invoice_in_progress (invalid_state; it passes by itself) or invoice_not_accepted:<status>
-- (invalid_state), with the note's kind in the detail.
create function einv_private.note_invoice(p_org_id uuid, p_invoice_id uuid, p_kind text) returns public.invoices
language plpgsql set search_path = '' as $$
declare
  _inv public.invoices;
begin
  select * into _inv from public.invoices where id = p_invoice_id and org_id = p_org_id for no key update;
  if not found then
    raise exception 'not_found' using errcode = 'P0001', hint = 'not_found', detail = 'invoice';
  end if;
  if _inv.status = 'en_proceso' then
    raise exception 'invoice_in_progress' using errcode = 'P0001', hint = 'invalid_state', detail = p_kind;
  end if;
  if _inv.status <> einv_private.accepted_status('invoice') then
    raise exception 'invoice_not_accepted:%', _inv.status using errcode = 'P0001', hint = 'invalid_state',
      detail = p_kind;
  end if;
  return _inv;
end
$$;

-- ─── when a note is issued ───────────────────────────────────────────────────────────────────────
-- The service's instant as Colombia's civil date and time (America/Bogota, `-05`), to the second:
-- what the claim stamps a document it first sends with (…_lifecycle.sql), written by the create
-- functions so that a note is never stored without it.
create function einv_private.bogota_date(p_at timestamptz) returns date
language sql immutable set search_path = '' as $$
  select (date_trunc('second', p_at) at time zone 'America/Bogota')::date
$$;
create function einv_private.bogota_time(p_at timestamptz) returns time(0) with time zone
language sql immutable set search_path = '' as $$
  select (date_trunc('second', p_at)::time(0) with time zone) at time zone 'America/Bogota'
$$;

-- Whether a sent note's issue date and time may still move: only while nothing of it at the
-- authority can still be accepted (in error or left in progress, every attempt refused); the claim
-- then issues it anew on a later day (…_lifecycle.sql, docs/adr/0010). The notes' freezes ask it.
create function einv_private.note_restampable(p_status text, p_submitted integer, p_refused integer)
returns boolean
language sql immutable set search_path = '' as $$
  select p_status in ('error', 'en_proceso') and (p_submitted is null or p_submitted is not distinct from p_refused)
$$;

-- Records a new note's creation (`<kind>_created`, with its invoice and `p_data`) and claims it for
-- sending at once (the claim's entry: action `send`, with the payload).
create function einv_private.note_created(
  p_org_id uuid, p_kind text, p_id uuid, p_invoice_id uuid, p_data jsonb, p_actor_id uuid,
  p_lease_seconds integer, p_issued_at timestamptz
) returns jsonb
language plpgsql set search_path = '' as $$
begin
  perform einv_private.log_event(p_org_id, p_kind, p_id, p_kind || '_created', p_actor_id,
    jsonb_build_object('invoice_id', p_invoice_id) || p_data);
  -- claimed at once: nobody ever sees the note unclaimed
  return public.einv_document_claim(p_org_id, p_kind, jsonb_build_array(p_id), false, p_actor_id,
                                    p_lease_seconds, p_issued_at) -> 0;
end
$$;

-- ─── what every note's payload takes from its invoice and company ───────────────────────────────
-- The invoice's payment and buyer (the note is the same buyer's), the invoice as the billing
-- reference (number, issue date, CUFE), and `p_issuer` with the CUDE's secret, the company's
-- software PIN, read live. A positive list, like every payload.
create function einv_private.note_of_invoice(p_invoice_id uuid, p_company_id uuid, p_issuer jsonb) returns jsonb
language plpgsql stable set search_path = '' as $$
begin
  return (
    select jsonb_build_object(
             'payment_form', i.payment_form, 'payment_method', i.payment_method, 'due_date', i.due_date,
             'buyer_id_type', i.buyer_id_type, 'buyer_id_number', i.buyer_id_number,
             'buyer_check_digit', i.buyer_check_digit,
             'buyer_person_type', einv_private.person_type(i.buyer_person_type, i.buyer_id_type),
             'buyer_fiscal_responsibilities', i.buyer_fiscal_responsibilities,
             'buyer_tax_scheme', i.buyer_tax_scheme, 'buyer_name', i.buyer_name,
             'buyer_email', i.buyer_email, 'buyer_address', i.buyer_address,
             'buyer_city_code', i.buyer_city_code, 'buyer_city_name', i.buyer_city_name,
             'buyer_department_code', i.buyer_department_code, 'buyer_department_name', i.buyer_department_name,
             'buyer_postal_zone', i.buyer_postal_zone, 'buyer_country_code', i.buyer_country_code,
             'buyer_phone', i.buyer_phone,
             'billing_reference', jsonb_build_object(
               'number', i.number, 'issue_date', i.issue_date, 'authority_code', i.authority_code),
             'company', p_issuer || jsonb_build_object('software_pin',
               (select c.software_pin from public.companies c where c.id = p_company_id)))
      from public.invoices i
     where i.id = p_invoice_id);
end
$$;

revoke all on function einv_private.next_note_number(uuid, text, boolean),
  einv_private.note_invoice(uuid, uuid, text), einv_private.bogota_date(timestamptz),
  einv_private.bogota_time(timestamptz), einv_private.note_restampable(text, integer, integer),
  einv_private.note_created(uuid, text, uuid, uuid, jsonb, uuid, integer, timestamptz),
  einv_private.note_of_invoice(uuid, uuid, jsonb)
  from public;
