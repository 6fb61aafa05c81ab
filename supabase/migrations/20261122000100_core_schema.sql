-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Core schema: organizations, memberships, companies, invoices, invoice lines, events.
--
-- Tables live in `public` because the web app writes invoice drafts through PostgREST. Helpers that
-- policies and triggers call live in `einv_private`, a schema the API does not expose.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

create schema if not exists einv_private;
revoke all on schema einv_private from public;

-- ─── organizations and memberships ───────────────────────────────────────────────────────────────
create table public.organizations (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(name) between 1 and 200),
  created_at timestamptz not null default now()
);

create table public.memberships (
  org_id uuid not null references public.organizations (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  -- admin: everything; operador: documents; lector: read only.
  role text not null check (role in ('admin', 'operador', 'lector')),
  created_at timestamptz not null default now(),
  primary key (org_id, user_id)
);
create index memberships_user_id_idx on public.memberships (user_id);

-- Every free-text column has a length limit, and an invoice at most 1,000 lines (positions 1–1000,
-- unique per invoice): what a member writes is rendered into PDFs on the event loop that serves
-- every tenant, so its size must be bounded here, where no client can get around it.

-- ─── companies (the issuers) ─────────────────────────────────────────────────────────────────────
create table public.companies (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references public.organizations (id) on delete cascade,
  -- DIAN issuer identity
  nit text not null check (nit ~ '^[0-9]{5,15}$'),
  check_digit text not null check (check_digit ~ '^[0-9]$'),
  legal_name text not null check (length(legal_name) between 1 and 450),
  trade_name text check (length(trade_name) <= 450),
  person_type text not null default '1' check (person_type in ('1', '2')), -- 1 jurídica, 2 natural
  tax_regime text not null default '48' check (tax_regime in ('48', '49')), -- 48 IVA, 49 no IVA
  -- the party's TaxScheme (Anexo 1.9 table 13.2.6.2): 01 IVA, 04 INC, ZA IVA e INC, ZZ no aplica;
  -- responsible for IVA (01, ZA) exactly when tax_regime says 48
  tax_scheme text not null default '01' check (tax_scheme in ('01', '04', 'ZA', 'ZZ')),
  -- TaxLevelCode: only the five codes DIAN accepts (FAJ26 refuses the rest of the RUT's list)
  fiscal_responsibilities text[] not null default array['R-99-PN']
    constraint companies_fiscal_responsibilities_listed
    check (cardinality(fiscal_responsibilities) between 1 and 5
           and fiscal_responsibilities <@ array['O-13', 'O-15', 'O-23', 'O-47', 'R-99-PN']),
  address text not null check (length(address) between 1 and 300),
  city_code text not null check (city_code ~ '^[0-9]{5}$'), -- DIVIPOLA municipality
  city_name text not null check (length(city_name) between 1 and 100),
  department_code text not null check (department_code ~ '^[0-9]{2}$'),
  department_name text not null check (length(department_name) between 1 and 100),
  postal_zone text check (postal_zone ~ '^[0-9]{6}$'),
  country_code text not null default 'CO' check (country_code ~ '^[A-Z]{2}$'),
  email text check (length(email) <= 320),
  phone text check (length(phone) <= 50),
  -- DIAN numbering resolution
  invoice_prefix text not null default '' check (invoice_prefix ~ '^[A-Z0-9]{0,4}$'),
  resolution_number text check (length(resolution_number) <= 50),
  resolution_date date,
  resolution_from bigint,
  resolution_to bigint,
  resolution_valid_until date,
  technical_key text check (length(technical_key) <= 200),
  active_environment text not null default 'uat' check (active_environment in ('uat', 'prd')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (org_id, nit),
  unique (id, org_id),
  -- DIVIPOLA: a municipality's code starts with its department's (11001 is in 11, Bogotá)
  constraint companies_city_in_department check (left(city_code, 2) = department_code),
  constraint companies_tax_scheme_matches_regime check ((tax_regime = '48') = (tax_scheme in ('01', 'ZA'))),
  -- the issuer is in Colombia (FAJ16)
  constraint companies_in_colombia check (country_code = 'CO')
);
create index companies_org_id_idx on public.companies (org_id);

-- DIAN's check digit (DV) of a NIT: weights 3, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71
-- from the rightmost digit, r = Σ mod 11, DV = r when r ≤ 1, else 11 − r (DIAN's own 800197268 → 4).
-- shared/co/check-digit.ts computes the same; tests/db/check-digit.test.ts holds them together.
-- Null for anything that is not 1 to 15 digits.
create function einv_private.nit_check_digit(p_nit text) returns text
language sql immutable parallel safe set search_path = '' as $$
  select (case when r <= 1 then r else 11 - r end)::text
    from (select sum(substr(reverse(p_nit), i, 1)::int
                     * (array[3, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71])[i]) % 11 as r
            from generate_series(1, length(p_nit)) as i
           where p_nit ~ '^[0-9]{1,15}$') as weighted
   where r is not null
$$;

-- DIAN rejects a document whose issuer carries a wrong DV (FAJ24): such a company is never stored,
-- whoever writes it (PostgREST inserts included), and the message names the digit expected.
-- (security definer: members write companies, but may call no private function themselves)
create function einv_private.company_check_digit() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  _expected text := einv_private.nit_check_digit(new.nit);
begin
  if new.check_digit is distinct from _expected then
    raise exception 'check_digit % is wrong for NIT %: its DIAN check digit is %', new.check_digit, new.nit, _expected
      using errcode = '23514', constraint = 'companies_check_digit_matches_nit';
  end if;
  return new;
end
$$;
create trigger companies_check_digit before insert or update of nit, check_digit on public.companies
  for each row execute function einv_private.company_check_digit();

-- ─── invoices ────────────────────────────────────────────────────────────────────────────────────
create table public.invoices (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references public.organizations (id) on delete cascade,
  company_id uuid not null,
  -- draft: written by the web app while the invoice is `pendiente`
  number text not null check (number ~ '^[A-Z0-9]{0,4}[0-9]{1,15}$'),
  -- when it is issued, in Colombia's time: a draft's values are a preview, which the claim that first
  -- sends it replaces with the service's instant (…_lifecycle.sql, docs/adr/0010); the default is
  -- that preview now in Bogotá (`current_date` and `current_time` are the session's zone: UTC on Supabase)
  -- (truncated to the second first, as the claim does: rounded, 23:59:59.6 would read 00:00:00 of
  -- the day before)
  issue_date date not null default (date_trunc('second', now()) at time zone 'America/Bogota')::date,
  issue_time time(0) with time zone not null
    default ((date_trunc('second', now())::time(0) with time zone) at time zone 'America/Bogota'),
  due_date date,
  -- the deal's currency: prices and amounts the web app writes are in it (…_amounts.sql), and
  -- what the authority is told is in pesos at `exchange_rate` pesos per unit (CalculationRate), of
  -- `exchange_rate_date`; a COP invoice has neither
  currency text not null default 'COP' check (currency ~ '^[A-Z]{3}$'),
  exchange_rate numeric(16, 6) check (exchange_rate > 0 and exchange_rate < 1000000000),
  exchange_rate_date date check (exchange_rate_date between date '2000-01-01' and date '2099-12-31'),
  payment_form text not null default '1' check (payment_form in ('1', '2')), -- 1 contado, 2 crédito
  -- DIAN payment means code (10 = efectivo): the union of Odoo's (l10n_co_edi.payment.option.csv)
  -- and Vendix's lists of DIAN's MediosPago (they differ at 70/71/72/76)
  payment_method text not null default '10' check (payment_method = any (array[
    '1', '2', '3', '4', '5', '6', '7', '9', '10', '11', '12', '13', '14', '15', '16', '17', '18', '19',
    '20', '21', '23', '24', '25', '26', '31', '32', '33', '34', '35', '36', '37', '38', '39', '40', '41',
    '42', '43', '44', '45', '46', '47', '48', '49', '50', '51', '52', '53', '60', '61', '62', '63', '64',
    '65', '66', '67', '70', '71', '72', '74', '75', '76', '77', '78', '91', '92', '93', '94', '95', '96',
    '97', 'ZZZ'])),
  notes text check (length(notes) <= 5000),
  -- the buyer's fiscal profile (Anexo 1.9 §13.2, brief-business §9), from data, never assumed:
  -- DIAN identity document type (11 registro civil … 31 NIT … 50 NIT de otro país, 91 NUIP)
  buyer_id_type text not null default '13'
    check (buyer_id_type = any (array['11', '12', '13', '21', '22', '31', '41', '42', '47', '48', '50', '91'])),
  buyer_id_number text check (length(buyer_id_number) <= 20),
  buyer_check_digit text check (length(buyer_check_digit) <= 1),
  -- AdditionalAccountID: 1 persona jurídica, 2 natural; when not given (null), a NIT (31, 50) is read
  -- as a company and anything else as a person (einv_private.person_type): a natural person with a
  -- NIT says 2
  buyer_person_type text check (buyer_person_type in ('1', '2')),
  -- TaxLevelCode (only the five codes FAJ26/FAK26 accept) and TaxScheme (01, 04, ZA, ZZ), as the
  -- buyer's RUT says; by default not responsible (R-99-PN, ZZ), DIAN's final consumer's profile
  buyer_fiscal_responsibilities text[] not null default array['R-99-PN']
    check (cardinality(buyer_fiscal_responsibilities) between 1 and 5
           and buyer_fiscal_responsibilities <@ array['O-13', 'O-15', 'O-23', 'O-47', 'R-99-PN']),
  buyer_tax_scheme text not null default 'ZZ' check (buyer_tax_scheme in ('01', '04', 'ZA', 'ZZ')),
  buyer_name text check (length(buyer_name) <= 450),
  buyer_email text check (length(buyer_email) <= 320),
  buyer_address text check (length(buyer_address) <= 300),
  -- DIVIPOLA municipality and department (in Colombia; Odoo writes 00000/00 abroad), ISO 3166 country
  buyer_city_code text check (buyer_city_code ~ '^[0-9]{5}$'),
  buyer_city_name text check (length(buyer_city_name) <= 100),
  buyer_department_code text check (buyer_department_code ~ '^[0-9]{2}$'),
  buyer_department_name text check (length(buyer_department_name) <= 100),
  buyer_postal_zone text check (buyer_postal_zone ~ '^[0-9A-Za-z][0-9A-Za-z -]{1,9}$'),
  buyer_country_code text not null default 'CO' check (buyer_country_code ~ '^[A-Z]{2}$'),
  buyer_phone text check (length(buyer_phone) <= 50),
  -- the document's own discounts and charges, withholdings and advances: inputs, each a JSON list
  -- read, bounded and refused field by field by einv_private.document_amounts (…_amounts.sql)
  allowance_charges jsonb not null default '[]'
    check (jsonb_typeof(allowance_charges) = 'array' and jsonb_array_length(allowance_charges) <= 20),
  withholdings jsonb not null default '[]'
    check (jsonb_typeof(withholdings) = 'array' and jsonb_array_length(withholdings) <= 3),
  prepayments jsonb not null default '[]'
    check (jsonb_typeof(prepayments) = 'array' and jsonb_array_length(prepayments) <= 20),
  -- ── computed from the inputs by the database (…_amounts.sql); no member writes them ──
  -- in pesos, as the authority reads them (LegalMonetaryTotal): LineExtensionAmount, the sum of
  -- every TaxTotal, PayableAmount (TaxInclusive − AllowanceTotal + ChargeTotal), the others by
  -- their DIAN names; net_payable_amount is what the buyer still pays: payable − withholdings −
  -- advances. A draft's payable may be below zero while its lines are being written (a discount
  -- written before them); /transmit refuses it then.
  subtotal numeric(18, 2) not null default 0 check (subtotal >= 0),
  tax_total numeric(18, 2) not null default 0 check (tax_total >= 0),
  total numeric(18, 2) not null default 0,
  tax_exclusive_amount numeric(18, 2) not null default 0,
  tax_inclusive_amount numeric(18, 2) not null default 0,
  allowance_total_amount numeric(18, 2) not null default 0,
  charge_total_amount numeric(18, 2) not null default 0,
  prepaid_amount numeric(18, 2) not null default 0,
  withholding_total_amount numeric(18, 2) not null default 0,
  net_payable_amount numeric(18, 2) not null default 0,
  -- per scheme and rate: [{ code, name, tax_amount, subtotals: [{ percent | per_unit_amount, …,
  -- taxable_amount | measure, tax_amount }] }], IVA, INC and ICA first
  tax_totals jsonb not null default '[]',
  withholding_totals jsonb not null default '[]',
  -- the inputs above with what each comes to, in pesos
  allowance_charge_amounts jsonb not null default '[]',
  prepayment_amounts jsonb not null default '[]',
  -- the same totals in the deal's currency (for the PDF), when it is not COP
  currency_totals jsonb,
  -- what /transmit will refuse about them while they stand: problems only a whole draft shows (a
  -- discount above the total, …), which its writes in steps are not refused for
  problems text[] not null default '{}',
  -- ── the fiscal-document lifecycle block (einv_private.lifecycle; every kind's table has it) ──
  -- written only by the service, through the lifecycle functions (…_lifecycle.sql)
  status text not null default 'pendiente'
    check (status in ('pendiente', 'en_proceso', 'transmitida', 'error')),
  authority_code text, -- CUFE
  qr_text text,
  provider_reference text,
  environment text check (environment in ('uat', 'prd')),
  -- the last outcome: the API's sentence, its result code (shared/kernel/result-codes.ts),
  -- and the authority's own message and rules `[{ rule, kind, message }]`, as it wrote them
  last_message text,
  last_code text check (last_code ~ '^[a-z_]{1,40}$'),
  authority_message text,
  authority_rules jsonb check (jsonb_typeof(authority_rules) = 'array'),
  attempt_count integer not null default 0 check (attempt_count >= 0),
  -- the attempt whose submit may have reached the provider; its idempotency key is reused on resend
  submitted_attempt integer,
  -- the attempt the provider definitely did not accept (it rejected it, or nothing reached it): while
  -- it equals submitted_attempt, nothing of ours at the provider can still be accepted
  refused_attempt integer,
  -- while set and in the future, a transmission holds the document
  lease_until timestamptz,
  -- the issuer (company row) as it was when the document was first claimed
  issuer_snapshot jsonb,
  claimed_at timestamptz,
  transmitted_at timestamptz,
  status_checked_at timestamptz,
  -- ── end of the lifecycle block ──
  -- a habilitación test set's invoice (DIAN's TestSetId), written only by the service
  -- (…_test_sets.sql); its notes are the set's too
  test_set_id text check (test_set_id ~ '^[0-9A-Za-z-]{1,64}$'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (company_id, number),
  unique (id, org_id),
  foreign key (company_id, org_id) references public.companies (id, org_id),
  -- a foreign currency is declared with its rate to COP and the rate's date (FAR06, FAR07); a COP
  -- invoice has neither
  constraint invoices_exchange_rate_with_currency
    check ((currency = 'COP') = (exchange_rate is null) and (currency = 'COP') = (exchange_rate_date is null)),
  -- crédito needs the date it is due (PaymentDueDate; DAN04 in Vendix's reading)
  constraint invoices_credit_needs_due_date check (payment_form = '1' or due_date is not null),
  -- DIVIPOLA: a Colombian municipality's code starts with its department's
  constraint invoices_buyer_city_in_department
    check (buyer_country_code <> 'CO' or left(buyer_city_code, 2) = buyer_department_code)
);
create index invoices_org_id_status_idx on public.invoices (org_id, status);
-- No index of its own on `company_id`, nor on invoice_lines' `invoice_id`: the leading column of a
-- unique constraint serves those lookups and the foreign keys' checks as well, and every lifecycle
-- write changes `status`, so it is never a HOT update and each index more is a page read and a page
-- write more per claim, per record and per reconciled document.

create table public.invoice_lines (
  id uuid primary key default gen_random_uuid(),
  invoice_id uuid not null,
  org_id uuid not null,
  -- 1 to 1000 and unique per invoice: an invoice has at most 1,000 lines
  position integer not null check (position between 1 and 1000),
  code text check (length(code) <= 60),
  description text not null check (length(description) between 1 and 1000),
  unit_code text not null default '94' check (length(unit_code) between 1 and 10), -- UN/ECE rec 20 (94 = unit)
  quantity numeric(18, 6) not null check (quantity > 0),
  -- in the invoice's currency, up to 6 decimals (PriceAmount); kept with at least 2
  unit_price numeric not null check (unit_price >= 0 and unit_price < 1000000000000 and scale(unit_price) <= 6),
  -- the line's taxes, any number from DIAN's list, one per scheme: [{ code, percent }] or, per unit,
  -- [{ code, per_unit_amount, per_quantity?, unit_measure?, measure_unit_code? }]; none = excluded
  -- ("excluido"), IVA at 0 % = exempt ("exento"); and its discounts and charges: [{ charge,
  -- reason_code?, reason?, percent | amount }]. Inputs, read field by field by
  -- einv_private.line_amounts (…_amounts.sql)
  taxes jsonb not null default '[]' check (jsonb_typeof(taxes) = 'array' and jsonb_array_length(taxes) <= 10),
  allowance_charges jsonb not null default '[]'
    check (jsonb_typeof(allowance_charges) = 'array' and jsonb_array_length(allowance_charges) <= 10),
  -- ── computed from the inputs and the invoice's exchange rate (…_amounts.sql); no member writes them ──
  -- in pesos: the unit price (6 decimals), quantity × price − discounts + charges (LineExtensionAmount),
  -- the sum of its taxes, each tax ({ code, name, percent | per-unit fields, taxable_amount | measure,
  -- tax_amount }) and each discount or charge with its amount
  price_amount numeric not null default 0,
  line_extension numeric(18, 2) not null default 0 check (line_extension >= 0),
  tax_amount numeric(18, 2) not null default 0 check (tax_amount >= 0),
  tax_subtotals jsonb not null default '[]',
  allowance_charge_amounts jsonb not null default '[]',
  -- the same in the deal's currency, when the invoice's is not COP (for the PDF)
  currency_amounts jsonb,
  created_at timestamptz not null default now(),
  unique (invoice_id, position),
  foreign key (invoice_id, org_id) references public.invoices (id, org_id) on delete cascade
);
create index invoice_lines_org_id_idx on public.invoice_lines (org_id);

-- ─── events (append-only audit trail) ────────────────────────────────────────────────────────────
create table public.events (
  id bigint generated always as identity primary key,
  org_id uuid not null references public.organizations (id) on delete cascade,
  document_type text not null check (document_type in ('invoice', 'credit_note', 'debit_note', 'credential')),
  document_id uuid not null,
  kind text not null,
  actor_id uuid,
  data jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);
create index events_org_id_document_id_idx on public.events (org_id, document_id);

-- ─── integrity triggers (apply to every role, the service included) ──────────────────────────────
create function einv_private.touch_updated_at() returns trigger
language plpgsql set search_path = '' as $$
begin
  new.updated_at := now();
  return new;
end
$$;

create trigger companies_touch before update on public.companies
  for each row execute function einv_private.touch_updated_at();
create trigger invoices_touch before update on public.invoices
  for each row execute function einv_private.touch_updated_at();

-- Once an invoice has left `pendiente`, what was sent to the authority can never change: every
-- column but the lifecycle block (…_lifecycle.sql) and updated_at — its content, its inputs and its
-- amounts. Spelled out, not compared as JSON (every lifecycle write passes here, ten times cheaper);
-- tests/db/access-control.test.ts fails when a column of the table is missing from it. Its issue
-- date and time move only while nothing of it at the authority can still be accepted (in error or
-- left in progress, every attempt refused): a resend on a later day is issued anew (docs/adr/0010).
create function einv_private.freeze_sent_invoice() returns trigger
language plpgsql set search_path = '' as $$
begin
  if tg_op = 'DELETE' then
    if old.status <> 'pendiente' then
      raise exception 'invoice % is % and cannot be deleted', old.id, old.status
        using errcode = 'P0001', hint = 'invalid_state';
    end if;
    return old;
  end if;
  if old.status <> 'pendiente' and (
    (old.id, old.org_id, old.company_id, old.number, old.due_date, old.currency,
     old.exchange_rate, old.exchange_rate_date, old.payment_form, old.payment_method, old.notes,
     old.buyer_id_type, old.buyer_id_number, old.buyer_check_digit, old.buyer_person_type,
     old.buyer_fiscal_responsibilities, old.buyer_tax_scheme, old.buyer_name, old.buyer_email,
     old.buyer_address, old.buyer_city_code, old.buyer_city_name, old.buyer_department_code,
     old.buyer_department_name, old.buyer_postal_zone, old.buyer_country_code, old.buyer_phone,
     old.allowance_charges, old.withholdings, old.prepayments, old.subtotal, old.tax_total, old.total,
     old.tax_exclusive_amount, old.tax_inclusive_amount, old.allowance_total_amount, old.charge_total_amount,
     old.prepaid_amount, old.withholding_total_amount, old.net_payable_amount, old.tax_totals,
     old.withholding_totals, old.allowance_charge_amounts, old.prepayment_amounts, old.currency_totals,
     old.problems, old.test_set_id, old.created_at)
    is distinct from
    (new.id, new.org_id, new.company_id, new.number, new.due_date, new.currency,
     new.exchange_rate, new.exchange_rate_date, new.payment_form, new.payment_method, new.notes,
     new.buyer_id_type, new.buyer_id_number, new.buyer_check_digit, new.buyer_person_type,
     new.buyer_fiscal_responsibilities, new.buyer_tax_scheme, new.buyer_name, new.buyer_email,
     new.buyer_address, new.buyer_city_code, new.buyer_city_name, new.buyer_department_code,
     new.buyer_department_name, new.buyer_postal_zone, new.buyer_country_code, new.buyer_phone,
     new.allowance_charges, new.withholdings, new.prepayments, new.subtotal, new.tax_total, new.total,
     new.tax_exclusive_amount, new.tax_inclusive_amount, new.allowance_total_amount, new.charge_total_amount,
     new.prepaid_amount, new.withholding_total_amount, new.net_payable_amount, new.tax_totals,
     new.withholding_totals, new.allowance_charge_amounts, new.prepayment_amounts, new.currency_totals,
     new.problems, new.test_set_id, new.created_at)
    or ((old.issue_date, old.issue_time) is distinct from (new.issue_date, new.issue_time)
        and not (old.status in ('error', 'en_proceso')
                 and (old.submitted_attempt is null or old.submitted_attempt is not distinct from old.refused_attempt)))
  ) then
    raise exception 'invoice % is % and its content can no longer change', old.id, old.status
      using errcode = 'P0001', hint = 'invalid_state';
  end if;
  return new;
end
$$;

create trigger invoices_freeze_sent before update or delete on public.invoices
  for each row execute function einv_private.freeze_sent_invoice();

-- Whether the caller may see every row anyway (a superuser, or a role that bypasses RLS: the service):
-- the role a request set (`set role`, as PostgREST does), else the session's. Read inside a security
-- definer function it still names the caller, not the owner.
create function einv_private.caller_bypasses_rls() returns boolean
language sql stable set search_path = '' as $$
  select coalesce(
    (select r.rolsuper or r.rolbypassrls from pg_catalog.pg_roles r
      where r.rolname = coalesce(nullif(current_setting('role', true), 'none'), session_user)),
    false)
$$;

-- Before anything else, a line's invoice must be one of the line's organization, and the caller a
-- member of it (or a role that sees every row): otherwise "not found", whether the invoice exists,
-- in which state and with how many lines. This trigger runs as its owner and before RLS and the
-- foreign key, so without this check a member of another org could learn an invoice's status, its
-- line count or its existence by writing a line for it, and lock its row.
--
-- Then the parent's status is read `for key share`, so that a line edit and a transmission claim (which locks
-- the invoice `for update`) serialise: an edit in flight holds the claim back until it commits, and
-- an edit that comes after a claim waits for it and then reads the committed status (`en_proceso`)
-- and fails. Without the lock, an edit could land after the claim had read the lines it sends.
-- Security definer: locking a row needs UPDATE privilege and would apply the invoices' update
-- policies (which hide sent invoices); the owner reads every parent, whoever edits the line.
-- When a line moves between invoices both parents are locked in one statement in id order, the
-- order the claim locks them in. (A single statement editing lines of several invoices still locks
-- their parents row by row; against a claim of the same invoices PostgreSQL may then detect a
-- deadlock and cancel one side with 40P01, which leaves nothing inconsistent.)
create function einv_private.freeze_sent_invoice_lines() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  _parents uuid[] := case
    when tg_op = 'INSERT' then array[new.invoice_id]
    when tg_op = 'DELETE' then array[old.invoice_id]
    else array[old.invoice_id, new.invoice_id]
  end;
  _status text;
begin
  -- the row's own invoice (a delete's was visible to the caller through RLS, or is being deleted);
  -- the caller's membership is asked first, so that whatever it answers (or raises) cannot depend
  -- on whether the invoice exists
  if tg_op <> 'DELETE' and not (
    (einv_private.caller_bypasses_rls() or new.org_id in (select einv_private.my_org_ids()))
    and exists (select 1 from public.invoices i where i.id = new.invoice_id and i.org_id = new.org_id)
  ) then
    raise exception 'invoice % not found', new.invoice_id using errcode = 'P0001', hint = 'not_found';
  end if;
  -- a cascade from deleting the invoice itself finds no parent row: let it through
  for _status in
    select i.status from public.invoices i where i.id = any (_parents) order by i.id for key share of i
  loop
    if _status <> 'pendiente' then
      raise exception 'the lines of a % invoice can no longer change', _status
        using errcode = 'P0001', hint = 'invalid_state';
    end if;
  end loop;
  return case when tg_op = 'DELETE' then old else new end;
end
$$;

create trigger invoice_lines_freeze_sent before insert or update or delete on public.invoice_lines
  for each row execute function einv_private.freeze_sent_invoice_lines();

create function einv_private.forbid_change() returns trigger
language plpgsql set search_path = '' as $$
begin
  raise exception '% is append-only', tg_table_name using errcode = 'P0001';
end
$$;

create trigger events_append_only before update or delete on public.events
  for each row execute function einv_private.forbid_change();
