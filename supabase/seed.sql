-- Demo data for local runs (`npm start`) and `supabase db reset`. Fixed ids, so that the printed
-- curl line and `.data/local.json` stay the same from run to run.
--
--   Demo Org (1111…):  admin@demo.test (admin), operador@demo.test (operador), lector@demo.test (lector)
--   Otra Org (2222…):  admin@otra.test (admin)
--   Invoices: 77 `pendiente` in Demo Org — 60 (SETP990000001–060), one retail (B2C) sale to DIAN's
--   final consumer (SETP990000401), 6 of its DIAN-direct company, Demo Directo DIAN
--   (SETP990000501–506), and one of each kind of content (withholdings, INC, bags, discounts and
--   charges, dollars, a person with a NIT) for each of its companies (SETP990000061–065,
--   SETP990000507–511) — and 3 in every other state; in Otra Org 5 `pendiente` and 2 in every other
--   state (the README says the same; tests/e2e/local-server-rest.test.ts holds it to these).
--   Credit notes: one in each state (emitida, error, en_proceso) on Demo Org's transmitted invoices,
--   and two (emitida, error) on Otra Org's.

insert into auth.users (id, email) values
  ('a0000000-0000-4000-8000-000000000001', 'admin@demo.test'),
  ('a0000000-0000-4000-8000-000000000002', 'operador@demo.test'),
  ('a0000000-0000-4000-8000-000000000003', 'lector@demo.test'),
  ('a0000000-0000-4000-8000-000000000004', 'admin@otra.test');

insert into public.organizations (id, name) values
  ('11111111-1111-4111-8111-111111111111', 'Demo Org'),
  ('22222222-2222-4222-8222-222222222222', 'Otra Org');

insert into public.memberships (org_id, user_id, role) values
  ('11111111-1111-4111-8111-111111111111', 'a0000000-0000-4000-8000-000000000001', 'admin'),
  ('11111111-1111-4111-8111-111111111111', 'a0000000-0000-4000-8000-000000000002', 'operador'),
  ('11111111-1111-4111-8111-111111111111', 'a0000000-0000-4000-8000-000000000003', 'lector'),
  ('22222222-2222-4222-8222-222222222222', 'a0000000-0000-4000-8000-000000000004', 'admin');

insert into public.companies (id, org_id, nit, check_digit, legal_name, trade_name, address, city_code,
  city_name, department_code, department_name, email, phone, invoice_prefix, resolution_number,
  resolution_date, resolution_from, resolution_to, resolution_valid_until, technical_key, software_pin) values
  ('c1111111-1111-4111-8111-111111111111', '11111111-1111-4111-8111-111111111111', '900123456', '8',
   'Demo Comercial S.A.S.', 'Demo Comercial', 'Calle 100 # 10-20', '11001', 'Bogotá, D.C.', '11',
   'Bogotá', 'facturacion@demo.test', '6011234567', 'SETP', '18760000001', '2019-01-19', 990000000,
   995000000, '2030-01-19', 'fc8eac422eba16e22ffd8c6f94b3f40a6e38162c', '12345'),
  ('c2222222-2222-4222-8222-222222222222', '22222222-2222-4222-8222-222222222222', '800765432', '3',
   'Otra Empresa Ltda.', 'Otra', 'Carrera 7 # 71-21', '05001', 'Medellín', '05', 'Antioquia',
   'facturas@otra.test', '6047654321', 'FE', '18760000002', '2020-03-01', 1, 100000, '2030-03-01',
   '2c1f4b7e9a3d5c8b0e6f1a2d3c4b5a69788796a5', '54321'),
  -- DIAN direct (docs/dian.md): no provider in between. Its numbering is habilitación's test range
  -- (SETP 990000000–995000000, resolution 18760000001, DIAN's published test technical key);
  -- `npm start` gives it a generated certificate and a DIAN-mode credential for the local DIAN
  -- stand-in (scripts/local/dian-demo.ts).
  ('c3333333-3333-4333-8333-333333333333', '11111111-1111-4111-8111-111111111111', '901234567', '7',
   'Demo Directo DIAN S.A.S.', 'Demo Directo', 'Carrera 15 # 93-60', '11001', 'Bogotá, D.C.', '11',
   'Bogotá', 'facturacion@directo.test', '6017654321', 'SETP', '18760000001', '2019-01-19', 990000000,
   995000000, '2030-01-19', 'fc8eac422eba16e22ffd8c6f94b3f40a6e38162c', '75315');

-- Invoices: (org, company, prefix, count, status) in a compact table, expanded with generate_series.
with plan (org_id, company_id, prefix, first_number, how_many, status) as (
  values
    ('11111111-1111-4111-8111-111111111111'::uuid, 'c1111111-1111-4111-8111-111111111111'::uuid, 'SETP', 990000001, 60, 'pendiente'),
    ('11111111-1111-4111-8111-111111111111', 'c1111111-1111-4111-8111-111111111111', 'SETP', 990000101, 3, 'en_proceso'),
    ('11111111-1111-4111-8111-111111111111', 'c1111111-1111-4111-8111-111111111111', 'SETP', 990000201, 3, 'transmitida'),
    ('11111111-1111-4111-8111-111111111111', 'c1111111-1111-4111-8111-111111111111', 'SETP', 990000301, 3, 'error'),
    ('11111111-1111-4111-8111-111111111111', 'c1111111-1111-4111-8111-111111111111', 'SETP', 990000401, 1, 'pendiente'),
    ('11111111-1111-4111-8111-111111111111', 'c3333333-3333-4333-8333-333333333333', 'SETP', 990000501, 6, 'pendiente'),
    ('22222222-2222-4222-8222-222222222222', 'c2222222-2222-4222-8222-222222222222', 'FE', 1, 5, 'pendiente'),
    ('22222222-2222-4222-8222-222222222222', 'c2222222-2222-4222-8222-222222222222', 'FE', 101, 2, 'en_proceso'),
    ('22222222-2222-4222-8222-222222222222', 'c2222222-2222-4222-8222-222222222222', 'FE', 201, 2, 'transmitida'),
    ('22222222-2222-4222-8222-222222222222', 'c2222222-2222-4222-8222-222222222222', 'FE', 301, 2, 'error')
),
numbered as (
  select p.*, p.prefix || (p.first_number + n)::text as number, n
    from plan p, generate_series(0, p.how_many - 1) as n
)
insert into public.invoices (id, org_id, company_id, number, issue_date, issue_time, currency,
  buyer_id_type, buyer_id_number, buyer_check_digit, buyer_name, buyer_email, buyer_address,
  buyer_city_code)
select md5('demo-invoice-' || number)::uuid, org_id, company_id, number, date '2026-11-20',
       time with time zone '10:15:00-05', 'COP', '31', (860000000 + n)::text,
       einv_private.nit_check_digit((860000000 + n)::text),
       'Cliente Demo ' || (n + 1) || ' S.A.S.', 'cliente' || (n + 1) || '@cliente.test',
       'Avenida 68 # 1-' || (n + 1), '11001'
  from numbered;

-- A retail sale: the buyer is DIAN's final consumer (type 13, 222222222222, no check digit, no
-- address or e-mail required).
update public.invoices
   set buyer_id_type = '13', buyer_id_number = '222222222222', buyer_check_digit = null,
       buyer_name = 'Consumidor final', buyer_email = null, buyer_address = null
 where number = 'SETP990000401';

-- Two lines per invoice: 2 × 50.000 at 19 % IVA and 1 × (10.000 + 1.000 n) exempt from IVA (IVA
-- `01` at 0 %: "exento"; no tax at all would say the sale is outside it, "excluido"). The database
-- computes every amount (…_amounts.sql).
insert into public.invoice_lines (invoice_id, org_id, position, code, description, quantity, unit_price, taxes)
select i.id, i.org_id, l.position, l.code, l.description, l.quantity, l.unit_price, l.taxes
  from public.invoices i
 cross join lateral (values
   (1, 'SRV-01', 'Servicio de consultoría', 2::numeric, 50000::numeric, '[{"code": "01", "percent": 19}]'::jsonb),
   (2, 'LIB-07', 'Libro técnico (exento)', 1::numeric,
      10000 + 1000 * (regexp_replace(i.number, '\D', '', 'g')::bigint % 50), '[{"code": "01", "percent": 0}]')
 ) as l (position, code, description, quantity, unit_price, taxes);

-- One invoice of each kind of content DIAN's documents carry beyond the simplest sale, `pendiente`,
-- for Demo Comercial (sandbox provider: SETP990000061–065) and for Demo Directo DIAN (DIAN direct:
-- SETP990000507–511): B2B services on credit with ReteFuente and ReteICA, a restaurant bill with
-- INC and a tip to the final consumer, plastic bags (INC bolsas per unit) with a line discount and a
-- delivery charge, an export-style sale in dollars with its rate and an advance, a natural person
-- with a NIT. The drafts a web app writes (docs/creating-invoices.md; devkit/demo-kinds.ts holds
-- the same, and tests/db/seed-kinds.test.ts the two together), inputs only: the database
-- computes every amount. A credit sale falls due thirty days after the day it is seeded.
create temporary table seed_kinds (kind, sandbox_number, dian_number, draft, lines) as
values
    ('servicios', 'SETP990000061', 'SETP990000507',
     '{"buyer_id_type": "31", "buyer_id_number": "900373913", "buyer_check_digit": "4", "buyer_person_type": "1", "buyer_fiscal_responsibilities": ["O-13", "O-15"], "buyer_tax_scheme": "01", "buyer_name": "Cliente Industrial S.A.S.", "buyer_email": "compras@industrial.test", "buyer_address": "Carrera 43A # 1-50", "buyer_city_code": "05001", "buyer_city_name": "Medellín", "buyer_department_code": "05", "buyer_department_name": "Antioquia", "buyer_postal_zone": "050021", "payment_form": "2", "payment_method": "42", "withholdings": [{"code": "06", "percent": 4}, {"code": "07", "percent": 0.966}]}'::jsonb,
     '[{"position": 1, "code": "MNT-01", "description": "Mantenimiento mensual de equipos", "quantity": 1, "unit_price": 2500000, "taxes": [{"code": "01", "percent": 19}]}]'::jsonb),
    ('restaurante', 'SETP990000062', 'SETP990000508',
     '{"buyer_id_type": "13", "buyer_id_number": "222222222222", "buyer_name": "Consumidor final", "payment_form": "1", "payment_method": "10", "allowance_charges": [{"charge": true, "reason": "Propina voluntaria", "percent": 10}]}'::jsonb,
     '[{"position": 1, "code": "MENU-01", "description": "Menú del día", "quantity": 2, "unit_price": 25000, "taxes": [{"code": "04", "percent": 8}]}, {"position": 2, "code": "BEB-03", "description": "Limonada natural", "quantity": 2, "unit_price": 6000, "taxes": [{"code": "04", "percent": 8}]}]'::jsonb),
    ('bolsas', 'SETP990000063', 'SETP990000509',
     '{"buyer_id_type": "13", "buyer_id_number": "52123456", "buyer_person_type": "2", "buyer_name": "María Pérez", "buyer_email": "maria.perez@correo.test", "buyer_address": "Calle 45 # 13-20", "buyer_city_code": "11001", "buyer_department_code": "11", "payment_form": "1", "payment_method": "48", "allowance_charges": [{"charge": true, "reason": "Domicilio", "amount": 5000}]}'::jsonb,
     '[{"position": 1, "code": "MER-01", "description": "Mercado", "quantity": 1, "unit_price": 100000, "taxes": [{"code": "01", "percent": 19}], "allowance_charges": [{"charge": false, "reason_code": "00", "reason": "Descuento cliente frecuente", "percent": 10}]}, {"position": 2, "code": "BOLSA", "description": "Bolsa plástica", "quantity": 2, "unit_price": 100, "taxes": [{"code": "01", "percent": 19}, {"code": "22", "per_unit_amount": 70}]}]'::jsonb),
    ('exportacion', 'SETP990000064', 'SETP990000510',
     '{"currency": "USD", "exchange_rate": 3919.109578, "exchange_rate_date": "2026-11-20", "buyer_id_type": "50", "buyer_id_number": "123456789", "buyer_name": "Importer Inc.", "buyer_email": "purchasing@importer.test", "buyer_address": "100 Main Street", "buyer_city_name": "Miami", "buyer_country_code": "US", "payment_form": "1", "payment_method": "45", "prepayments": [{"amount": 100, "received_date": "2026-11-01", "reference": "Anticipo 1"}]}'::jsonb,
     '[{"position": 1, "code": "CAFE-LB", "description": "Café especial (lb)", "quantity": 1, "unit_price": 226.98, "taxes": [{"code": "01", "percent": 19}]}]'::jsonb),
    ('persona-natural', 'SETP990000065', 'SETP990000511',
     '{"buyer_id_type": "31", "buyer_id_number": "1018419008", "buyer_check_digit": "5", "buyer_person_type": "2", "buyer_fiscal_responsibilities": ["R-99-PN"], "buyer_tax_scheme": "ZZ", "buyer_name": "Andrés Gómez", "buyer_email": "andres.gomez@correo.test", "buyer_address": "Carrera 7 # 72-13", "buyer_city_code": "11001", "buyer_department_code": "11", "payment_form": "1", "payment_method": "49"}'::jsonb,
     '[{"position": 1, "code": "ASE-01", "description": "Asesoría contable", "quantity": 1, "unit_price": 800000, "taxes": [{"code": "01", "percent": 19}]}]'::jsonb);

-- each kind for each company: the sandbox's numbers for Demo Comercial, the DIAN ones for Directo
create temporary table seed_copies as
select k.*, c.company_id, case c.dian when true then k.dian_number else k.sandbox_number end as number
  from seed_kinds k
 cross join (values ('c1111111-1111-4111-8111-111111111111'::uuid, false),
                    ('c3333333-3333-4333-8333-333333333333'::uuid, true)) as c (company_id, dian);

insert into public.invoices (id, org_id, company_id, number, issue_date, issue_time, currency, exchange_rate,
    exchange_rate_date, payment_form, due_date, payment_method, buyer_id_type, buyer_id_number, buyer_check_digit,
    buyer_person_type, buyer_fiscal_responsibilities, buyer_tax_scheme, buyer_name, buyer_email, buyer_address,
    buyer_city_code, buyer_city_name, buyer_department_code, buyer_department_name, buyer_postal_zone,
    buyer_country_code, allowance_charges, withholdings, prepayments)
select md5('demo-invoice-' || k.number)::uuid, '11111111-1111-4111-8111-111111111111', k.company_id, k.number,
       date '2026-11-20', time with time zone '10:15:00-05', coalesce(d.currency, 'COP'), d.exchange_rate,
       d.exchange_rate_date, d.payment_form,
       case when d.payment_form = '2' then (now() at time zone 'America/Bogota')::date + 30 end,
       d.payment_method, d.buyer_id_type, d.buyer_id_number, d.buyer_check_digit, d.buyer_person_type,
       coalesce(d.buyer_fiscal_responsibilities, array['R-99-PN']), coalesce(d.buyer_tax_scheme, 'ZZ'),
       d.buyer_name, d.buyer_email, d.buyer_address, d.buyer_city_code, d.buyer_city_name,
       d.buyer_department_code, d.buyer_department_name, d.buyer_postal_zone, coalesce(d.buyer_country_code, 'CO'),
       coalesce(d.allowance_charges, '[]'), coalesce(d.withholdings, '[]'), coalesce(d.prepayments, '[]')
  from seed_copies k, jsonb_populate_record(null::public.invoices, k.draft) as d;

insert into public.invoice_lines (invoice_id, org_id, position, code, description, quantity, unit_price, taxes,
  allowance_charges)
select md5('demo-invoice-' || k.number)::uuid, '11111111-1111-4111-8111-111111111111', l.position, l.code,
       l.description, l.quantity, l.unit_price, l.taxes, coalesce(l.allowance_charges, '[]')
  from seed_copies k
 cross join lateral jsonb_to_recordset(k.lines)
   as l (position integer, code text, description text, quantity numeric, unit_price numeric, taxes jsonb,
         allowance_charges jsonb);

drop table seed_copies, seed_kinds;

-- Fiscal state of the demo invoices that are past `pendiente`, as the service would have left it.
-- The provider holds the `en_proceso` ones pending and the `transmitida` ones accepted; SQL cannot
-- stamp them, so the accepted ones have no CUFE or QR text yet: `npm start` has its sandbox adopt
-- every document the provider holds, stamp these and record their codes (scripts/local/adopt.ts).
update public.invoices
   set status = 'en_proceso', environment = 'uat', attempt_count = 1, claimed_at = now(),
       provider_reference = 'sandbox-' || number, last_code = 'validation_pending',
       last_message = 'sent; the authority has not decided on this invoice yet'
 where number in ('SETP990000101', 'SETP990000102', 'SETP990000103', 'FE101', 'FE102');

update public.invoices
   set status = 'transmitida', environment = 'uat', attempt_count = 1, transmitted_at = now(),
       provider_reference = 'sandbox-' || number, last_code = 'accepted',
       last_message = 'the authority accepted this invoice'
 where number in ('SETP990000201', 'SETP990000202', 'SETP990000203', 'FE201', 'FE202');

update public.invoices
   set status = 'error', environment = 'uat', attempt_count = 1,
       last_code = 'rejected',
       last_message = 'the authority rejected this invoice (FAJ44b; see authority_rules); correct it, then pass reissue: true to send it again',
       authority_message = 'Documento rechazado. FAJ44b: el número de identificación del adquiriente no está registrado en el RUT.',
       authority_rules = '[{"rule": "FAJ44b", "kind": "rechazo", "message": "el número de identificación del adquiriente no está registrado en el RUT."}]'
 where number in ('SETP990000301', 'SETP990000302', 'SETP990000303', 'FE301', 'FE302');

-- All of those were submitted once (attempt 1), with the issuer frozen as it was then.
update public.invoices
   set submitted_attempt = 1, issuer_snapshot = einv_private.issuer_of(company_id)
 where status <> 'pendiente';

-- Credit notes on transmitted invoices, as the service would have left them (the `emitida` ones, like
-- the invoices, are stamped by `npm start`): (invoice, note number, the invoice line positions it
-- credits, status).
with plan (invoice_number, note_number, positions, status) as (
  values
    ('SETP990000201', 'NC1', array[1], 'emitida'),
    ('SETP990000202', 'NC2', array[2], 'error'),
    ('SETP990000203', 'NC3', array[1, 2], 'en_proceso'),
    ('FE201', 'NC1', array[1, 2], 'emitida'),
    ('FE202', 'NC2', array[1], 'error')
),
notes as (
  insert into public.credit_notes (id, org_id, company_id, invoice_id, number, issue_date, issue_time,
    concept_code, reason, currency, subtotal, tax_total, total, tax_exclusive_amount, tax_inclusive_amount,
    tax_totals, status, provider_reference, environment, last_code, last_message, attempt_count,
    submitted_attempt, issuer_snapshot, transmitted_at)
  select md5('demo-credit-note-' || i.number)::uuid, i.org_id, i.company_id, i.id, p.note_number,
         date '2026-11-21', time with time zone '09:30:00-05',
         case when cardinality(p.positions) = 2 then '2' else '1' end,
         case when cardinality(p.positions) = 2 then 'Anulación de la factura' else 'Devolución parcial' end,
         i.currency, (s.amounts ->> 'line_extension_amount')::numeric, (s.amounts ->> 'tax_total')::numeric,
         (s.amounts ->> 'payable_amount')::numeric, (s.amounts ->> 'tax_exclusive_amount')::numeric,
         (s.amounts ->> 'tax_inclusive_amount')::numeric, s.amounts -> 'tax_totals', p.status,
         case when p.status <> 'error' then 'sandbox-' || i.number || '-' || p.note_number end,
         'uat',
         case p.status when 'emitida' then 'accepted' when 'error' then 'rejected' else 'validation_pending' end,
         case p.status when 'emitida' then 'the authority accepted this credit note'
                       when 'error' then 'the authority rejected this credit note (CAJ51; see authority_rules); correct it, then send it again with /credit-notes/reissue'
                       else 'sent; the authority has not decided on this credit note yet' end,
         1, 1, einv_private.issuer_of(i.company_id),
         case when p.status = 'emitida' then now() end
    from plan p
    join public.invoices i on i.number = p.invoice_number
   cross join lateral (
     -- whole lines: their amounts, totalled as the database totals every document (…_amounts.sql)
     select einv_private.document_amounts(
              jsonb_agg(jsonb_build_object('line_extension', l.line_extension, 'taxes', l.tax_subtotals)),
              '[]', '[]', '[]', 1, 'credit note') as amounts
       from public.invoice_lines l where l.invoice_id = i.id and l.position = any (p.positions)) s
  returning id, org_id, invoice_id, number
)
insert into public.credit_note_lines (credit_note_id, org_id, invoice_line_id, position, code, description,
  unit_code, quantity, unit_price, line_extension, tax_subtotals, tax_amount, credited_quantity)
select n.id, n.org_id, l.id, row_number() over (partition by n.id order by l.position), l.code, l.description,
       l.unit_code, l.quantity, l.price_amount, l.line_extension, l.tax_subtotals, l.tax_amount, l.quantity
  from notes n
  join plan p on p.note_number = n.number
  join public.invoices i on i.id = n.invoice_id and i.number = p.invoice_number
  join public.invoice_lines l on l.invoice_id = n.invoice_id and l.position = any (p.positions);

-- The companies' next credit-note numbers follow the demo notes.
insert into einv_private.note_counters (company_id, kind, next_number)
select company_id, 'credit_note', count(*) + 1 from public.credit_notes group by company_id;
