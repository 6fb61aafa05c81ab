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
  document_type text not null check (document_type in ('invoice', 'credit_note')),
  document_id uuid not null,
  path text not null,
  filename text not null,
  -- hash of everything the PDF shows (document, status, authority code, template version)
  fingerprint text not null,
  stamped boolean not null,
  renderer text not null check (renderer in ('builtin', 'docsgen')),
  generated_at timestamptz not null,
  unique (document_type, document_id)
);
create index representations_org_id_idx on public.representations (org_id);

-- ─── deliveries ──────────────────────────────────────────────────────────────────────────────────
create table public.deliveries (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null,
  invoice_id uuid not null,
  recipient text not null,
  -- separate from the invoice's fiscal status
  status text not null default 'pendiente' check (status in ('pendiente', 'enviada', 'error')),
  message text,
  provider_reference text,
  created_by uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  foreign key (invoice_id, org_id) references public.invoices (id, org_id)
);
create index deliveries_org_id_idx on public.deliveries (org_id);
create index deliveries_invoice_id_idx on public.deliveries (invoice_id);
create trigger deliveries_touch before update on public.deliveries
  for each row execute function einv_private.touch_updated_at();

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
-- An invoice of the org with its fiscal state and its current representation; not_found otherwise.
create function public.einv_invoice_get(p_org_id uuid, p_invoice_id uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  _inv public.invoices;
begin
  select * into _inv from public.invoices where id = p_invoice_id and org_id = p_org_id;
  if not found then
    raise exception 'invoice % not found', p_invoice_id using errcode = 'P0001', hint = 'not_found';
  end if;
  return jsonb_build_object(
    'document', einv_private.invoice_document(_inv.id),
    'fiscal', jsonb_build_object(
      'status', _inv.status, 'authority_code', _inv.authority_code, 'qr_text', _inv.qr_text,
      'provider_reference', _inv.provider_reference, 'environment', _inv.environment,
      'last_message', _inv.last_message, 'transmitted_at', _inv.transmitted_at,
      'attempt_count', _inv.attempt_count,
      'in_flight', coalesce(_inv.lease_until > now(), false)),
    'representation', (select to_jsonb(r) - 'id' from public.representations r
                        where r.document_type = 'invoice' and r.document_id = _inv.id));
end
$$;

-- Records what the authority answered to a status query. Refuses (invalid_state) when the invoice
-- was never sent, changed since it was read (status or attempt), or a transmission holds it.
create function public.einv_refresh_record(
  p_org_id uuid, p_invoice_id uuid, p_expected_status text, p_expected_attempt integer, p_outcome jsonb
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _inv public.invoices;
  _new_status text := coalesce(p_outcome ->> 'status', p_expected_status);
  _changed boolean;
begin
  select * into _inv from public.invoices where id = p_invoice_id and org_id = p_org_id for update;
  if not found then
    raise exception 'invoice % not found', p_invoice_id using errcode = 'P0001', hint = 'not_found';
  end if;
  if _inv.status = 'pendiente' then
    raise exception 'invoice % was never sent; transmit it first', p_invoice_id
      using errcode = 'P0001', hint = 'invalid_state';
  end if;
  if _inv.status <> p_expected_status or _inv.attempt_count <> p_expected_attempt
     or coalesce(_inv.lease_until > now(), false) then
    raise exception 'invoice % is being transmitted or changed meanwhile; try again', p_invoice_id
      using errcode = 'P0001', hint = 'invalid_state';
  end if;
  if _new_status not in ('en_proceso', 'transmitida', 'error') then
    raise exception 'unknown status %', _new_status using errcode = 'P0001', hint = 'business_rule';
  end if;

  _changed := _new_status <> _inv.status
    or coalesce(p_outcome ->> 'authority_code', _inv.authority_code) is distinct from _inv.authority_code;
  update public.invoices i
     set status = _new_status,
         authority_code = coalesce(p_outcome ->> 'authority_code', i.authority_code),
         qr_text = coalesce(p_outcome ->> 'qr_text', i.qr_text),
         provider_reference = coalesce(p_outcome ->> 'provider_reference', i.provider_reference),
         last_message = coalesce(p_outcome ->> 'message', i.last_message),
         transmitted_at = case when _new_status = 'transmitida'
                               then coalesce(i.transmitted_at, (p_outcome ->> 'validated_at')::timestamptz, now())
                               else i.transmitted_at end,
         status_checked_at = now()
   where i.id = p_invoice_id
  returning * into _inv;

  insert into public.events (org_id, document_type, document_id, kind, actor_id, data)
  values (p_org_id, 'invoice', p_invoice_id, 'status_refreshed', nullif(p_outcome ->> 'actor_id', '')::uuid,
          jsonb_build_object('from', p_expected_status, 'to', _new_status, 'changed', _changed,
                             'message', _inv.last_message));

  return jsonb_build_object('invoice_id', _inv.id, 'status', _inv.status, 'message', _inv.last_message,
    'authority_code', _inv.authority_code, 'checked_at', _inv.status_checked_at);
end
$$;

create function public.einv_representation_save(
  p_org_id uuid, p_document_type text, p_document_id uuid, p_path text, p_filename text,
  p_fingerprint text, p_stamped boolean, p_renderer text
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _rep public.representations;
begin
  if p_document_type = 'invoice'
     and not exists (select 1 from public.invoices where id = p_document_id and org_id = p_org_id) then
    raise exception 'invoice % not found', p_document_id using errcode = 'P0001', hint = 'not_found';
  end if;
  if split_part(p_path, '/', 1) <> p_org_id::text then
    raise exception 'a representation must live under its organization''s folder'
      using errcode = 'P0001', hint = 'business_rule';
  end if;
  insert into public.representations as r (org_id, document_type, document_id, path, filename, fingerprint,
    stamped, renderer, generated_at)
  values (p_org_id, p_document_type, p_document_id, p_path, p_filename, p_fingerprint, p_stamped, p_renderer, now())
  on conflict (document_type, document_id) do update
     set path = excluded.path, filename = excluded.filename, fingerprint = excluded.fingerprint,
         stamped = excluded.stamped, renderer = excluded.renderer, generated_at = excluded.generated_at
  returning * into _rep;

  insert into public.events (org_id, document_type, document_id, kind, data)
  values (p_org_id, p_document_type, p_document_id, 'representation_generated',
          jsonb_build_object('path', p_path, 'stamped', p_stamped, 'renderer', p_renderer));
  return to_jsonb(_rep) - 'id';
end
$$;

-- Opens a delivery of a transmitted invoice (invalid_state otherwise) and returns its id.
create function public.einv_delivery_begin(
  p_org_id uuid, p_invoice_id uuid, p_recipient text, p_actor_id uuid
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _status text;
  _id uuid;
begin
  select status into _status from public.invoices where id = p_invoice_id and org_id = p_org_id;
  if not found then
    raise exception 'invoice % not found', p_invoice_id using errcode = 'P0001', hint = 'not_found';
  end if;
  if _status <> 'transmitida' then
    raise exception 'only a transmitted invoice can be delivered; this one is %', _status
      using errcode = 'P0001', hint = 'invalid_state';
  end if;
  insert into public.deliveries (org_id, invoice_id, recipient, created_by)
  values (p_org_id, p_invoice_id, p_recipient, p_actor_id)
  returning id into _id;
  return jsonb_build_object('delivery_id', _id);
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
    raise exception 'delivery % is not open', p_delivery_id using errcode = 'P0001', hint = 'invalid_state';
  end if;
  insert into public.events (org_id, document_type, document_id, kind, data)
  values (p_org_id, 'invoice', _d.invoice_id, 'delivery_' || p_status,
          jsonb_build_object('delivery_id', _d.id, 'recipient', _d.recipient, 'message', p_message));
  return jsonb_build_object('invoice_id', _d.invoice_id, 'delivery_id', _d.id, 'to', _d.recipient,
    'status', _d.status, 'message', _d.message);
end
$$;

revoke all on function public.einv_invoice_get(uuid, uuid),
  public.einv_refresh_record(uuid, uuid, text, integer, jsonb),
  public.einv_representation_save(uuid, text, uuid, text, text, text, boolean, text),
  public.einv_delivery_begin(uuid, uuid, text, uuid),
  public.einv_delivery_record(uuid, uuid, text, text, text)
  from public, anon, authenticated, service_role;
grant execute on function public.einv_invoice_get(uuid, uuid),
  public.einv_refresh_record(uuid, uuid, text, integer, jsonb),
  public.einv_representation_save(uuid, text, uuid, text, text, text, boolean, text),
  public.einv_delivery_begin(uuid, uuid, text, uuid),
  public.einv_delivery_record(uuid, uuid, text, text, text)
  to service_role;
