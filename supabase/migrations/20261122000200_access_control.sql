-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Access control: row level security, column grants, and the helpers policies call.
--
-- Supabase grants every API role everything on new `public` objects, so this file starts by taking
-- it all back and then grants exactly what each role needs:
--   anon           nothing.
--   authenticated  reads its organizations' rows (but not a company's technical key); admin and
--                  operador write invoice drafts (draft columns only, while `pendiente`); admin
--                  edits its companies.
--   service_role   reads; writes only through the database API functions (next migration).
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

revoke all on public.organizations, public.memberships, public.companies, public.invoices,
  public.invoice_lines, public.events from anon, authenticated, service_role;

-- Sequences too: the default grants let any role `setval` the events' identity sequence to its
-- maximum, after which every insert fails for every organization (and setval survives a rollback).
-- No API role needs a sequence: rows are inserted by members (uuid keys) or by the database API's
-- security definer functions, which use the owner's rights. The default privilege for sequences
-- created later in `public` is withdrawn as well, so a new identity column starts closed.
revoke all on all sequences in schema public from anon, authenticated, service_role;
alter default privileges in schema public revoke all on sequences from anon, authenticated, service_role;

-- ─── helpers ─────────────────────────────────────────────────────────────────────────────────────
-- The caller's organizations (optionally: where the caller holds one of `p_roles`). Security definer,
-- so policies can consult memberships without recursing into its own RLS. Policies test
-- `org_id in (select …)`: an uncorrelated subquery, so it runs once per query, not once per row.
create function einv_private.my_org_ids(p_roles text[] default null) returns setof uuid
language sql stable security definer set search_path = '' as $$
  select m.org_id from public.memberships m
   where m.user_id = auth.uid() and (p_roles is null or m.role = any (p_roles))
$$;

revoke all on all functions in schema einv_private from public;
grant usage on schema einv_private to authenticated, service_role;
grant execute on function einv_private.my_org_ids(text[]) to authenticated, service_role;

-- Whether the invoice is one of habilitación's test set (…_test_sets.sql): its lines are the service's.
create function einv_private.is_test_set_invoice(p_invoice_id uuid) returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (select 1 from public.invoices i where i.id = p_invoice_id and i.test_set_id is not null)
$$;
revoke all on function einv_private.is_test_set_invoice(uuid) from public;
grant execute on function einv_private.is_test_set_invoice(uuid) to authenticated, service_role;

-- ─── organizations, memberships ──────────────────────────────────────────────────────────────────
alter table public.organizations enable row level security;
alter table public.memberships enable row level security;
grant select on public.organizations, public.memberships to authenticated, service_role;

create policy "members read their organizations" on public.organizations
  for select to authenticated using (id in (select einv_private.my_org_ids()));

create policy "members read their organization's memberships" on public.memberships
  for select to authenticated using (org_id in (select einv_private.my_org_ids()));

-- ─── companies ───────────────────────────────────────────────────────────────────────────────────
alter table public.companies enable row level security;
-- Every column but `technical_key`, the DIAN technical key: a secret of the issuer that only the
-- service reads (admins may still set it through the insert and update grants below, without
-- reading it back). Column grants: a column added later stays hidden until a migration grants it.
-- No insert grant here or below includes `id`: the database generates every id, so an insert can
-- never probe whether an id (another organization's row) exists through a duplicate-key error; the
-- web app reads the new id back (`insert … returning`, supabase-js `.insert(…).select()`).
grant select on public.companies to service_role;
grant select (id, org_id, nit, check_digit, legal_name, trade_name, person_type, tax_regime, tax_scheme,
  fiscal_responsibilities, address, city_code, city_name, department_code, department_name, postal_zone,
  country_code, email, phone, invoice_prefix, resolution_number, resolution_date, resolution_from, resolution_to,
  resolution_valid_until, active_environment, created_at, updated_at) on public.companies to authenticated;
grant insert (org_id, nit, check_digit, legal_name, trade_name, person_type, tax_regime, tax_scheme,
  fiscal_responsibilities, address, city_code, city_name, department_code, department_name, postal_zone,
  country_code, email, phone, invoice_prefix, resolution_number, resolution_date, resolution_from, resolution_to,
  resolution_valid_until, technical_key, active_environment) on public.companies to authenticated;
grant update (nit, check_digit, legal_name, trade_name, person_type, tax_regime, tax_scheme,
  fiscal_responsibilities, address, city_code, city_name, department_code, department_name, postal_zone,
  country_code, email, phone, invoice_prefix, resolution_number, resolution_date, resolution_from, resolution_to,
  resolution_valid_until, technical_key, active_environment) on public.companies to authenticated;

create policy "members read their organization's companies" on public.companies
  for select to authenticated using (org_id in (select einv_private.my_org_ids()));

create policy "admins create companies in their organization" on public.companies
  for insert to authenticated with check (org_id in (select einv_private.my_org_ids(array['admin'])));

create policy "admins edit their organization's companies" on public.companies
  for update to authenticated
  using (org_id in (select einv_private.my_org_ids(array['admin'])))
  with check (org_id in (select einv_private.my_org_ids(array['admin'])));

-- ─── invoices ────────────────────────────────────────────────────────────────────────────────────
alter table public.invoices enable row level security;
grant select on public.invoices to authenticated, service_role;
-- Draft columns only: status, authority code, provider reference and the other fiscal columns are
-- absent, so no PostgREST call can set them; nor can it set an amount the database computes
-- (subtotal, tax_total, total, the other totals and their lists: …_amounts.sql), only the inputs.
grant insert (org_id, company_id, number, issue_date, issue_time, due_date, currency, exchange_rate,
  exchange_rate_date, payment_form, payment_method, notes, buyer_id_type, buyer_id_number, buyer_check_digit,
  buyer_person_type, buyer_fiscal_responsibilities, buyer_tax_scheme, buyer_name, buyer_email, buyer_address,
  buyer_city_code, buyer_city_name, buyer_department_code, buyer_department_name, buyer_postal_zone,
  buyer_country_code, buyer_phone, allowance_charges, withholdings, prepayments)
  on public.invoices to authenticated;
grant update (company_id, number, issue_date, issue_time, due_date, currency, exchange_rate, exchange_rate_date,
  payment_form, payment_method, notes, buyer_id_type, buyer_id_number, buyer_check_digit, buyer_person_type,
  buyer_fiscal_responsibilities, buyer_tax_scheme, buyer_name, buyer_email, buyer_address, buyer_city_code,
  buyer_city_name, buyer_department_code, buyer_department_name, buyer_postal_zone, buyer_country_code,
  buyer_phone, allowance_charges, withholdings, prepayments)
  on public.invoices to authenticated;
grant delete on public.invoices to authenticated;

create policy "members read their organization's invoices" on public.invoices
  for select to authenticated using (org_id in (select einv_private.my_org_ids()));

create policy "admins and operadores create draft invoices" on public.invoices
  for insert to authenticated
  with check (org_id in (select einv_private.my_org_ids(array['admin', 'operador'])) and status = 'pendiente');

-- a draft of habilitación's test set (`test_set_id`, …_test_sets.sql) is the service's: its number,
-- buyer and lines are the set's, never a member's to edit or delete
create policy "admins and operadores edit draft invoices" on public.invoices
  for update to authenticated
  using (org_id in (select einv_private.my_org_ids(array['admin', 'operador'])) and status = 'pendiente'
         and test_set_id is null)
  with check (org_id in (select einv_private.my_org_ids(array['admin', 'operador'])) and status = 'pendiente');

create policy "admins and operadores delete draft invoices" on public.invoices
  for delete to authenticated
  using (org_id in (select einv_private.my_org_ids(array['admin', 'operador'])) and status = 'pendiente'
         and test_set_id is null);

-- ─── invoice lines ───────────────────────────────────────────────────────────────────────────────
alter table public.invoice_lines enable row level security;
grant select on public.invoice_lines to authenticated, service_role;
-- the inputs only: the line's amounts (line_extension, tax_amount, price_amount and the lists of
-- what each tax and discount comes to) are the database's (…_amounts.sql)
grant insert (invoice_id, org_id, position, code, description, unit_code, quantity, unit_price, taxes,
  allowance_charges) on public.invoice_lines to authenticated;
grant update (position, code, description, unit_code, quantity, unit_price, taxes, allowance_charges)
  on public.invoice_lines to authenticated;
grant delete on public.invoice_lines to authenticated;

create policy "members read their organization's invoice lines" on public.invoice_lines
  for select to authenticated using (org_id in (select einv_private.my_org_ids()));

create policy "admins and operadores write lines of draft invoices" on public.invoice_lines
  for all to authenticated
  using (org_id in (select einv_private.my_org_ids(array['admin', 'operador']))
         and not einv_private.is_test_set_invoice(invoice_id))
  with check (org_id in (select einv_private.my_org_ids(array['admin', 'operador']))
              and not einv_private.is_test_set_invoice(invoice_id));

-- ─── events ──────────────────────────────────────────────────────────────────────────────────────
alter table public.events enable row level security;
grant select on public.events to authenticated, service_role;

-- A document's events are every member's to read; a credential's (who tested or saved which url, the
-- key's hint) only its organization's admins', who manage credentials.
create policy "members read their organization's document events" on public.events
  for select to authenticated
  using (document_type <> 'credential' and org_id in (select einv_private.my_org_ids()));

create policy "admins read their organization's credential events" on public.events
  for select to authenticated
  using (document_type = 'credential' and org_id in (select einv_private.my_org_ids(array['admin'])));
