-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- The fiscal-document lifecycle, written once for every kind of document (docs/adr/0001).
--
-- An invoice and a credit note are both fiscal documents: numbered, claimed with a lease, submitted
-- with an idempotency key, recorded, re-queried, stamped into a PDF. Each kind keeps its content in
-- its own table, and every such table carries the same block of lifecycle columns, the composite
-- type `einv_private.lifecycle` below (a catalogue test holds them equal). Everything here works on
-- that block, for the table a kind's row in `einv_private.document_kinds` names; what differs per
-- kind is data there — its table, its word for "accepted" (`transmitida`, `emitida`) and its payload
-- builder — so a new kind is a row, its tables and one function, and nothing here changes.
--
-- Exactly-once rests on three things: (1) a claim takes row locks in id order and moves each
-- document to `en_proceso` with a lease, so a concurrent call finds it claimed and skips it; (2) an
-- outcome is recorded only by the holder of the claim (same attempt number); (3) a document that
-- may have reached the provider before is queried, never re-sent blindly (`action = 'query'`), and
-- a resend reuses the idempotency key of the submit that may have arrived (`submitted_attempt`).
-- The issuer is frozen at the first claim, so every resend and every PDF shows what was sent.
-- So is the issue date and time (DESIGN §12, docs/adr/0010): the claim that first sends a document
-- stamps them from the instant the service passes (its Clock), in Colombia's time, and a resend of
-- what may be at the provider keeps them, so its CUFE/CUDE never changes.
--
-- Errors are `P0001` with the API error code in `hint`, a reason code as the message and the kind in
-- `detail`; the sentences the caller reads are made in TypeScript (shared/db/reasons.ts).
--
-- The functions a request calls are PL/pgSQL, even the one-statement ones: a `language sql`
-- function that cannot be inlined (a `set search_path` or `security definer` prevents it) has its
-- body parsed and planned once per calling statement, so once per request, where PL/pgSQL keeps its
-- statements' plans for the session (a pooled connection).
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

-- ─── the lifecycle block and the kinds ───────────────────────────────────────────────────────────
create type einv_private.lifecycle as (
  status text,
  authority_code text,
  qr_text text,
  provider_reference text,
  environment text,
  last_message text,
  last_code text,
  authority_message text,
  authority_rules jsonb,
  attempt_count integer,
  submitted_attempt integer,
  refused_attempt integer,
  lease_until timestamptz,
  issuer_snapshot jsonb,
  -- when the document is issued, in Colombia's civil time (`-05`): a draft's own values until the
  -- claim stamps them (they are a draft column too, a preview a member may write while `pendiente`)
  issue_date date,
  issue_time time(0) with time zone,
  claimed_at timestamptz,
  transmitted_at timestamptz,
  status_checked_at timestamptz
);

-- The kinds of fiscal document. Each kind's migration adds its row, once its table exists.
create table einv_private.document_kinds (
  kind text primary key check (kind ~ '^[a-z_]{1,30}$'),
  -- holds `id`, `org_id`, `company_id`, the content columns and the lifecycle block
  content_table regclass not null unique,
  -- the status once the authority accepted it
  accepted_status text not null check (accepted_status ~ '^[a-z_]{1,30}$'),
  -- einv_private.<…>(p_id uuid, p_issuer jsonb) returns jsonb: the content, lines and issuer, with
  -- the authority code's secret; positive lists only
  payload regproc not null
);
revoke all on einv_private.document_kinds from public, anon, authenticated, service_role;

-- The table holding a kind's documents, as a qualified name for `format('%s')`; unknown kinds refused.
create function einv_private.kind_table(p_kind text) returns text
language plpgsql stable set search_path = '' as $$
declare
  _table text;
begin
  select k.content_table::text into _table from einv_private.document_kinds k where k.kind = p_kind;
  if _table is null then
    raise exception 'unknown_kind' using errcode = 'P0001', hint = 'business_rule', detail = coalesce(p_kind, '');
  end if;
  return _table;
end
$$;

-- The status a document of the kind has once the authority accepted it.
create function einv_private.accepted_status(p_kind text) returns text
language plpgsql stable set search_path = '' as $$
begin
  return (select k.accepted_status from einv_private.document_kinds k where k.kind = p_kind);
end
$$;

-- The block's columns, in the type's order, each prefixed (`d.status, d.authority_code, …`).
create function einv_private.lifecycle_columns(p_prefix text) returns text
language sql stable set search_path = '' as $$
  select string_agg(p_prefix || quote_ident(a.attname), ', ' order by a.attnum)
    from pg_catalog.pg_attribute a
   where a.attrelid = 'einv_private.lifecycle'::regclass and a.attnum > 0 and not a.attisdropped
$$;

-- ─── the generic entry points, generated per kind ────────────────────────────────────────────────
-- Three functions reach a kind's table: `read_documents` (the documents of a kind among `p_ids`
-- that belong to the org, with their block; locked for update in id order, the order every writer
-- locks them in, when `p_lock`), `write_lifecycle` (the one writer of the block) and
-- `document_payload` (a document's payload by its kind's builder, with the issuer frozen at the
-- first claim, if any). They are not written by hand: `compile_document_kinds()` writes them from
-- einv_private.document_kinds as static SQL with a branch per kind, the table and the lifecycle
-- columns spelled out, and a trigger on the registry writes them again when a kind is added or
-- changed, so a new kind is still a row, its tables and one payload function (adr 0001). Static,
-- because PL/pgSQL keeps a static statement's plan for the session (a pooled connection), where
-- dynamic SQL (`execute format(...)`) would be planned anew on every call.

-- A `case` over the kinds' branches; an unknown kind (or none registered) raises unknown_kind.
create function einv_private.kind_dispatch(p_branches text) returns text
language sql immutable set search_path = '' as $$
  select case when p_branches = '' then 'perform einv_private.kind_table(p_kind); -- raises unknown_kind'
              else 'case p_kind' || p_branches || '
    else perform einv_private.kind_table(p_kind); -- raises unknown_kind
  end case;' end
$$;

create function einv_private.compile_document_kinds() returns void
language plpgsql set search_path = '' as $compile$
declare
  _kind record;
  _columns text := einv_private.lifecycle_columns('d.');
  _targets text := einv_private.lifecycle_columns('');
  _read text := '';
  _write text := '';
  _payload text := '';
begin
  for _kind in select k.kind, k.content_table::text as content_table, k.payload::text as payload
                 from einv_private.document_kinds k order by k.kind loop
    _read := _read || format($b$
    when %1$L then
      if p_lock then
        return query select d.id, d.company_id, row(%2$s)::einv_private.lifecycle from %3$s d
                      where d.id = any (p_ids) and d.org_id = p_org_id order by d.id for update of d;
      else
        return query select d.id, d.company_id, row(%2$s)::einv_private.lifecycle from %3$s d
                      where d.id = any (p_ids) and d.org_id = p_org_id order by d.id;
      end if;$b$, _kind.kind, _columns, _kind.content_table);
    _write := _write || format($b$
    when %1$L then
      update %2$s d set (%3$s) = (select (p_life).*) where d.id = p_id;$b$,
      _kind.kind, _kind.content_table, _targets);
    _payload := _payload || format($b$
    when %1$L then
      return %2$s(p_id, coalesce(p_snapshot, einv_private.issuer_of(p_company_id)));$b$,
      _kind.kind, _kind.payload);
  end loop;

  -- `create or replace` keeps each function's owner and grants (revoked from everybody).
  execute format($f$
create or replace function einv_private.read_documents(p_kind text, p_org_id uuid, p_ids uuid[], p_lock boolean)
returns table (id uuid, company_id uuid, life einv_private.lifecycle)
language plpgsql set search_path = '' as $body$
-- generated by einv_private.compile_document_kinds() from einv_private.document_kinds
begin
  %s
end
$body$$f$, einv_private.kind_dispatch(_read));

  execute format($f$
create or replace function einv_private.write_lifecycle(p_kind text, p_id uuid, p_life einv_private.lifecycle)
returns void
language plpgsql set search_path = '' as $body$
-- generated by einv_private.compile_document_kinds() from einv_private.document_kinds
begin
  %s
end
$body$$f$, einv_private.kind_dispatch(_write));

  execute format($f$
create or replace function einv_private.document_payload(
  p_kind text, p_id uuid, p_company_id uuid, p_snapshot jsonb
) returns jsonb
language plpgsql stable set search_path = '' as $body$
-- generated by einv_private.compile_document_kinds() from einv_private.document_kinds
begin
  %s
end
$body$$f$, einv_private.kind_dispatch(_payload));
end
$compile$;

create function einv_private.compile_document_kinds_trigger() returns trigger
language plpgsql set search_path = '' as $$
begin
  perform einv_private.compile_document_kinds();
  return null;
end
$$;

create trigger document_kinds_compile after insert or update or delete or truncate
  on einv_private.document_kinds
  for each statement execute function einv_private.compile_document_kinds_trigger();


-- The document of a kind in the org, with its block (locked when `p_lock`); `not_found` otherwise.
create function einv_private.document_of(p_kind text, p_org_id uuid, p_id uuid, p_lock boolean)
returns table (id uuid, company_id uuid, life einv_private.lifecycle)
language plpgsql set search_path = '' as $$
begin
  return query select * from einv_private.read_documents(p_kind, p_org_id, array[p_id], p_lock);
  if not found then
    raise exception 'not_found' using errcode = 'P0001', hint = 'not_found', detail = p_kind;
  end if;
end
$$;

-- The one event writer of the lifecycle (and of the credentials' and deliveries' events).
create function einv_private.log_event(
  p_org_id uuid, p_kind text, p_document_id uuid, p_event text, p_actor_id uuid, p_data jsonb
) returns void
language plpgsql set search_path = '' as $$
begin
  insert into public.events (org_id, document_type, document_id, kind, actor_id, data)
  values (p_org_id, p_kind, p_document_id, p_event, p_actor_id, coalesce(p_data, '{}'::jsonb));
end
$$;

-- The one place a provider's answer changes a document's block: its status, the authority's code
-- and QR text, the provider's reference, the message, when it was accepted and when last checked.
create function einv_private.with_outcome(p_kind text, p_life einv_private.lifecycle, p_outcome jsonb)
returns einv_private.lifecycle
language plpgsql stable set search_path = '' as $$
declare
  _life einv_private.lifecycle := p_life;
begin
  _life.status := coalesce(p_outcome ->> 'status', p_life.status);
  _life.authority_code := coalesce(p_outcome ->> 'authority_code', p_life.authority_code);
  _life.qr_text := coalesce(p_outcome ->> 'qr_text', p_life.qr_text);
  _life.provider_reference := coalesce(p_outcome ->> 'provider_reference', p_life.provider_reference);
  _life.last_message := coalesce(p_outcome ->> 'message', p_life.last_message);
  _life.last_code := coalesce(p_outcome ->> 'code', p_life.last_code);
  -- the authority's words belong to the answer they came with: an outcome without them (not sent,
  -- unknown) leaves none behind
  _life.authority_message := p_outcome ->> 'authority_message';
  _life.authority_rules := p_outcome -> 'authority_rules';
  -- `definite`: the provider definitely holds nothing it could accept under the attempt in doubt (it
  -- rejected it, or nothing of ours could have reached it); an error is then settled, not in doubt
  if coalesce((p_outcome ->> 'definite')::boolean, false) then
    _life.refused_attempt := coalesce((p_outcome ->> 'submitted_attempt')::integer, p_life.submitted_attempt);
  end if;
  if _life.status = einv_private.accepted_status(p_kind) then
    _life.transmitted_at := coalesce((p_outcome ->> 'validated_at')::timestamptz, p_life.transmitted_at, now());
  end if;
  _life.status_checked_at := now();
  return _life;
end
$$;

-- What an answer says of the outcome just kept: its code, the API's sentence, the authority's words;
-- and whether its transaction queued a webhook delivery (einv_private.webhooks_queued, …_events.sql).
create function einv_private.recorded_result(p_life einv_private.lifecycle) returns jsonb
language plpgsql stable set search_path = '' as $$
begin
  return jsonb_build_object('code', p_life.last_code, 'message', p_life.last_message,
    'authority_message', p_life.authority_message, 'authority_rules', p_life.authority_rules,
    'webhooks_queued', einv_private.webhooks_queued());
end
$$;

-- ─── what the provider and the PDF get: positive lists, so a new column reaches neither ─────────
-- The issuer as members may see it (no secret): the company as it is now.
create function einv_private.issuer_of(p_company_id uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  return (
    select jsonb_build_object(
             'id', c.id, 'org_id', c.org_id, 'nit', c.nit, 'check_digit', c.check_digit,
             'legal_name', c.legal_name, 'trade_name', c.trade_name, 'person_type', c.person_type,
             'tax_regime', c.tax_regime, 'tax_scheme', c.tax_scheme,
             'fiscal_responsibilities', c.fiscal_responsibilities,
             'address', c.address, 'city_code', c.city_code, 'city_name', c.city_name,
             'department_code', c.department_code, 'department_name', c.department_name,
             'postal_zone', c.postal_zone, 'country_code', c.country_code, 'email', c.email, 'phone', c.phone,
             'invoice_prefix', c.invoice_prefix, 'resolution_number', c.resolution_number,
             'resolution_date', c.resolution_date, 'resolution_from', c.resolution_from,
             'resolution_to', c.resolution_to, 'resolution_valid_until', c.resolution_valid_until,
             'active_environment', c.active_environment)
      from public.companies c where c.id = p_company_id);
end
$$;

-- An invoice's content with its lines, and `p_issuer` with the CUFE's secret (the technical key,
-- read live: it is kept in no snapshot that members can read). Its amounts are the database's
-- (…_amounts.sql): in pesos, per line (`taxes`, `allowance_charges`: each with what it comes to)
-- and per document (the LegalMonetaryTotal fields, `tax_totals` per scheme and rate,
-- `withholding_totals`, `allowance_charges`, `prepayments`), and in the deal's currency when it is
-- not COP (`currency_amounts`, `currency_totals`); `problems` lists what /transmit must refuse.
-- `subtotal`, `tax_total` and `total` are LineExtensionAmount, the taxes' sum and PayableAmount.
create function einv_private.invoice_payload(p_id uuid, p_issuer jsonb) returns jsonb
language plpgsql stable set search_path = '' as $$
begin
  return (
    select jsonb_build_object(
             'id', i.id, 'org_id', i.org_id, 'company_id', i.company_id, 'number', i.number,
             'issue_date', i.issue_date, 'issue_time', i.issue_time, 'due_date', i.due_date,
             'currency', i.currency, 'exchange_rate', i.exchange_rate, 'exchange_rate_date', i.exchange_rate_date,
             'payment_form', i.payment_form, 'payment_method', i.payment_method,
             'notes', i.notes, 'buyer_id_type', i.buyer_id_type, 'buyer_id_number', i.buyer_id_number,
             'buyer_check_digit', i.buyer_check_digit,
             'buyer_person_type', einv_private.person_type(i.buyer_person_type, i.buyer_id_type),
             'buyer_fiscal_responsibilities', i.buyer_fiscal_responsibilities,
             'buyer_tax_scheme', i.buyer_tax_scheme, 'buyer_name', i.buyer_name,
             'buyer_email', i.buyer_email, 'buyer_address', i.buyer_address,
             'buyer_city_code', i.buyer_city_code, 'buyer_city_name', i.buyer_city_name,
             'buyer_department_code', i.buyer_department_code, 'buyer_department_name', i.buyer_department_name,
             'buyer_postal_zone', i.buyer_postal_zone, 'buyer_country_code', i.buyer_country_code,
             'buyer_phone', i.buyer_phone)
           -- (in parts: a function takes at most 100 arguments)
           || jsonb_build_object(
             'subtotal', i.subtotal, 'tax_total', i.tax_total, 'total', i.total,
             'tax_exclusive_amount', i.tax_exclusive_amount, 'tax_inclusive_amount', i.tax_inclusive_amount,
             'allowance_total_amount', i.allowance_total_amount, 'charge_total_amount', i.charge_total_amount,
             'prepaid_amount', i.prepaid_amount, 'withholding_total_amount', i.withholding_total_amount,
             'net_payable_amount', i.net_payable_amount, 'tax_totals', i.tax_totals,
             'withholding_totals', i.withholding_totals, 'allowance_charges', i.allowance_charge_amounts,
             'prepayments', i.prepayment_amounts, 'currency_totals', i.currency_totals,
             'problems', to_jsonb(i.problems || case when i.due_date < i.issue_date then array[format(
               'due_date %s is before the issue date %s', i.due_date, i.issue_date)] else '{}' end))
           || jsonb_build_object(
             'lines', coalesce((
               select jsonb_agg(jsonb_build_object(
                        'id', l.id, 'position', l.position, 'code', l.code, 'description', l.description,
                        'unit_code', l.unit_code, 'quantity', l.quantity, 'unit_price', l.unit_price,
                        'price_amount', l.price_amount, 'line_extension', l.line_extension,
                        'tax_amount', l.tax_amount, 'taxes', l.tax_subtotals,
                        'allowance_charges', l.allowance_charge_amounts, 'currency_amounts', l.currency_amounts)
                        order by l.position)
                 from public.invoice_lines l where l.invoice_id = i.id), '[]'::jsonb),
             'company', p_issuer || jsonb_build_object('technical_key',
               (select c.technical_key from public.companies c where c.id = i.company_id)))
      from public.invoices i
     where i.id = p_id);
end
$$;

insert into einv_private.document_kinds (kind, content_table, accepted_status, payload)
values ('invoice', 'public.invoices', 'transmitida', 'einv_private.invoice_payload');

-- ─── claim ───────────────────────────────────────────────────────────────────────────────────────
-- One entry per requested id, in request order: `action` is `send` (never sent), `query` (may have
-- reached the provider: ask before sending) or `skip` (left as it is; `reason` says why: accepted,
-- failed — with its `last_message` —, in_progress, not_found, test_set_in_production: a draft of
-- habilitación's test set while its company is in production, …_test_sets.sql).
-- The entries are gathered in arrays, which PL/pgSQL extends in place (a jsonb object extended with
-- `||` would be copied whole, issuer snapshots included, once per document), and matched to the
-- requested ids by a join. A company's issuer and active environment are looked up once per run of
-- its documents, not once per document.
--
-- When a document is issued (DESIGN §12, docs/adr/0010): `p_issued_at` is the service's instant (its
-- Clock), never the database's; to the second, written as Colombia's civil date and time
-- (America/Bogota, UTC−5 all year, so `-05`). A draft (`pendiente`) is stamped with it: its own
-- date and time were a preview. A document that may be at the provider (`query`) keeps its stamp,
-- so a resend carries the same CUFE/CUDE. One sent afresh after its every attempt was refused
-- (`send` from error or en_proceso: nothing of it at the provider can still be accepted) keeps its
-- stamp the same day and is re-stamped on a later one, since DIAN wants a document signed on its
-- issue date (FAD09e/CAD09e); its entry then names the stamp it had (`restamped_from`).
create function public.einv_document_claim(
  p_org_id uuid, p_kind text, p_document_ids jsonb, p_reissue boolean, p_actor_id uuid,
  p_lease_seconds integer, p_issued_at timestamptz
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _ids uuid[] := array(select jsonb_array_elements_text(p_document_ids)::uuid);
  _accepted text := einv_private.accepted_status(p_kind);
  -- the stamp of what this claim issues: truncated first, so the time never rounds into the next day
  _issued timestamptz := date_trunc('second', p_issued_at);
  _issue_date date := (_issued at time zone 'America/Bogota')::date;
  _issue_time time(0) with time zone := (_issued::time(0) with time zone) at time zone 'America/Bogota';
  _restamped_from jsonb;
  _skip text;
  _doc record;
  _life einv_private.lifecycle;
  _action text;
  _prior_submitted integer;
  -- the documents found, in lock order, each one's entry and (claimed ones) the issuer it is sent with
  _found uuid[] := '{}';
  _entries jsonb[] := '{}';
  _issuers jsonb[] := '{}';
  -- the company of the last claimed document: its issuer as it is now and its active environment
  _company uuid;
  _company_issuer jsonb;
  _company_environment text;
begin
  if p_issued_at is null then
    raise exception 'p_issued_at is required: the instant a claimed document is issued at'
      using errcode = '22004';
  end if;
  for _doc in select * from einv_private.read_documents(p_kind, p_org_id, _ids, true) loop
    _life := _doc.life;
    _action := case
      when _life.status = 'pendiente' then 'send'
      when p_reissue and _life.status in ('error', 'en_proceso')
           and (_life.lease_until is null or _life.lease_until < now())
        -- query first while an attempt may be at the provider undecided; a document never submitted,
        -- or whose every attempt the provider definitely refused, is sent afresh under a new key
        then case when _life.submitted_attempt is distinct from coalesce(_life.refused_attempt, -1)
                       and _life.submitted_attempt is not null then 'query' else 'send' end
    end;
    -- a draft of habilitación's test set is never sent in production: with its company in `prd` it is
    -- left as it is, named in its own entry (the trigger of …_test_sets.sql refuses such a claim outright)
    _skip := null;
    if _life.status = 'pendiente' and p_kind = 'invoice'
       and exists (select 1 from public.invoices i join public.companies c on c.id = i.company_id
                    where i.id = _doc.id and i.test_set_id is not null and c.active_environment = 'prd') then
      _action := null;
      _skip := 'test_set_in_production';
    end if;

    _found := array_append(_found, _doc.id);
    if _action is null then
      _entries := array_append(_entries, jsonb_build_object('document_id', _doc.id, 'action', 'skip',
        'status', _life.status,
        'reason', case
          when _skip is not null then _skip
          when _life.status = _accepted then 'accepted'
          when _life.status = 'error' then 'failed'
          else 'in_progress'
        end,
        'last_message', _life.last_message));
      _issuers := array_append(_issuers, null::jsonb);
      continue;
    end if;

    if _company is distinct from _doc.company_id then
      _company := _doc.company_id;
      _company_issuer := einv_private.issuer_of(_company);
      _company_environment := (select c.active_environment from public.companies c where c.id = _company);
    end if;
    _prior_submitted := _life.submitted_attempt;
    -- its issue moment: a draft's is stamped; one sent afresh on a later day than its stamp is
    -- stamped again; what may be at the provider keeps its own
    _restamped_from := null;
    if _life.status <> 'pendiente' and _action = 'send' and _life.issue_date is distinct from _issue_date then
      _restamped_from := jsonb_build_object('issue_date', _life.issue_date, 'issue_time', _life.issue_time);
    end if;
    if _life.status = 'pendiente' or _restamped_from is not null then
      _life.issue_date := _issue_date;
      _life.issue_time := _issue_time;
    end if;
    -- a new stamp is a new document at the authority (its CUFE/CUDE changes): what was recorded of
    -- the refused one must not be asked about again (a /refresh or reconcile would read its rejection)
    if _restamped_from is not null then
      _life.provider_reference := null;
      _life.authority_code := null;
      _life.qr_text := null;
    end if;
    _life.status := 'en_proceso';
    _life.attempt_count := _life.attempt_count + 1;
    -- a send records its intent before anything leaves: if this call dies before recording an
    -- outcome, the next reissue queries the provider and reuses this attempt's key. An attempt in
    -- doubt keeps its key; a fresh send (nothing in doubt) takes this attempt's.
    _life.submitted_attempt := case when _action = 'send' then _life.attempt_count else _life.submitted_attempt end;
    _life.claimed_at := now();
    _life.lease_until := now() + make_interval(secs => p_lease_seconds);
    -- a document that may be at the provider keeps its environment and issuer; one never sent takes
    -- the company's active environment, unless its kind set one (a credit note: its invoice's)
    if _prior_submitted is null then
      _life.environment := coalesce(_life.environment, _company_environment);
    end if;
    _life.issuer_snapshot := coalesce(_life.issuer_snapshot, _company_issuer);
    _life.last_message := 'transmission in progress';
    _life.last_code := 'in_progress';
    _life.authority_message := null;
    _life.authority_rules := null;
    perform einv_private.write_lifecycle(p_kind, _doc.id, _life);
    perform einv_private.log_event(p_org_id, p_kind, _doc.id, 'transmit_claimed', p_actor_id,
      jsonb_build_object('attempt', _life.attempt_count, 'action', _action, 'environment', _life.environment,
                         'issue_date', _life.issue_date, 'issue_time', _life.issue_time)
      || case when _restamped_from is null then '{}'::jsonb
              else jsonb_build_object('restamped_from', _restamped_from) end);

    -- the payload is attached below, once per requested id
    _entries := array_append(_entries, jsonb_build_object('document_id', _doc.id, 'action', _action,
      'status', _life.status, 'attempt', _life.attempt_count, 'submitted_attempt', _prior_submitted,
      'environment', _life.environment, 'company_id', _doc.company_id, 'restamped_from', _restamped_from));
    _issuers := array_append(_issuers, _life.issuer_snapshot);
  end loop;

  return (
    select jsonb_agg(
             case
               when e.entry is null then jsonb_build_object('document_id', t.id, 'action', 'skip',
                                                            'status', 'error', 'reason', 'not_found')
               when e.entry ->> 'action' = 'skip' then e.entry
               else e.entry || jsonb_build_object('document',
                      einv_private.document_payload(p_kind, t.id, (e.entry ->> 'company_id')::uuid, e.issuer))
             end order by t.ord)
      from unnest(_ids) with ordinality as t (id, ord)
      left join unnest(_found, _entries, _issuers) as e (id, entry, issuer) on e.id = t.id
  );
end
$$;

-- ─── record a transmission's outcome ─────────────────────────────────────────────────────────────
-- p_outcome: { status: <accepted> | error | en_proceso | pendiente, message, authority_code?,
--              qr_text?, provider_reference?, validated_at?, submitted_attempt?, definite?, detail? }.
-- `en_proceso` means the outcome is unknown: the lease is released so that a later reissue or
-- refresh can ask the provider. `pendiente` releases a document that was never submitted (a check
-- failed, no credential): it stays an editable draft, with the reason in last_message.
create function public.einv_document_record(
  p_org_id uuid, p_kind text, p_document_id uuid, p_attempt integer, p_outcome jsonb
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _status text := p_outcome ->> 'status';
  _doc record;
  _life einv_private.lifecycle;
begin
  if _status is null or _status not in ('error', 'en_proceso', 'pendiente', einv_private.accepted_status(p_kind)) then
    raise exception 'unknown_status' using errcode = 'P0001', hint = 'business_rule', detail = p_kind;
  end if;
  select * into _doc from einv_private.read_documents(p_kind, p_org_id, array[p_document_id], true);
  -- only the claim's holder records; and only a draft whose one intent to send is this claim's own
  -- (nothing earlier may be at the provider) goes back to pendiente
  if found then _life := _doc.life; end if;
  if _life.status is null or _life.status <> 'en_proceso' or _life.attempt_count <> p_attempt
     or (_status = 'pendiente' and _life.submitted_attempt is distinct from p_attempt) then
    raise exception 'not_claimed' using errcode = 'P0001', hint = 'invalid_state', detail = p_kind;
  end if;

  _life := einv_private.with_outcome(p_kind, _life, p_outcome);
  -- released without sending: the claim's intent is withdrawn
  _life.submitted_attempt := case when _status = 'pendiente' then null
                                  else coalesce((p_outcome ->> 'submitted_attempt')::integer, _life.submitted_attempt) end;
  -- after a rejection (or a release) the next submit is a new request: it takes the company anew
  -- (an error still in doubt keeps it: a resend under the same key must carry the same document)
  if _status = 'pendiente' or (_status = 'error' and (_life.submitted_attempt is null
                                                      or _life.submitted_attempt = _life.refused_attempt)) then
    _life.issuer_snapshot := null;
  end if;
  if _status = 'pendiente' then _life.environment := null; end if;
  _life.lease_until := null;
  perform einv_private.write_lifecycle(p_kind, p_document_id, _life);

  perform einv_private.log_event(p_org_id, p_kind, p_document_id,
    case when _status = 'pendiente' then 'transmit_not_sent' else 'transmit_attempt' end, null,
    jsonb_build_object('attempt', p_attempt, 'status', _status, 'message', _life.last_message,
                       'provider_reference', _life.provider_reference, 'authority_code', _life.authority_code)
    || coalesce(p_outcome -> 'detail', '{}'::jsonb));

  return jsonb_build_object('document_id', p_document_id, 'status', _life.status)
         || einv_private.recorded_result(_life);
end
$$;

-- ─── read ────────────────────────────────────────────────────────────────────────────────────────
-- A document of the org with its fiscal state and its current representation; not_found otherwise.
create function public.einv_document_get(p_org_id uuid, p_kind text, p_document_id uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  _doc record;
  _life einv_private.lifecycle;
begin
  select * into _doc from einv_private.document_of(p_kind, p_org_id, p_document_id, false);
  _life := _doc.life;
  return jsonb_build_object(
    'document', einv_private.document_payload(p_kind, _doc.id, _doc.company_id, _life.issuer_snapshot),
    'fiscal', jsonb_build_object(
      'status', _life.status, 'authority_code', _life.authority_code, 'qr_text', _life.qr_text,
      'provider_reference', _life.provider_reference, 'environment', _life.environment,
      'last_message', _life.last_message, 'transmitted_at', _life.transmitted_at,
      'attempt_count', _life.attempt_count,
      'in_flight', coalesce(_life.lease_until > now(), false)),
    'representation', (select to_jsonb(r) - 'id' from public.representations r
                        where r.document_type = p_kind and r.document_id = _doc.id));
end
$$;

-- ─── record a status query ───────────────────────────────────────────────────────────────────────
-- Records what the authority answered to a status query. Refuses (invalid_state) when the document
-- was never sent, changed since it was read (status or attempt), or a transmission holds it.
create function public.einv_document_refresh_record(
  p_org_id uuid, p_kind text, p_document_id uuid, p_expected_status text, p_expected_attempt integer,
  p_outcome jsonb
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _doc record;
  _before einv_private.lifecycle;
  _life einv_private.lifecycle;
begin
  select * into _doc from einv_private.document_of(p_kind, p_org_id, p_document_id, true);
  _before := _doc.life;
  if _before.status = 'pendiente' then
    raise exception 'never_sent' using errcode = 'P0001', hint = 'invalid_state', detail = p_kind;
  end if;
  if _before.status <> p_expected_status or _before.attempt_count <> p_expected_attempt
     or coalesce(_before.lease_until > now(), false) then
    raise exception 'busy' using errcode = 'P0001', hint = 'invalid_state', detail = p_kind;
  end if;
  if coalesce(p_outcome ->> 'status', p_expected_status)
     not in ('en_proceso', 'error', einv_private.accepted_status(p_kind)) then
    raise exception 'unknown_status' using errcode = 'P0001', hint = 'business_rule', detail = p_kind;
  end if;

  -- An answer that says nothing of the document (the provider has no record of it, its status is
  -- unchanged) keeps its last outcome — a rejection's rules stay — and only notes when it was asked.
  if p_outcome ->> 'code' = 'unknown_to_provider' then
    _life := _before;
    _life.status_checked_at := now();
  else
    _life := einv_private.with_outcome(p_kind, _before, p_outcome);
  end if;
  perform einv_private.write_lifecycle(p_kind, p_document_id, _life);
  perform einv_private.log_event(p_org_id, p_kind, p_document_id, 'status_refreshed',
    nullif(p_outcome ->> 'actor_id', '')::uuid,
    jsonb_build_object('from', _before.status, 'to', _life.status,
                       'changed', _life.status <> _before.status
                                  or _life.authority_code is distinct from _before.authority_code,
                       'message', coalesce(p_outcome ->> 'message', _life.last_message)));

  return jsonb_build_object('document_id', p_document_id, 'status', _life.status,
    'authority_code', _life.authority_code, 'checked_at', _life.status_checked_at)
         || case when p_outcome ->> 'code' = 'unknown_to_provider'
                 then jsonb_build_object('code', p_outcome ->> 'code', 'message', p_outcome ->> 'message',
                                         'authority_message', null, 'authority_rules', null)
                 else einv_private.recorded_result(_life) end;
end
$$;

-- ─── with the credentials the documents are sent with ───────────────────────────────────────────
-- A claim (`einv_document_claim`, the same locks and entries) and, in the same transaction, the
-- stored credential of `p_service` for each company and environment among the entries it did not
-- skip — of the org only, ciphertext included, as `einv_credential_get` reads it: what sending the
-- claimed documents needs, in one round trip. Answers `{ entries, credentials, webhooks_due }`; a
-- company without a credential has no row. `webhooks_due`: a webhook delivery of the org waits to be
-- sent — this claim queued one (einv_private.webhooks_queued, …_events.sql), or one is due already (a
-- retry, a drain's lapsed lease) — so the request's drain after its answer has something to take.
create function public.einv_document_claim_sending(
  p_org_id uuid, p_kind text, p_document_ids jsonb, p_reissue boolean, p_actor_id uuid,
  p_lease_seconds integer, p_issued_at timestamptz, p_service text
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _entries jsonb := public.einv_document_claim(p_org_id, p_kind, p_document_ids, p_reissue, p_actor_id,
                                               p_lease_seconds, p_issued_at);
begin
  return jsonb_build_object('entries', _entries, 'credentials', coalesce((
    select jsonb_agg(c.credential order by w.company_id, w.environment)
      from (select distinct e ->> 'company_id' as company_id, e ->> 'environment' as environment
              from jsonb_array_elements(_entries) e
             where e ->> 'action' <> 'skip') w
     cross join lateral (select public.einv_credential_get(p_org_id, w.company_id::uuid, p_service,
                                                           w.environment) as credential) c
     where c.credential is not null), '[]'::jsonb),
    'webhooks_due', einv_private.webhooks_queued() or exists (
      select 1 from einv_private.webhook_deliveries d
       where d.org_id = p_org_id and d.state = 'pending' and d.next_attempt_at <= now()));
end
$$;

revoke all on function public.einv_document_claim_sending(uuid, text, jsonb, boolean, uuid, integer, timestamptz, text)
  from public, anon, authenticated, service_role;
grant execute on function public.einv_document_claim_sending(uuid, text, jsonb, boolean, uuid, integer, timestamptz, text)
  to service_role;

-- A document and the stored credential of one service for its company in the document's
-- environment (the one it was sent in, else the company's active one), as
-- `einv_document_claim_sending` returns the claim's: a representation or a refresh needs both.
create function public.einv_document_get_with_credentials(
  p_org_id uuid, p_kind text, p_document_id uuid, p_service text
) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  _record jsonb := public.einv_document_get(p_org_id, p_kind, p_document_id);
  _credential jsonb := public.einv_credential_get(
    p_org_id, (_record #>> '{document,company_id}')::uuid, p_service,
    coalesce(_record #>> '{fiscal,environment}', _record #>> '{document,company,active_environment}'));
begin
  return jsonb_build_object('record', _record, 'credentials',
    case when _credential is null then '[]'::jsonb else jsonb_build_array(_credential) end);
end
$$;

-- ─── authorized in the same call ─────────────────────────────────────────────────────────────────
-- The service's first call of a request, with the caller's membership checked in the same round
-- trip: each `_authorized` function looks up the membership of `p_user_id` (the verified token's
-- subject, passed by the service) and makes the call only when that user is a member of the org
-- with one of `p_roles` (a JSON array of role names). It answers `{ membership }` when not (null:
-- not a member), `{ membership, result }` when so; the membership has the shape
-- `einv_caller_membership` answers. Nothing is read or written for a caller who is not authorized.
create function public.einv_document_get_with_credentials_authorized(
  p_user_id uuid, p_roles jsonb, p_org_id uuid, p_kind text, p_document_id uuid, p_service text
) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  _membership jsonb := einv_private.membership_of(p_org_id, p_user_id);
begin
  if not einv_private.role_listed(_membership, p_roles) then
    return jsonb_build_object('membership', _membership);
  end if;
  return jsonb_build_object('membership', _membership, 'result',
    public.einv_document_get_with_credentials(p_org_id, p_kind, p_document_id, p_service));
end
$$;

create function public.einv_document_claim_sending_authorized(
  p_user_id uuid, p_roles jsonb, p_org_id uuid, p_kind text, p_document_ids jsonb, p_reissue boolean,
  p_actor_id uuid, p_lease_seconds integer, p_issued_at timestamptz, p_service text
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _membership jsonb := einv_private.membership_of(p_org_id, p_user_id);
begin
  if not einv_private.role_listed(_membership, p_roles) then
    return jsonb_build_object('membership', _membership);
  end if;
  return jsonb_build_object('membership', _membership, 'result',
    public.einv_document_claim_sending(p_org_id, p_kind, p_document_ids, p_reissue, p_actor_id,
                                       p_lease_seconds, p_issued_at, p_service));
end
$$;

revoke all on function public.einv_document_get_with_credentials(uuid, text, uuid, text),
  public.einv_document_get_with_credentials_authorized(uuid, jsonb, uuid, text, uuid, text),
  public.einv_document_claim_sending_authorized(uuid, jsonb, uuid, text, jsonb, boolean, uuid, integer, timestamptz, text)
  from public, anon, authenticated, service_role;
grant execute on function public.einv_document_get_with_credentials(uuid, text, uuid, text),
  public.einv_document_get_with_credentials_authorized(uuid, jsonb, uuid, text, uuid, text),
  public.einv_document_claim_sending_authorized(uuid, jsonb, uuid, text, jsonb, boolean, uuid, integer, timestamptz, text)
  to service_role;

revoke all on function public.einv_document_claim(uuid, text, jsonb, boolean, uuid, integer, timestamptz),
  public.einv_document_record(uuid, text, uuid, integer, jsonb),
  public.einv_document_get(uuid, text, uuid),
  public.einv_document_refresh_record(uuid, text, uuid, text, integer, jsonb)
  from public, anon, authenticated, service_role;
grant execute on function public.einv_document_claim(uuid, text, jsonb, boolean, uuid, integer, timestamptz),
  public.einv_document_record(uuid, text, uuid, integer, jsonb),
  public.einv_document_get(uuid, text, uuid),
  public.einv_document_refresh_record(uuid, text, uuid, text, integer, jsonb)
  to service_role;
revoke all on function einv_private.kind_table(text), einv_private.accepted_status(text),
  einv_private.lifecycle_columns(text),
  einv_private.read_documents(text, uuid, uuid[], boolean),
  einv_private.document_of(text, uuid, uuid, boolean),
  einv_private.write_lifecycle(text, uuid, einv_private.lifecycle),
  einv_private.log_event(uuid, text, uuid, text, uuid, jsonb),
  einv_private.with_outcome(text, einv_private.lifecycle, jsonb),
  einv_private.recorded_result(einv_private.lifecycle),
  einv_private.issuer_of(uuid), einv_private.invoice_payload(uuid, jsonb),
  einv_private.document_payload(text, uuid, uuid, jsonb),
  einv_private.kind_dispatch(text), einv_private.compile_document_kinds(),
  einv_private.compile_document_kinds_trigger()
  from public;
