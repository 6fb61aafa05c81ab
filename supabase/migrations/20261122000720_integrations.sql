-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Integrations: an organization's admin tests and saves its companies' provider credentials
-- (/integrations/test, /integrations/save), and operators re-seal them under a new credentials key.
--
-- The service checks the key with the provider before it saves anything, then seals it (AES-256-GCM,
-- org/company/service/environment as associated data) and hands the database only the ciphertext,
-- the last four characters and the id of the key that sealed it. A save writes the whole row at once
-- (url, settings, ciphertext, hint, key id, verification time) in one upsert, so concurrent saves of
-- one credential leave one row, entirely one save's. A DIAN-mode credential (`settings.provider` =
-- 'dian') seals the company's opened private key, its certificate and the software PIN in the same
-- column: a few kilobytes instead of a key's few dozen bytes, hence its own bound. Every test and save is an event without the key;
-- `document_id` of those events is the company (a credential is company × service × environment, and
-- a test may be of one never saved).
--
-- Every function here is `security definer`, pinned to an empty search_path, and executable by
-- `service_role` only: the route checks that the caller is an admin of `p_org_id`, and each function
-- checks that the company belongs to that org.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

-- ─── the credentials table: which key sealed each row, and bounds ────────────────────────────────
alter table einv_private.credentials
  add column api_key_key_id text check (api_key_key_id ~ '^[0-9a-f]{16}$'),
  -- the API accepts 2048 characters of url and 8 KiB of settings (as compact JSON; PostgreSQL's text
  -- form adds spaces, hence twice that here), keys of at most 512 characters and, in DIAN mode, a
  -- certificate file of at most 32 KiB, whose key and certificate are sealed (at most 49,000
  -- characters of plaintext, base64 inside JSON, then sealed and base64url: under 64 KiB)
  add constraint credentials_url_length check (length(url) <= 2048),
  add constraint credentials_settings_size check (octet_length(settings::text) <= 16384),
  add constraint credentials_ciphertext_length check (
    length(api_key_ciphertext) <= case when settings ->> 'provider' = 'dian' then 65536 else 1024 end);

-- ─── database API (service_role only) ────────────────────────────────────────────────────────────
-- The stored credential of a company of the org (ciphertext and key id included), or null when the
-- company has none; `company_not_found` when the company is not the org's.
create function public.einv_integration_get(
  p_org_id uuid, p_company_id uuid, p_service text, p_environment text
) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  _row einv_private.credentials;
begin
  if not exists (select 1 from public.companies where id = p_company_id and org_id = p_org_id) then
    raise exception 'company_not_found' using errcode = 'P0001', hint = 'not_found', detail = 'credential';
  end if;
  select * into _row from einv_private.credentials c
   where c.org_id = p_org_id and c.company_id = p_company_id
     and c.service = p_service and c.environment = p_environment;
  if not found then
    return null;
  end if;
  return jsonb_build_object(
    'org_id', _row.org_id, 'company_id', _row.company_id, 'service', _row.service,
    'environment', _row.environment, 'url', _row.url, 'settings', _row.settings,
    'api_key_ciphertext', _row.api_key_ciphertext, 'api_key_hint', _row.api_key_hint,
    'key_id', _row.api_key_key_id, 'verified_at', _row.verified_at);
end
$$;

-- The company's NIT and check digit (DIAN mode checks that the certificate is the company's);
-- `company_not_found` when the company is not the org's.
create function public.einv_integration_issuer(p_org_id uuid, p_company_id uuid) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
declare
  _company public.companies;
begin
  select * into _company from public.companies where id = p_company_id and org_id = p_org_id;
  if not found then
    raise exception 'company_not_found' using errcode = 'P0001', hint = 'not_found', detail = 'credential';
  end if;
  return jsonb_build_object('nit', _company.nit, 'check_digit', _company.check_digit);
end
$$;

-- One event about a company's credential; `data` is a positive list, so nothing else reaches it.
create function einv_private.log_credential_event(
  p_org_id uuid, p_company_id uuid, p_event text, p_actor_id uuid, p_service text, p_environment text,
  p_outcome text, p_message text, p_url text, p_api_key_hint text, p_key_source text
) returns void
language sql set search_path = '' as $$
  select einv_private.log_event(p_org_id, 'credential', p_company_id, p_event, p_actor_id,
    jsonb_build_object('company_id', p_company_id, 'service', p_service, 'environment', p_environment,
                       'outcome', p_outcome, 'message', left(p_message, 500), 'url', left(p_url, 2048),
                       'api_key_hint', p_api_key_hint, 'key_source', p_key_source))
$$;

-- Saves a credential the service has just checked: the whole row at once, verified now.
create function public.einv_integration_save(
  p_org_id uuid, p_company_id uuid, p_service text, p_environment text, p_url text, p_settings jsonb,
  p_api_key_ciphertext text, p_api_key_hint text, p_key_id text, p_key_source text, p_message text,
  p_actor_id uuid
) returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  _row einv_private.credentials;
begin
  if not exists (select 1 from public.companies where id = p_company_id and org_id = p_org_id) then
    raise exception 'company_not_found' using errcode = 'P0001', hint = 'not_found', detail = 'credential';
  end if;
  if p_url is null or p_settings is null or p_api_key_ciphertext is null or p_api_key_hint is null
     or p_key_id is null or p_key_source not in ('given', 'saved') then
    raise exception 'incomplete_credential' using errcode = 'P0001', hint = 'business_rule',
      detail = 'credential';
  end if;
  insert into einv_private.credentials as c (org_id, company_id, service, environment, url, settings,
    api_key_ciphertext, api_key_hint, api_key_key_id, verified_at, updated_by)
  values (p_org_id, p_company_id, p_service, p_environment, p_url, p_settings, p_api_key_ciphertext,
    p_api_key_hint, p_key_id, now(), p_actor_id)
  on conflict (company_id, service, environment) do update
     set url = excluded.url,
         settings = excluded.settings,
         api_key_ciphertext = excluded.api_key_ciphertext,
         api_key_hint = excluded.api_key_hint,
         api_key_key_id = excluded.api_key_key_id,
         verified_at = excluded.verified_at,
         updated_by = excluded.updated_by
  returning * into _row;

  perform einv_private.log_credential_event(p_org_id, p_company_id, 'credential_saved', p_actor_id,
    p_service, p_environment, 'saved', p_message, p_url, p_api_key_hint, p_key_source);

  return jsonb_build_object('company_id', _row.company_id, 'service', _row.service,
    'environment', _row.environment, 'url', _row.url, 'settings', _row.settings,
    'api_key_hint', _row.api_key_hint, 'verified_at', _row.verified_at);
end
$$;

-- Records a test (`credential_tested`: ok, failed, refused_url) or a save that stored nothing
-- (`credential_save_refused`: rejected, unverified, refused_url).
create function public.einv_integration_event(
  p_org_id uuid, p_company_id uuid, p_event text, p_service text, p_environment text, p_outcome text,
  p_message text, p_url text, p_api_key_hint text, p_key_source text, p_actor_id uuid
) returns void
language plpgsql security definer set search_path = '' as $$
begin
  if not exists (select 1 from public.companies where id = p_company_id and org_id = p_org_id) then
    raise exception 'company_not_found' using errcode = 'P0001', hint = 'not_found', detail = 'credential';
  end if;
  if not ((p_event = 'credential_tested' and p_outcome in ('ok', 'failed', 'refused_url'))
          or (p_event = 'credential_save_refused' and p_outcome in ('rejected', 'unverified', 'refused_url')))
     or p_service not in ('adapter-tax', 'docsgen', 'deliver') or p_environment not in ('uat', 'prd')
     or p_key_source not in ('given', 'saved') then
    raise exception 'unknown_event' using errcode = 'P0001', hint = 'business_rule', detail = 'credential';
  end if;
  perform einv_private.log_credential_event(p_org_id, p_company_id, p_event, p_actor_id, p_service,
    p_environment, p_outcome, p_message, p_url, p_api_key_hint, p_key_source);
end
$$;

-- ─── re-sealing under a new credentials key (npm run credentials:reseal) ─────────────────────────
-- A page of stored keys of every org, in id order after `p_after`: what a re-seal walks through.
create function public.einv_credential_list(p_after uuid, p_limit integer) returns jsonb
language sql stable security definer set search_path = '' as $$
  select coalesce(jsonb_agg(jsonb_build_object(
           'id', c.id, 'org_id', c.org_id, 'company_id', c.company_id, 'service', c.service,
           'environment', c.environment, 'api_key_ciphertext', c.api_key_ciphertext,
           'key_id', c.api_key_key_id) order by c.id), '[]'::jsonb)
    from (select * from einv_private.credentials
           where api_key_ciphertext is not null
             and (p_after is null or id > p_after)
           order by id
           limit least(greatest(coalesce(p_limit, 100), 1), 500)) c
$$;

-- Replaces one row's ciphertext with the same key sealed under the current credentials key, only if
-- the row still holds the ciphertext that was opened (a save meanwhile wins). True when it did.
create function public.einv_credential_reseal(
  p_id uuid, p_expected_ciphertext text, p_api_key_ciphertext text, p_key_id text
) returns boolean
language plpgsql security definer set search_path = '' as $$
declare
  _row einv_private.credentials;
  _previous text;
begin
  select * into _row from einv_private.credentials
   where id = p_id and api_key_ciphertext = p_expected_ciphertext
   for update;
  if not found then
    return false;
  end if;
  _previous := _row.api_key_key_id;
  update einv_private.credentials
     set api_key_ciphertext = p_api_key_ciphertext, api_key_key_id = p_key_id
   where id = p_id;
  perform einv_private.log_event(_row.org_id, 'credential', _row.company_id, 'credential_resealed', null,
    jsonb_build_object('company_id', _row.company_id, 'service', _row.service,
                       'environment', _row.environment, 'from_key_id', _previous, 'key_id', p_key_id));
  return true;
end
$$;

revoke all on function einv_private.log_credential_event(uuid, uuid, text, uuid, text, text, text, text,
  text, text, text) from public, anon, authenticated, service_role;

revoke all on function public.einv_integration_get(uuid, uuid, text, text),
  public.einv_integration_issuer(uuid, uuid),
  public.einv_integration_save(uuid, uuid, text, text, text, jsonb, text, text, text, text, text, uuid),
  public.einv_integration_event(uuid, uuid, text, text, text, text, text, text, text, text, uuid),
  public.einv_credential_list(uuid, integer),
  public.einv_credential_reseal(uuid, text, text, text)
  from public, anon, authenticated, service_role;
grant execute on function public.einv_integration_get(uuid, uuid, text, text),
  public.einv_integration_issuer(uuid, uuid),
  public.einv_integration_save(uuid, uuid, text, text, text, jsonb, text, text, text, text, text, uuid),
  public.einv_integration_event(uuid, uuid, text, text, text, text, text, text, text, text, uuid),
  public.einv_credential_list(uuid, integer),
  public.einv_credential_reseal(uuid, text, text, text)
  to service_role;
