-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- After transmission: status refresh, PDF representations in Storage, and deliveries.
--
-- Representations and deliveries are fiscal-side records: members read them, only the service
-- writes them (through the functions below). The PDFs live in the private bucket
-- `service-documentos` under `<org_id>/invoices/<invoice_id>/…`; members of the org may download
-- them with their own session, and nobody but the service writes there.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

-- ─── representations ─────────────────────────────────────────────────────────────────────────────
create table public.representations (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references public.organizations (id) on delete cascade,
  document_type text not null check (document_type in ('invoice', 'credit_note', 'debit_note')),
  document_id uuid not null,
  path text not null,
  filename text not null,
  -- hash of everything the PDF shows (document, status, authority code, template version)
  fingerprint text not null,
  stamped boolean not null,
  renderer text not null check (renderer in ('builtin', 'docsgen')),
  generated_at timestamptz not null,
  -- the AttachedDocument XML beside the PDF, once the authority accepted the document and the
  -- service holds it in the bucket (attached-document.ts); in the same organization's folder
  xml_path text check (split_part(xml_path, '/', 1) = org_id::text),
  unique (document_type, document_id)
);
create index representations_org_id_idx on public.representations (org_id);

-- ─── deliveries ──────────────────────────────────────────────────────────────────────────────────
-- A delivery of an accepted document of either kind (`document_type`, `document_id`, as in
-- representations and events) to the buyer. Only the service writes it, through
-- einv_delivery_begin, which reads the document first; the insert trigger below checks again that
-- the document is the org's (there is no foreign key to two tables) and takes its issuer.
create table public.deliveries (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references public.organizations (id) on delete cascade,
  document_type text not null check (document_type in ('invoice', 'credit_note', 'debit_note')),
  document_id uuid not null,
  -- the issuer, and its NIT as the package's name shows it (the document's issuer snapshot): the
  -- NIT's sequence numbers the package (below)
  company_id uuid not null references public.companies (id),
  issuer_nit text not null check (issuer_nit ~ '^[0-9]{5,15}$'),
  recipient text not null,
  -- separate from the document's fiscal status
  status text not null default 'pendiente' check (status in ('pendiente', 'enviada', 'error')),
  message text,
  provider_reference text,
  -- the outcome's result code (shared/kernel/result-codes.ts), which its events carry: sent;
  -- refused by the provider, which answered with its reference; or failed without one (the provider
  -- failed or was never reached: retried by the reconcile job, or the message could not be built)
  code text generated always as (case
    when status = 'enviada' then 'sent'
    when status = 'error' and provider_reference is not null then 'delivery_rejected'
    when status = 'error' then 'delivery_failed'
    else 'delivery_in_progress' end) stored,
  created_by uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- DIAN's name of the package sent (shared/co/delivery-files.ts): the issuer NIT's
  -- consecutive of packages sent in that year (Colombian time), written in hex as the name's last 8
  -- characters
  package_year smallint not null check (package_year between 2000 and 2099),
  package_number bigint not null check (package_number between 1 and 4294967295)
);
-- (…, created_at): the hourly limits of einv_delivery_begin count by these; they also serve the
-- policy (org_id)
create index deliveries_org_id_idx on public.deliveries (org_id, created_at);
create index deliveries_document_id_idx on public.deliveries (document_id, created_at);
create trigger deliveries_touch before update on public.deliveries
  for each row execute function einv_private.touch_updated_at();

-- Each issuer NIT's packages sent per year: the last consecutive taken, under the row's lock in the
-- transaction that inserts the delivery, so concurrent deliveries never share one. Keyed by the NIT
-- the name shows, not by the company: a company is unique per organization and NIT, so two
-- organizations (or a company deleted and created again) may issue under one NIT, and the names
-- must not repeat. (A delivery whose transaction rolls back leaves a gap; DIAN's names need
-- uniqueness, not contiguity.)
create table einv_private.delivery_package_counters (
  nit text not null check (nit ~ '^[0-9]{5,15}$'),
  year smallint not null,
  last_number bigint not null check (last_number between 1 and 4294967295),
  primary key (nit, year)
);
revoke all on einv_private.delivery_package_counters from public, anon, authenticated, service_role;

-- Before a delivery is inserted: its document must be the org's (not_found otherwise), its issuer is
-- the document's company, with the NIT the document's PDF and files show (its issuer snapshot, taken
-- when it was sent), and unless it resends a package already named (a retry, which passes its first
-- try's year and number) it takes that NIT's next consecutive of the current year.
create function einv_private.delivery_package() returns trigger
language plpgsql set search_path = '' as $$
declare
  _doc record;
begin
  select d.company_id, (d.life).issuer_snapshot ->> 'nit' as nit into _doc
    from einv_private.document_of(new.document_type, new.org_id, new.document_id, false) d;
  new.company_id := _doc.company_id;
  new.issuer_nit := coalesce(_doc.nit, (select c.nit from public.companies c where c.id = _doc.company_id));
  if new.package_number is null then
    new.package_year := extract(year from now() at time zone 'America/Bogota');
    insert into einv_private.delivery_package_counters as c (nit, year, last_number)
    values (new.issuer_nit, new.package_year, 1)
    on conflict (nit, year) do update set last_number = c.last_number + 1
    returning c.last_number into new.package_number;
  end if;
  return new;
end
$$;
revoke all on function einv_private.delivery_package() from public, anon, authenticated, service_role;
create trigger deliveries_package before insert on public.deliveries
  for each row execute function einv_private.delivery_package();

revoke all on public.representations, public.deliveries from anon, authenticated, service_role;
alter table public.representations enable row level security;
alter table public.deliveries enable row level security;
grant select on public.representations, public.deliveries to authenticated, service_role;

create policy "members read their organization's representations" on public.representations
  for select to authenticated using (org_id in (select einv_private.my_org_ids()));
create policy "members read their organization's deliveries" on public.deliveries
  for select to authenticated using (org_id in (select einv_private.my_org_ids()));

-- ─── storage: the private bucket and who may read it ─────────────────────────────────────────────
insert into storage.buckets (id, name, public, allowed_mime_types)
values ('service-documentos', 'service-documentos', false, array['application/pdf'])
on conflict (id) do nothing;

-- Read only: there is no insert, update or delete policy, so with RLS on only the service role
-- (which bypasses RLS) writes objects in this bucket.
create policy "members read their organization's service documents" on storage.objects
  for select to authenticated
  using (
    bucket_id = 'service-documentos'
    and (storage.foldername(name))[1] in (select org_id::text from einv_private.my_org_ids() as org_id)
  );

-- ─── database API (service_role) ─────────────────────────────────────────────────────────────────
-- Records the document's current PDF (one per document) and an event. `p_xml_path`: the
-- AttachedDocument XML already in the bucket, or null (not accepted, or not obtained yet).
create function public.einv_representation_save(
  p_org_id uuid, p_kind text, p_document_id uuid, p_path text, p_filename text,
  p_fingerprint text, p_stamped boolean, p_renderer text, p_xml_path text
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _rep public.representations;
begin
  perform from einv_private.document_of(p_kind, p_org_id, p_document_id, false);
  if split_part(p_path, '/', 1) <> p_org_id::text
     or split_part(coalesce(p_xml_path, p_path), '/', 1) <> p_org_id::text then
    raise exception 'outside_org_folder' using errcode = 'P0001', hint = 'business_rule', detail = p_kind;
  end if;
  insert into public.representations as r (org_id, document_type, document_id, path, filename, fingerprint,
    stamped, renderer, generated_at, xml_path)
  values (p_org_id, p_kind, p_document_id, p_path, p_filename, p_fingerprint, p_stamped, p_renderer, now(),
          p_xml_path)
  on conflict (document_type, document_id) do update
     set path = excluded.path, filename = excluded.filename, fingerprint = excluded.fingerprint,
         stamped = excluded.stamped, renderer = excluded.renderer, generated_at = excluded.generated_at,
         xml_path = excluded.xml_path
  returning * into _rep;

  perform einv_private.log_event(p_org_id, p_kind, p_document_id, 'representation_generated', null,
    jsonb_build_object('path', p_path, 'stamped', p_stamped, 'renderer', p_renderer));
  return to_jsonb(_rep) - 'id';
end
$$;

-- Adds the AttachedDocument's path to a stored PDF's record that lacked it (the XML was obtained
-- after the PDF was made), when that record still has `p_fingerprint`; the PDF is unchanged, so
-- `generated_at` is too. Answers the record as it is (null when there is none).
create function public.einv_representation_attach_xml(
  p_org_id uuid, p_kind text, p_document_id uuid, p_fingerprint text, p_xml_path text
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _rep public.representations;
begin
  if split_part(p_xml_path, '/', 1) <> p_org_id::text then
    raise exception 'outside_org_folder' using errcode = 'P0001', hint = 'business_rule', detail = p_kind;
  end if;
  update public.representations r
     set xml_path = p_xml_path
   where r.org_id = p_org_id and r.document_type = p_kind and r.document_id = p_document_id
     and r.fingerprint = p_fingerprint
  returning * into _rep;
  if not found then
    select * into _rep from public.representations r
     where r.org_id = p_org_id and r.document_type = p_kind and r.document_id = p_document_id;
  end if;
  return case when _rep.document_id is null then null else to_jsonb(_rep) - 'id' end;
end
$$;

-- Opens a delivery of an accepted document of kind `p_kind` (invalid_state otherwise) and returns
-- its id and its package's name parts; its provider reference (`send_id`) is `p_send_id`, or the
-- delivery's own id.
--
-- A request of the API (`p_limits` given) is first matched with a delivery of the same document to
-- the same address that is still `pendiente` or was sent in the last minute: that one is answered
-- (`existing`), and nothing is mailed again. Then it is counted against the limits
-- `{ per_document, per_organization, window_seconds }`: deliveries begun within the window, of the
-- document (an invoice and each of its credit notes are counted apart: they are different
-- documents, each owed to the buyer) and of the organization (every kind together; the job's
-- retries, `retry_of`, are not requests and do not count). Over a limit it answers `rate_limited`
-- with the seconds until one more is allowed, and opens nothing. The table is the record, so the
-- limits hold across function instances; a lock per organization makes the match and the counts
-- exact under concurrent requests.
--
-- A retry by the reconcile job (`p_retry_of` given, `p_limits` null) is neither matched nor
-- counted: it is opened one attempt further than the delivery it retries, linked both ways, and
-- resends that delivery's package under its name (year and consecutive), to the same address. A
-- delivery already retried is not retried twice (`delivery_already_retried`): its retry owns what
-- happens next. A request under the provider reference of an earlier delivery of the document to
-- the same address (`p_send_id`: derived from the request's Idempotency-Key and the address, so the
-- same request retried after a 502/504) is a retry of the newest attempt in the same way: the
-- provider must see the same message under the same key. A lock per provider reference makes the
-- request and a retry of the job that continue from one delivery take turns, so the second sees
-- the first's attempt. (`send_id`, `attempt`, `retry_of` and `retried_by` are the columns of
-- …_delivery_retries.sql.)
create function public.einv_delivery_begin(
  p_org_id uuid, p_kind text, p_document_id uuid, p_recipient text, p_actor_id uuid, p_send_id uuid,
  p_retry_of uuid, p_limits jsonb, p_lease_seconds integer
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _doc record;
  _d public.deliveries;
  _of public.deliveries;
  _id uuid := gen_random_uuid();
  _window interval;
  _edge timestamptz;
  _scope text;
begin
  select * into _doc from einv_private.document_of(p_kind, p_org_id, p_document_id, false);
  if (_doc.life).status <> einv_private.accepted_status(p_kind) then
    raise exception 'not_accepted' using errcode = 'P0001', hint = 'invalid_state', detail = p_kind;
  end if;
  if p_send_id is not null then
    perform pg_advisory_xact_lock(hashtextextended('einv_delivery_send:' || p_send_id::text, 0));
  end if;
  if p_limits is not null then
    perform pg_advisory_xact_lock(hashtextextended('einv_delivery_begin:' || p_org_id::text, 0));
    select * into _d from public.deliveries d
     where d.document_id = p_document_id and d.document_type = p_kind and d.org_id = p_org_id
       and lower(d.recipient) = lower(p_recipient)
       and (d.status = 'pendiente' or (d.status = 'enviada' and d.updated_at > now() - interval '1 minute'))
     order by d.created_at desc
     limit 1;
    if found then
      return jsonb_build_object('delivery_id', _d.id, 'existing', jsonb_build_object(
        'document_id', _d.document_id, 'to', _d.recipient, 'status', _d.status, 'message', _d.message,
        'created_at', _d.created_at));
    end if;
    _window := make_interval(secs => (p_limits ->> 'window_seconds')::integer);
    -- the n-th newest delivery in the window: once it leaves the window, one more is allowed
    select d.created_at into _edge from public.deliveries d
     where d.document_id = p_document_id and d.document_type = p_kind
       and d.created_at > now() - _window and d.retry_of is null
     order by d.created_at desc
    offset (p_limits ->> 'per_document')::integer - 1 limit 1;
    if found then
      _scope := 'document';
    else
      select d.created_at into _edge from public.deliveries d
       where d.org_id = p_org_id and d.created_at > now() - _window and d.retry_of is null
       order by d.created_at desc
      offset (p_limits ->> 'per_organization')::integer - 1 limit 1;
      if found then _scope := 'organization'; end if;
    end if;
    if _scope is not null then
      return jsonb_build_object('rate_limited', jsonb_build_object(
        'scope', _scope,
        'limit', (p_limits ->> case _scope when 'document' then 'per_document' else 'per_organization' end)::integer,
        'retry_after_seconds', greatest(1, ceil(extract(epoch from _edge + _window - now())))::integer));
    end if;
  end if;
  -- leased for as long as the call that opened it may take (render, XML, send, each with its
  -- timeout): the reconcile job never asks the provider about a delivery still under way
  if p_lease_seconds is null or p_lease_seconds < 1 then
    raise exception 'a delivery needs a lease of at least 1 s, not %', p_lease_seconds using errcode = '22023';
  end if;
  if p_retry_of is not null then
    select * into _of from public.deliveries o
     where o.id = p_retry_of and o.org_id = p_org_id and o.document_type = p_kind
       and o.document_id = p_document_id and o.recipient = p_recipient
       for update;
    if not found then
      raise exception 'not_found' using errcode = 'P0001', hint = 'not_found', detail = p_kind;
    end if;
    if _of.retried_by is not null then
      raise exception 'delivery_already_retried' using errcode = 'P0001', hint = 'invalid_state', detail = p_kind;
    end if;
  elsif p_send_id is not null then
    -- a request retried under its Idempotency-Key after its first try failed: the same message
    -- to the same address under the same provider reference and key, so the same package, one
    -- attempt further
    select * into _of from public.deliveries o
     where o.org_id = p_org_id and o.document_type = p_kind and o.document_id = p_document_id
       and o.send_id = p_send_id and o.recipient = p_recipient and o.retried_by is null
     order by o.attempt desc
     limit 1
       for update;
  end if;
  -- the package's year and number: a retry's are its first try's; else the insert trigger takes them
  insert into public.deliveries (id, org_id, document_type, document_id, recipient, created_by, send_id,
                                 lease_until, attempt, retry_of, package_year, package_number)
  values (_id, p_org_id, p_kind, p_document_id, p_recipient, p_actor_id, coalesce(p_send_id, _of.send_id, _id),
          now() + make_interval(secs => p_lease_seconds), coalesce(_of.attempt + 1, 1), _of.id,
          _of.package_year, _of.package_number)
  returning * into _d;
  if _of.id is not null then
    -- retried: no longer due (the reconcile job's hold on it, …_delivery_retries.sql, ends here)
    update public.deliveries set retried_by = _id, next_retry_at = null where id = _of.id;
  end if;
  return jsonb_build_object('delivery_id', _id, 'package_year', _d.package_year,
    'package_number', _d.package_number);
end
$$;

create function public.einv_delivery_record(
  p_org_id uuid, p_delivery_id uuid, p_status text, p_message text, p_provider_reference text
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _d public.deliveries;
begin
  update public.deliveries
     set status = p_status, message = p_message, provider_reference = p_provider_reference
   where id = p_delivery_id and org_id = p_org_id and status = 'pendiente'
  returning * into _d;
  if not found then
    -- the same outcome recorded already (the reconcile job asked the provider meanwhile): answered
    select * into _d from public.deliveries
     where id = p_delivery_id and org_id = p_org_id and status = p_status
       and provider_reference is not distinct from p_provider_reference;
    if found then
      return jsonb_build_object('document_type', _d.document_type, 'document_id', _d.document_id,
        'delivery_id', _d.id, 'to', _d.recipient, 'status', _d.status, 'message', _d.message);
    end if;
    raise exception 'delivery_not_open' using errcode = 'P0001', hint = 'invalid_state';
  end if;
  perform einv_private.log_event(p_org_id, _d.document_type, _d.document_id, 'delivery_' || p_status, null,
    jsonb_build_object('delivery_id', _d.id, 'recipient', _d.recipient, 'message', p_message));
  return jsonb_build_object('document_type', _d.document_type, 'document_id', _d.document_id,
    'delivery_id', _d.id, 'to', _d.recipient, 'status', _d.status, 'message', _d.message);
end
$$;

revoke all on function public.einv_representation_save(uuid, text, uuid, text, text, text, boolean, text, text),
  public.einv_representation_attach_xml(uuid, text, uuid, text, text),
  public.einv_delivery_begin(uuid, text, uuid, text, uuid, uuid, uuid, jsonb, integer),
  public.einv_delivery_record(uuid, uuid, text, text, text)
  from public, anon, authenticated, service_role;
grant execute on function public.einv_representation_save(uuid, text, uuid, text, text, text, boolean, text, text),
  public.einv_representation_attach_xml(uuid, text, uuid, text, text),
  public.einv_delivery_begin(uuid, text, uuid, text, uuid, uuid, uuid, jsonb, integer),
  public.einv_delivery_record(uuid, uuid, text, text, text)
  to service_role;
