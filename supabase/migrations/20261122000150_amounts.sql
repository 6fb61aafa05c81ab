-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Amounts: every amount of a document, computed by the database from its inputs (docs/adr/0009).
--
-- The web app writes inputs only: each line's quantity, unit price, taxes and discounts or charges;
-- the invoice's own discounts or charges, withholdings and advances, its currency and exchange
-- rate. Triggers compute everything else — each line's LineExtensionAmount and taxes, the
-- document's totals per scheme and rate, its LegalMonetaryTotal, its withholdings — and members
-- cannot write those columns (…_access_control.sql grants the inputs only), while what anyone else
-- writes there (the service, a superuser) is computed over. So no client arithmetic can produce a
-- document whose amounts disagree (DIAN's FAU, FAS and FAX rules), and the pre-send check that the
-- totals equal the sum of the lines cannot fail for a stored invoice.
--
-- Two pure functions compute, for every kind of document (invoices here, credit notes in
-- …_credit_notes.sql, debit notes next): `line_amounts` (one line from its inputs) and
-- `document_amounts` (the totals from the lines' amounts and the document's inputs). DIAN's
-- rounding lives in one place, `money` (2 decimals, half away from zero, each amount as it is
-- computed, as Odoo's round_per_line does) and `price` (PriceAmount, 6 decimals).
--
-- Currency: the web app writes prices and amounts in the invoice's currency (the deal); the
-- authority reads pesos (brief-business §8: Odoo and Vendix keep DocumentCurrencyCode COP and only
-- declare the deal in PaymentExchangeRate). Each input is converted first — a price at 6 decimals,
-- an amount at 2 — and everything is then computed in pesos: converting rounded results instead
-- breaks DIAN's base × rate check (Odoo's l10n_co_edi test_invoice_multicurrency: 226.98 USD at
-- 3919.109578 gives 133 445.68 of tax where 15 % of the converted base is 133 433.92). The same
-- functions, run on the unconverted inputs, give the deal's totals for the PDF.
--
-- Errors name the field: SQLSTATE 23514 (PostgREST 400), a sentence saying where (`invoice line 3:
-- taxes[1].percent …`, lists counted from 0 as the web app's arrays are), the field path in DETAIL
-- and `validation_failed` in HINT. What depends on several rows (a document discount larger than
-- the lines written so far, an advance above the total) is not refused while the draft is written
-- in steps: `invoice_problems` reports it and /transmit refuses to send it.
--
-- Sources (../shared/dian/brief-business.md §4–§8): the tax and withholding codes and names are
-- DIAN's TipoImpuesto-2.1 list (codes 30–36 as Odoo's l10n_co_edi.tax.type.csv, which the 2019
-- list lacks); IVA and INC rates from TarifaImpuestoIVA/INC-2.1, ReteIVA's 15 % from
-- TarifaImpuestoReteIVA-2.1 (as Vendix transcribes them in dian-tax-codes.ts); the totals'
-- formulas are FAU02/04/06/08/14 as transcribed by Vendix (dian-totals.validator.ts).
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

-- ─── DIAN's rounding, once ───────────────────────────────────────────────────────────────────────
-- An amount: 2 decimals, half away from zero (numeric `round`), which for DIAN's positive amounts
-- is half up. SQL and unpinned, so the planner inlines it (pg_catalog is searched first anyway).
create function einv_private.money(p_amount numeric) returns numeric
language sql immutable parallel safe as $$
  select pg_catalog.round(p_amount, 2)
$$;

-- A unit price (PriceAmount): up to 6 decimals, shown with at least 2.
create function einv_private.price(p_amount numeric) returns numeric
language sql immutable parallel safe as $$
  select pg_catalog.round(p_amount, greatest(2, least(6, pg_catalog.scale(pg_catalog.trim_scale(p_amount)))))
$$;

-- ─── refusals ────────────────────────────────────────────────────────────────────────────────────
-- Refuses an input: 23514 with the sentence, the field in DETAIL, `validation_failed` in HINT.
create function einv_private.refuse(p_where text, p_field text, p_sentence text) returns void
language plpgsql immutable set search_path = '' as $$
begin
  raise exception '%: % %', p_where, p_field, p_sentence
    using errcode = '23514', detail = p_field, hint = 'validation_failed';
end
$$;

-- A decimal input (a JSON number, or a string of digits): at most `p_scale` decimals, above
-- `p_low` (or at it when `p_low_included`) and below `p_high` (or at it when `p_high_included`).
create function einv_private.input_decimal(
  p_value jsonb, p_scale integer, p_low numeric, p_low_included boolean, p_high numeric, p_high_included boolean,
  p_where text, p_field text
) returns numeric
language plpgsql immutable set search_path = '' as $$
declare
  _text text := p_value #>> '{}';
  _number numeric;
begin
  if jsonb_typeof(p_value) in ('number', 'string') and _text ~ '^[0-9]{1,16}(\.[0-9]{1,12})?$' then
    _number := _text::numeric;
  end if;
  if _number is null or scale(trim_scale(_number)) > p_scale
     or _number < p_low or (_number = p_low and not p_low_included)
     or _number > p_high or (_number = p_high and not p_high_included) then
    perform einv_private.refuse(p_where, p_field, format(
      'must be a number %s %s and %s %s, with at most %s decimals (not %s)',
      case when p_low_included then 'from' else 'above' end, p_low,
      case when p_high_included then 'up to' else 'below' end, p_high, p_scale,
      coalesce(p_value::text, 'nothing')));
  end if;
  return _number;
end
$$;

-- The one key of `p_object` not among `p_keys`, if any.
create function einv_private.unknown_key(p_object jsonb, p_keys text[]) returns text
language sql immutable parallel safe as $$
  select k from pg_catalog.jsonb_object_keys(p_object) as k where k <> all (p_keys) order by k limit 1
$$;

-- ─── DIAN's tributes ─────────────────────────────────────────────────────────────────────────────
-- A tax or withholding scheme by its code: `{ name, percent, per_unit, rates, withholding }` —
-- whether it is charged as a percentage, per unit, at which rates only (null: any from 0 to 100).
-- Percentage and per-unit as Odoo and the law say where that was checked (01/04 percentage with
-- DIAN's rate lists; 03 ICA per mil, as a percentage; 22 bags, 32 ICL, 34 IBUA per unit, as
-- Odoo's invoice_plastic_bags/alcohol/sugar; 35 ICUI a percentage of the price, Ley 2277 de 2022
-- art. 54); either where it was not. 08 is left out: the 2019 list calls it ReteCREE, Odoo "IC
-- Porcentual". ZZ ("other", named by the issuer) is left out: it needs a name of its own.
create function einv_private.tax_scheme(p_code text) returns jsonb
language sql immutable parallel safe as $$
  select jsonb_build_object('name', s.name, 'percent', s.percent, 'per_unit', s.per_unit,
                            'rates', s.rates, 'withholding', s.withholding)
    from (values
      ('01', 'IVA', true, false, '[0, 5, 16, 19]'::jsonb, false),
      ('02', 'IC', true, true, null, false),
      ('03', 'ICA', true, false, null, false),
      ('04', 'INC', true, false, '[2, 4, 8, 16]', false),
      ('20', 'FtoHorticultura', true, true, null, false),
      ('21', 'Timbre', true, true, null, false),
      ('22', 'Bolsas', false, true, null, false),
      ('23', 'INCarbono', true, true, null, false),
      ('24', 'INCombustibles', true, true, null, false),
      ('25', 'Sobretasa Combustibles', true, true, null, false),
      ('26', 'Sordicom', true, true, null, false),
      ('30', 'IC Datos', true, true, null, false),
      ('32', 'ICL', false, true, null, false),
      ('33', 'INPP', true, true, null, false),
      ('34', 'IBUA', false, true, null, false),
      ('35', 'ICUI', true, false, null, false),
      ('36', 'ADV', true, true, null, false),
      ('05', 'ReteIVA', true, false, '[15]', true),
      ('06', 'ReteFuente', true, false, null, true),
      ('07', 'ReteICA', true, false, null, true)
    ) as s (code, name, percent, per_unit, rates, withholding)
   where s.code = p_code
$$;

-- The order DIAN reads a document's TaxTotal groups in: IVA, INC, ICA first (the CUFE's ValImp1–3,
-- read positionally by DIAN's parser for equivalent documents: brief-business §4), then by code.
create function einv_private.scheme_order(p_code text) returns text
language sql immutable parallel safe as $$
  select coalesce('0' || pg_catalog.array_position(array['01', '04', '03'], p_code)::text, '1' || p_code)
$$;

-- ─── discounts and charges ───────────────────────────────────────────────────────────────────────
-- A list of discounts and charges (AllowanceCharge) on `p_base` (a line's quantity × price, or the
-- document's LineExtensionAmount): each `{ charge, reason_code?, reason?, percent | amount }`, an
-- amount converted at `p_rate`. Discounts carry DIAN's reason code, 00 (no condicionado, the
-- default) or 01 (condicionado); charges have none. Answers `{ items: [{ id, charge, reason_code,
-- reason, percent, base_amount, amount }], allowance_total, charge_total }`, ids 1, 2, 3…
create function einv_private.allowance_charge_amounts(
  p_list jsonb, p_base numeric, p_rate numeric, p_max integer, p_where text
) returns jsonb
language plpgsql immutable set search_path = '' as $$
declare
  _item jsonb;
  _at bigint;
  _field text;
  _key text;
  _charge boolean;
  _code text;
  _percent numeric;
  _amount numeric;
  _items jsonb[] := '{}';
  _allowances numeric := 0;
  _charges numeric := 0;
begin
  if jsonb_typeof(p_list) is distinct from 'array' or jsonb_array_length(p_list) > p_max then
    perform einv_private.refuse(p_where, 'allowance_charges',
      format('must be a list of at most %s discounts and charges', p_max));
  end if;
  for _item, _at in select e.x, e.n from jsonb_array_elements(p_list) with ordinality as e (x, n) loop
    _field := format('allowance_charges[%s]', _at - 1);
    if jsonb_typeof(_item) <> 'object' then
      perform einv_private.refuse(p_where, _field, 'must be an object { charge, reason_code?, reason?, percent | amount }');
    end if;
    _key := einv_private.unknown_key(_item, array['charge', 'reason_code', 'reason', 'percent', 'amount']);
    if _key is not null then
      perform einv_private.refuse(p_where, _field || '.' || _key,
        'is not a field of a discount or charge (charge, reason_code, reason, percent, amount)');
    end if;
    if jsonb_typeof(_item -> 'charge') is distinct from 'boolean' then
      perform einv_private.refuse(p_where, _field || '.charge', 'must be true (a charge) or false (a discount)');
    end if;
    _charge := (_item ->> 'charge')::boolean;
    _code := _item ->> 'reason_code';
    if _charge and _item ? 'reason_code' then
      perform einv_private.refuse(p_where, _field || '.reason_code', 'is for discounts: a charge has none');
    end if;
    if not _charge then
      _code := coalesce(_code, '00');
      if jsonb_typeof(coalesce(_item -> 'reason_code', '"00"')) <> 'string' or _code not in ('00', '01') then
        perform einv_private.refuse(p_where, _field || '.reason_code',
          'must be DIAN''s 00 (descuento no condicionado) or 01 (descuento condicionado)');
      end if;
    end if;
    if _item ? 'reason' and (jsonb_typeof(_item -> 'reason') <> 'string'
                             or length(_item ->> 'reason') not between 1 and 200) then
      perform einv_private.refuse(p_where, _field || '.reason', 'must be a text of 1 to 200 characters');
    end if;
    if (_item ? 'percent') = (_item ? 'amount') then
      perform einv_private.refuse(p_where, _field, 'needs a percent or an amount (one of them)');
    end if;
    if _item ? 'percent' then
      _percent := einv_private.input_decimal(_item -> 'percent', 3, 0, false, 100, true, p_where, _field || '.percent');
      _amount := einv_private.money(p_base * _percent / 100);
    else
      _percent := null;
      _amount := einv_private.money(
        einv_private.input_decimal(_item -> 'amount', 2, 0, false, 1000000000000, false, p_where, _field || '.amount')
        * p_rate);
    end if;
    _items := array_append(_items, jsonb_build_object('id', _at, 'charge', _charge, 'reason_code', _code,
      'reason', _item ->> 'reason', 'percent', _percent, 'base_amount', p_base, 'amount', _amount));
    if _charge then _charges := _charges + _amount; else _allowances := _allowances + _amount; end if;
  end loop;
  return jsonb_build_object('items', to_jsonb(_items), 'allowance_total', _allowances, 'charge_total', _charges);
end
$$;

-- ─── a line ──────────────────────────────────────────────────────────────────────────────────────
-- One line's amounts from its inputs: `p_quantity` units at `p_price` (in the document's currency,
-- converted at `p_rate` pesos per unit; 1 for pesos), its discounts and charges, and its taxes,
-- each `{ code, percent }` or, per unit, `{ code, per_unit_amount, per_quantity?, unit_measure?,
-- measure_unit_code? }`: per_unit_amount for every per_quantity base units (NIU, MLT, LTR …) of
-- measure, each unit sold measuring unit_measure of them (IBUA: 35 pesos per 100 mL of a 3 500 mL
-- bottle). At most one tax per scheme (FAX01). Answers:
--   price_amount       the unit price in pesos (PriceAmount, 6 decimals)
--   gross_amount       quantity × price
--   allowance_charges  the discounts and charges with their amounts (allowance_charge_amounts)
--   line_extension     gross − discounts + charges (LineExtensionAmount, FAU02's addends)
--   taxes              [{ code, name, percent, taxable_amount, tax_amount }] and, per unit,
--                      [{ code, name, per_unit_amount, per_quantity, unit_measure, measure_unit_code,
--                      measure (quantity × unit_measure: BaseUnitMeasure), tax_amount }]; a
--                      percentage taxes the line's LineExtensionAmount (FAX07), IVA and INC alike
--   tax_amount         their sum
-- `p_where` starts every refusal ("invoice line 3").
create function einv_private.line_amounts(
  p_quantity numeric, p_price numeric, p_taxes jsonb, p_allowance_charges jsonb, p_rate numeric, p_where text
) returns jsonb
language plpgsql immutable set search_path = '' as $$
declare
  _price numeric := einv_private.price(p_price * p_rate);
  _gross numeric := einv_private.money(p_quantity * _price);
  _charges jsonb;
  _extension numeric;
  _tax jsonb;
  _at bigint;
  _field text;
  _key text;
  _code text;
  _scheme jsonb;
  _codes text[] := '{}';
  _percent numeric;
  _per_unit numeric;
  _per_quantity numeric;
  _unit_measure numeric;
  _measure numeric;
  _amount numeric;
  _total numeric := 0;
  _subtotals jsonb[] := '{}';
begin
  -- 'NaN' is a numeric PostgreSQL orders above every number, so it passes `> 0` and would be
  -- reported below as an amount too large; this trigger runs before the columns' checks
  if p_quantity = 'NaN' then
    perform einv_private.refuse(p_where, 'quantity', 'must be a number greater than 0, not NaN');
  end if;
  if p_price = 'NaN' then
    perform einv_private.refuse(p_where, 'unit_price', 'must be a number from 0, not NaN');
  end if;
  if _gross >= 1000000000000 then
    perform einv_private.refuse(p_where, 'quantity',
      format('× unit_price is %s pesos: amounts of 1,000,000,000,000 or more cannot be processed', _gross));
  end if;
  _charges := einv_private.allowance_charge_amounts(p_allowance_charges, _gross, p_rate, 10, p_where);
  _extension := _gross - (_charges ->> 'allowance_total')::numeric + (_charges ->> 'charge_total')::numeric;
  if _extension < 0 or _extension >= 1000000000000 then
    perform einv_private.refuse(p_where, 'allowance_charges', format(
      'bring the line''s %s to %s: a line''s amount must be from 0 and below 1,000,000,000,000',
      _gross, _extension));
  end if;

  if jsonb_typeof(p_taxes) is distinct from 'array' or jsonb_array_length(p_taxes) > 10 then
    perform einv_private.refuse(p_where, 'taxes', 'must be a list of at most 10 taxes');
  end if;
  for _tax, _at in select e.x, e.n from jsonb_array_elements(p_taxes) with ordinality as e (x, n) loop
    _field := format('taxes[%s]', _at - 1);
    if jsonb_typeof(_tax) <> 'object' then
      perform einv_private.refuse(p_where, _field, 'must be an object { code, percent } or { code, per_unit_amount, … }');
    end if;
    _key := einv_private.unknown_key(_tax,
      array['code', 'percent', 'per_unit_amount', 'per_quantity', 'unit_measure', 'measure_unit_code']);
    if _key is not null then
      perform einv_private.refuse(p_where, _field || '.' || _key,
        'is not a field of a tax (code, percent, per_unit_amount, per_quantity, unit_measure, measure_unit_code)');
    end if;
    _code := case when jsonb_typeof(_tax -> 'code') = 'string' then _tax ->> 'code' end;
    _scheme := einv_private.tax_scheme(_code);
    if _scheme is null or (_scheme ->> 'withholding')::boolean then
      perform einv_private.refuse(p_where, _field || '.code', format(
        'must be one of DIAN''s taxes: 01 IVA, 02 IC, 03 ICA, 04 INC, 20–26, 30, 32–36 (not %s)',
        coalesce(_tax -> 'code', 'null')));
    end if;
    if _code = any (_codes) then
      perform einv_private.refuse(p_where, _field || '.code',
        format('%s is already a tax of this line: one tax of a scheme per line (FAX01)', _code));
    end if;
    _codes := array_append(_codes, _code);
    if (_tax ? 'percent') = (_tax ? 'per_unit_amount') then
      perform einv_private.refuse(p_where, _field, 'needs a percent or a per_unit_amount (one of them)');
    end if;

    if _tax ? 'percent' then
      if not (_scheme ->> 'percent')::boolean then
        perform einv_private.refuse(p_where, _field || '.percent',
          format('%s (%s) is charged per unit: give per_unit_amount', _code, _scheme ->> 'name'));
      end if;
      if _tax ?| array['per_quantity', 'unit_measure', 'measure_unit_code'] then
        perform einv_private.refuse(p_where, _field, 'a percentage has no per_quantity, unit_measure or measure_unit_code');
      end if;
      _percent := einv_private.input_decimal(_tax -> 'percent', 3, 0, true, 100, true, p_where, _field || '.percent');
      if jsonb_typeof(_scheme -> 'rates') = 'array' and not (_scheme -> 'rates') @> to_jsonb(_percent) then
        perform einv_private.refuse(p_where, _field || '.percent', format('%s is not a rate of %s (%s): %s',
          _percent, _scheme ->> 'name', _code, _scheme ->> 'rates'));
      end if;
      _amount := einv_private.money(_extension * _percent / 100);
      _subtotals := array_append(_subtotals, jsonb_build_object('code', _code, 'name', _scheme ->> 'name',
        'percent', _percent, 'taxable_amount', _extension, 'tax_amount', _amount));
    else
      if not (_scheme ->> 'per_unit')::boolean then
        perform einv_private.refuse(p_where, _field || '.per_unit_amount',
          format('%s (%s) is a percentage: give percent', _code, _scheme ->> 'name'));
      end if;
      -- an amount (PerUnitAmount: 2 decimals, brief §5), converted like any other
      _per_unit := einv_private.money(einv_private.input_decimal(_tax -> 'per_unit_amount', 2, 0, false,
        1000000000, false, p_where, _field || '.per_unit_amount') * p_rate);
      _per_quantity := case when _tax ? 'per_quantity' then einv_private.input_decimal(_tax -> 'per_quantity', 6,
        0, false, 1000000000, false, p_where, _field || '.per_quantity') else 1 end;
      _unit_measure := case when _tax ? 'unit_measure' then einv_private.input_decimal(_tax -> 'unit_measure', 6,
        0, false, 1000000000, false, p_where, _field || '.unit_measure') else 1 end;
      if _tax ? 'measure_unit_code' and (jsonb_typeof(_tax -> 'measure_unit_code') <> 'string'
                                         or _tax ->> 'measure_unit_code' !~ '^[A-Z0-9]{1,3}$') then
        perform einv_private.refuse(p_where, _field || '.measure_unit_code',
          'must be a UN/ECE recommendation 20 unit code (NIU, MLT, LTR …)');
      end if;
      _measure := round(p_quantity * _unit_measure, 6);
      _amount := einv_private.money(_measure / _per_quantity * _per_unit);
      if _measure >= 1000000000000 or _amount >= 1000000000000 then
        perform einv_private.refuse(p_where, _field,
          format('comes to %s pesos on %s: amounts of 1,000,000,000,000 or more cannot be processed', _amount, _measure));
      end if;
      _subtotals := array_append(_subtotals, jsonb_build_object('code', _code, 'name', _scheme ->> 'name',
        'per_unit_amount', _per_unit, 'per_quantity', _per_quantity, 'unit_measure', _unit_measure,
        'measure_unit_code', coalesce(_tax ->> 'measure_unit_code', 'NIU'), 'measure', _measure,
        'tax_amount', _amount));
    end if;
    _total := _total + _amount;
  end loop;

  return jsonb_build_object(
    'price_amount', _price, 'gross_amount', _gross, 'allowance_charges', _charges -> 'items',
    'line_extension', _extension,
    'taxes', coalesce((select jsonb_agg(t order by einv_private.scheme_order(t ->> 'code'))
                         from unnest(_subtotals) as t), '[]'::jsonb),
    'tax_amount', _total);
end
$$;

-- ─── a document ──────────────────────────────────────────────────────────────────────────────────
-- A document's totals from its lines' amounts (`p_lines`: [{ line_extension, taxes }], as
-- line_amounts answers) and its own inputs: discounts and charges on its LineExtensionAmount
-- (they change no tax base: brief-business §6), withholdings `[{ code: 05 | 06 | 07, percent }]`
-- (one of each at most: ReteIVA on the IVA, ReteFuente and ReteICA on the LineExtensionAmount) and
-- advances `[{ amount, received_date, reference? }]`; amounts converted at `p_rate`. Answers, by
-- brief-business §6 (the rules as Vendix transcribes them):
--   line_extension_amount     Σ lines' LineExtensionAmount                               FAU02
--   tax_exclusive_amount      Σ lines' TaxableAmount (per-unit taxes have none)          FAU04
--   tax_total                 Σ TaxTotal amounts (every tax, per-unit ones included)
--   tax_inclusive_amount      line_extension_amount + tax_total                          FAU06
--   allowance_total_amount    Σ document discounts                                       FAU08
--   charge_total_amount       Σ document charges
--   payable_amount            tax_inclusive − allowances + charges (not the advances)    FAU14
--   prepaid_amount            Σ advances (PrepaidAmount)
--   withholding_total_amount  Σ withholdings (informative to DIAN: payable ignores them)
--   net_payable_amount        payable − withholdings − advances: what the buyer still pays
--   tax_totals                per scheme [{ code, name, tax_amount, subtotals }], one subtotal per
--                             rate (FAS02, FAS04), IVA/INC/ICA first; a subtotal's amount is the sum
--                             of its lines' (each rounded on its own line, as Odoo's round_per_line)
--   withholding_totals        the same shape for withholdings (FAT02, FAT04, FAT07)
--   allowance_charges, prepayments  each input with its amount in pesos
create function einv_private.document_amounts(
  p_lines jsonb, p_allowance_charges jsonb, p_withholdings jsonb, p_prepayments jsonb, p_rate numeric,
  p_where text
) returns jsonb
language plpgsql immutable set search_path = '' as $$
declare
  _extension numeric;
  _exclusive numeric;
  _taxes numeric;
  _iva numeric;
  _tax_totals jsonb;
  _charges jsonb;
  _payable numeric;
  _item jsonb;
  _at bigint;
  _field text;
  _key text;
  _code text;
  _scheme jsonb;
  _codes text[] := '{}';
  _percent numeric;
  _base numeric;
  _amount numeric;
  _withheld numeric := 0;
  _withholdings jsonb[] := '{}';
  _prepaid numeric := 0;
  _prepayments jsonb[] := '{}';
  _date date;
begin
  select coalesce(sum((l ->> 'line_extension')::numeric), 0) into _extension from jsonb_array_elements(p_lines) as l;
  with subtotals as (
    select t ->> 'code' as code, t ->> 'name' as name, (t ->> 'percent')::numeric as percent,
           (t ->> 'per_unit_amount')::numeric as per_unit_amount, (t ->> 'per_quantity')::numeric as per_quantity,
           t ->> 'measure_unit_code' as measure_unit_code, (t ->> 'taxable_amount')::numeric as taxable,
           (t ->> 'measure')::numeric as measure, (t ->> 'tax_amount')::numeric as amount
      from jsonb_array_elements(p_lines) as l, jsonb_array_elements(l -> 'taxes') as t),
  rates as (
    select s.code, s.name, s.percent, s.per_unit_amount, s.per_quantity, s.measure_unit_code,
           sum(s.taxable) as taxable, sum(s.measure) as measure, sum(s.amount) as amount
      from subtotals s
     group by s.code, s.name, s.percent, s.per_unit_amount, s.per_quantity, s.measure_unit_code),
  schemes as (
    select r.code, r.name, sum(r.amount) as amount, sum(r.taxable) as taxable,
           jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
             'percent', r.percent, 'taxable_amount', r.taxable, 'per_unit_amount', r.per_unit_amount,
             'per_quantity', r.per_quantity, 'measure_unit_code', r.measure_unit_code, 'measure', r.measure,
             'tax_amount', r.amount)) order by r.percent, r.per_unit_amount, r.per_quantity, r.measure_unit_code)
             as subtotals
      from rates r group by r.code, r.name)
  select coalesce(sum(s.taxable), 0), coalesce(sum(s.amount), 0),
         coalesce(sum(s.amount) filter (where s.code = '01'), 0),
         coalesce(jsonb_agg(jsonb_build_object('code', s.code, 'name', s.name, 'tax_amount', s.amount,
                                               'subtotals', s.subtotals)
                            order by einv_private.scheme_order(s.code)), '[]'::jsonb)
    into _exclusive, _taxes, _iva, _tax_totals
    from schemes s;

  _charges := einv_private.allowance_charge_amounts(p_allowance_charges, _extension, p_rate, 20, p_where);
  _payable := _extension + _taxes - (_charges ->> 'allowance_total')::numeric + (_charges ->> 'charge_total')::numeric;

  if jsonb_typeof(p_withholdings) is distinct from 'array' or jsonb_array_length(p_withholdings) > 3 then
    perform einv_private.refuse(p_where, 'withholdings', 'must be a list of at most 3 withholdings (05, 06, 07)');
  end if;
  for _item, _at in select e.x, e.n from jsonb_array_elements(p_withholdings) with ordinality as e (x, n) loop
    _field := format('withholdings[%s]', _at - 1);
    if jsonb_typeof(_item) <> 'object' then
      perform einv_private.refuse(p_where, _field, 'must be an object { code, percent }');
    end if;
    _key := einv_private.unknown_key(_item, array['code', 'percent']);
    if _key is not null then
      perform einv_private.refuse(p_where, _field || '.' || _key, 'is not a field of a withholding (code, percent)');
    end if;
    _code := case when jsonb_typeof(_item -> 'code') = 'string' then _item ->> 'code' end;
    _scheme := einv_private.tax_scheme(_code);
    if _scheme is null or not (_scheme ->> 'withholding')::boolean then
      perform einv_private.refuse(p_where, _field || '.code', format(
        'must be 05 (ReteIVA), 06 (ReteFuente) or 07 (ReteICA) (not %s)', coalesce(_item -> 'code', 'null')));
    end if;
    if _code = any (_codes) then
      perform einv_private.refuse(p_where, _field || '.code', format('%s is withheld once per document', _code));
    end if;
    _codes := array_append(_codes, _code);
    _percent := einv_private.input_decimal(_item -> 'percent', 3, 0, false, 100, true, p_where, _field || '.percent');
    if jsonb_typeof(_scheme -> 'rates') = 'array' and not (_scheme -> 'rates') @> to_jsonb(_percent) then
      perform einv_private.refuse(p_where, _field || '.percent', format('%s is not a rate of %s (%s): %s',
        _percent, _scheme ->> 'name', _code, _scheme ->> 'rates'));
    end if;
    -- ReteIVA withholds part of the IVA (Odoo's invoice_withholding: 15 % of 24.00 of IVA); the
    -- others, part of what is sold before taxes
    _base := case when _code = '05' then _iva else _extension end;
    _amount := einv_private.money(_base * _percent / 100);
    _withholdings := array_append(_withholdings, jsonb_build_object('code', _code, 'name', _scheme ->> 'name',
      'tax_amount', _amount,
      'subtotals', jsonb_build_array(jsonb_build_object('percent', _percent, 'taxable_amount', _base,
                                                        'tax_amount', _amount))));
    _withheld := _withheld + _amount;
  end loop;

  if jsonb_typeof(p_prepayments) is distinct from 'array' or jsonb_array_length(p_prepayments) > 20 then
    perform einv_private.refuse(p_where, 'prepayments', 'must be a list of at most 20 advances');
  end if;
  for _item, _at in select e.x, e.n from jsonb_array_elements(p_prepayments) with ordinality as e (x, n) loop
    _field := format('prepayments[%s]', _at - 1);
    if jsonb_typeof(_item) <> 'object' then
      perform einv_private.refuse(p_where, _field, 'must be an object { amount, received_date, reference? }');
    end if;
    _key := einv_private.unknown_key(_item, array['amount', 'received_date', 'reference']);
    if _key is not null then
      perform einv_private.refuse(p_where, _field || '.' || _key,
        'is not a field of an advance (amount, received_date, reference)');
    end if;
    _amount := einv_private.money(einv_private.input_decimal(_item -> 'amount', 2, 0, false, 1000000000000, false,
      p_where, _field || '.amount') * p_rate);
    _date := null;
    if jsonb_typeof(_item -> 'received_date') = 'string' and _item ->> 'received_date' ~ '^20[0-9]{2}-[0-9]{2}-[0-9]{2}$' then
      begin
        _date := (_item ->> 'received_date')::date;
      exception when datetime_field_overflow or invalid_datetime_format then
        _date := null; -- 2024-02-30
      end;
    end if;
    if _date is null then
      perform einv_private.refuse(p_where, _field || '.received_date', 'must be a date, YYYY-MM-DD, from 2000');
    end if;
    if _item ? 'reference' and (jsonb_typeof(_item -> 'reference') <> 'string'
                                or length(_item ->> 'reference') not between 1 and 60) then
      perform einv_private.refuse(p_where, _field || '.reference', 'must be a text of 1 to 60 characters');
    end if;
    _prepayments := array_append(_prepayments, jsonb_build_object('id', _at, 'reference', _item ->> 'reference',
      'received_date', _date, 'paid_amount', _amount));
    _prepaid := _prepaid + _amount;
  end loop;

  select a.name, a.amount into _key, _amount
    from (values ('line_extension_amount', _extension), ('tax_exclusive_amount', _exclusive),
                 ('tax_inclusive_amount', _extension + _taxes), ('payable_amount', abs(_payable)),
                 ('prepaid_amount', _prepaid)) as a (name, amount)
   where a.amount >= 1000000000000 limit 1;
  if found then
    perform einv_private.refuse(p_where, 'total', format(
      'would make %s %s pesos: amounts of 1,000,000,000,000 or more cannot be processed', _key, _amount));
  end if;

  return jsonb_build_object(
    'line_extension_amount', _extension, 'tax_exclusive_amount', _exclusive, 'tax_total', _taxes,
    'tax_inclusive_amount', _extension + _taxes,
    'allowance_total_amount', (_charges ->> 'allowance_total')::numeric,
    'charge_total_amount', (_charges ->> 'charge_total')::numeric,
    'payable_amount', _payable, 'prepaid_amount', _prepaid, 'withholding_total_amount', _withheld,
    'net_payable_amount', _payable - _withheld - _prepaid,
    'tax_totals', _tax_totals,
    'withholding_totals', coalesce((select jsonb_agg(w order by w ->> 'code') from unnest(_withholdings) as w),
                                   '[]'::jsonb),
    'allowance_charges', _charges -> 'items', 'prepayments', to_jsonb(_prepayments));
end
$$;

-- ─── invoices: the triggers that keep the amounts ────────────────────────────────────────────────
-- A line's amounts, before it is written (any writer: what is written in their columns is
-- computed over), at its invoice's exchange rate, in pesos and, for a foreign currency, in it.
-- It sorts after invoice_lines_freeze_sent (triggers fire by name), which has made sure that the
-- invoice is one the caller may write and that it is still `pendiente`. Security definer: it reads
-- the invoice and calls private functions that members may not.
create function einv_private.invoice_line_set_amounts() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  _invoice record;
  _where text := format('invoice line %s', new.position);
  _amounts jsonb;
begin
  select i.currency, coalesce(i.exchange_rate, 1) as rate into _invoice
    from public.invoices i where i.id = new.invoice_id;
  -- a list left out of a bulk insert (PostgREST writes null for a key other rows have) is empty
  new.taxes := coalesce(new.taxes, '[]');
  new.allowance_charges := coalesce(new.allowance_charges, '[]');
  if scale(trim_scale(new.unit_price)) > 6 then
    perform einv_private.refuse(_where, 'unit_price', format('has at most 6 decimals (not %s)', new.unit_price));
  end if;
  new.unit_price := einv_private.price(new.unit_price);
  _amounts := einv_private.line_amounts(new.quantity, new.unit_price, new.taxes, new.allowance_charges,
                                        _invoice.rate, _where);
  new.price_amount := (_amounts ->> 'price_amount')::numeric;
  new.line_extension := (_amounts ->> 'line_extension')::numeric;
  new.tax_amount := (_amounts ->> 'tax_amount')::numeric;
  new.tax_subtotals := _amounts -> 'taxes';
  new.allowance_charge_amounts := _amounts -> 'allowance_charges';
  new.currency_amounts := case when _invoice.currency is distinct from 'COP' then
    einv_private.line_amounts(new.quantity, new.unit_price, new.taxes, new.allowance_charges, 1, _where) end;
  return new;
end
$$;

create trigger invoice_lines_set_amounts before insert or update on public.invoice_lines
  for each row execute function einv_private.invoice_line_set_amounts();

-- An invoice's totals, before it is written, from its lines' amounts and its own inputs (any
-- writer, as above). Lines change their invoice's totals through `invoice_lines_changed` below,
-- which writes the invoice and so brings it here. Once it has left `pendiente` its amounts are what
-- was sent: nothing is computed again (and …_core_schema.sql's freeze refuses any change).
create function einv_private.invoice_set_amounts() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  _lines jsonb;
  _deal jsonb;
  _amounts jsonb;
begin
  if tg_op = 'UPDATE' and new.status <> 'pendiente' then
    return new;
  end if;
  new.allowance_charges := coalesce(new.allowance_charges, '[]');
  new.withholdings := coalesce(new.withholdings, '[]');
  new.prepayments := coalesce(new.prepayments, '[]');
  select coalesce(jsonb_agg(jsonb_build_object('line_extension', l.line_extension, 'taxes', l.tax_subtotals)),
                  '[]'::jsonb),
         coalesce(jsonb_agg(l.currency_amounts) filter (where l.currency_amounts is not null), '[]'::jsonb)
    into _lines, _deal
    from public.invoice_lines l where l.invoice_id = new.id;
  _amounts := einv_private.document_amounts(_lines, new.allowance_charges, new.withholdings, new.prepayments,
                                            coalesce(new.exchange_rate, 1), 'invoice');
  new.subtotal := (_amounts ->> 'line_extension_amount')::numeric;
  new.tax_total := (_amounts ->> 'tax_total')::numeric;
  new.total := (_amounts ->> 'payable_amount')::numeric;
  new.tax_exclusive_amount := (_amounts ->> 'tax_exclusive_amount')::numeric;
  new.tax_inclusive_amount := (_amounts ->> 'tax_inclusive_amount')::numeric;
  new.allowance_total_amount := (_amounts ->> 'allowance_total_amount')::numeric;
  new.charge_total_amount := (_amounts ->> 'charge_total_amount')::numeric;
  new.prepaid_amount := (_amounts ->> 'prepaid_amount')::numeric;
  new.withholding_total_amount := (_amounts ->> 'withholding_total_amount')::numeric;
  new.net_payable_amount := (_amounts ->> 'net_payable_amount')::numeric;
  new.tax_totals := _amounts -> 'tax_totals';
  new.withholding_totals := _amounts -> 'withholding_totals';
  new.allowance_charge_amounts := _amounts -> 'allowance_charges';
  new.prepayment_amounts := _amounts -> 'prepayments';
  new.currency_totals := case when new.currency <> 'COP' then
    einv_private.document_amounts(_deal, new.allowance_charges, new.withholdings, new.prepayments, 1, 'invoice') end;
  new.problems := einv_private.invoice_problems(new);
  return new;
end
$$;

create trigger invoices_set_amounts before insert or update on public.invoices
  for each row execute function einv_private.invoice_set_amounts();

-- After a statement that wrote lines: each invoice they belong to is written again, in id order
-- (the order a claim locks invoices in), so its totals are computed once per statement from all its
-- lines — a 1,000-line insert computes its invoice once, not once per line. Only drafts: a line of
-- a sent invoice cannot change, and an invoice being deleted takes its lines with it.
create function einv_private.invoice_lines_changed() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  _invoices uuid[];
  _invoice uuid;
begin
  -- (a transition table exists only for the events that have it: each is read in its own branch)
  if tg_op = 'INSERT' then
    _invoices := array(select distinct a.invoice_id from lines_after a);
  elsif tg_op = 'DELETE' then
    _invoices := array(select distinct b.invoice_id from lines_before b);
  else
    _invoices := array(select a.invoice_id from lines_after a union select b.invoice_id from lines_before b);
  end if;
  for _invoice in select x from unnest(_invoices) as x order by x loop
    update public.invoices i set subtotal = i.subtotal where i.id = _invoice and i.status = 'pendiente';
  end loop;
  return null;
end
$$;

create trigger invoice_lines_inserted after insert on public.invoice_lines
  referencing new table as lines_after
  for each statement execute function einv_private.invoice_lines_changed();
create trigger invoice_lines_updated after update on public.invoice_lines
  referencing old table as lines_before new table as lines_after
  for each statement execute function einv_private.invoice_lines_changed();
create trigger invoice_lines_deleted after delete on public.invoice_lines
  referencing old table as lines_before
  for each statement execute function einv_private.invoice_lines_changed();

-- A new currency or exchange rate changes every line's amounts in pesos: the lines are written
-- again (their trigger reads the rate the invoice now has), and then, once, the invoice's totals.
create function einv_private.invoice_rate_changed() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.invoice_lines l set unit_price = l.unit_price where l.invoice_id = new.id;
  return null;
end
$$;

create trigger invoices_rate_changed after update of currency, exchange_rate on public.invoices
  for each row
  when (old.currency is distinct from new.currency or old.exchange_rate is distinct from new.exchange_rate)
  execute function einv_private.invoice_rate_changed();

-- ─── the buyer's person type ────────────────────────────────────────────────────────────────────
-- AdditionalAccountID: the one given (1 jurídica, 2 natural), else, read the way most are, a
-- company when identified by a NIT (Colombian or foreign: 31, 50) and a natural person otherwise.
-- Read, not stored: a draft whose identification changes is read again, and one given stays given.
create function einv_private.person_type(p_given text, p_id_type text) returns text
language sql immutable parallel safe as $$
  select coalesce(p_given, case when p_id_type in ('31', '50') then '1' else '2' end)
$$;

-- ─── what /transmit refuses that no single write could ─────────────────────────────────────────
-- The problems of an invoice's amounts and parties that depend on more than one row or input, so
-- they are not refused while the draft is written in steps: kept with its amounts (`problems`, which
-- the web app may show), carried by the payload (…_lifecycle.sql, with the one that depends on the
-- issue date the service stamps) and refused by /transmit while there is one. Fields named as the
-- web app writes them.
create function einv_private.invoice_problems(p_invoice public.invoices) returns text[]
language sql immutable parallel safe as $$
  select array_remove(array[
    case when p_invoice.total < 0 then format(
      'allowance_charges: the invoice''s discounts (%s) exceed its amount with taxes and charges (%s)',
      p_invoice.allowance_total_amount, p_invoice.tax_inclusive_amount + p_invoice.charge_total_amount) end,
    case when p_invoice.total >= 0 and p_invoice.net_payable_amount < 0 then format(
      'prepayments, withholdings: the advances (%s) and withholdings (%s) exceed the payable amount (%s)',
      p_invoice.prepaid_amount, p_invoice.withholding_total_amount, p_invoice.total) end,
    case when exists (select 1 from pg_catalog.jsonb_array_elements(p_invoice.withholding_totals) w
                       where w ->> 'code' = '05' and (w ->> 'tax_amount')::numeric = 0)
         then 'withholdings: ReteIVA (05) withholds part of the IVA, and this invoice has no IVA to withhold from' end,
    case when p_invoice.buyer_id_number = '222222222222'
              and (p_invoice.buyer_fiscal_responsibilities <> array['R-99-PN'] or p_invoice.buyer_tax_scheme <> 'ZZ'
                   or einv_private.person_type(p_invoice.buyer_person_type, p_invoice.buyer_id_type) <> '2')
         then 'the final consumer 222222222222 is a natural person (buyer_person_type 2) not responsible for taxes '
              || '(buyer_fiscal_responsibilities R-99-PN, buyer_tax_scheme ZZ)' end
  ], null)
$$;
