-- ═════════════════════════════════════════════════════════════════════════════════════════════════
-- Provider credentials: one row per company × service × environment.
--
-- The API key is stored only as AES-256-GCM ciphertext sealed by the service (the key never reaches
-- the database), with the org, company, service and environment as associated data, so a
-- ciphertext copied to another row fails to decrypt. The table lives in the unexposed schema and
-- only the service reaches it: through the function below to read it, and through the integrations
-- area's functions (…_integrations.sql) to save and re-seal it.
-- ═════════════════════════════════════════════════════════════════════════════════════════════════

create table einv_private.credentials (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references public.organizations (id) on delete cascade,
  company_id uuid not null,
  service text not null check (service in ('adapter-tax', 'docsgen', 'deliver')),
  environment text not null check (environment in ('uat', 'prd')),
  url text check (url ~ '^https?://'),
  settings jsonb not null default '{}'::jsonb check (jsonb_typeof(settings) = 'object'),
  api_key_ciphertext text check (api_key_ciphertext ~ '^v1:'),
  api_key_hint text check (length(api_key_hint) <= 4),
  verified_at timestamptz,
  updated_by uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (company_id, service, environment),
  foreign key (company_id, org_id) references public.companies (id, org_id) on delete cascade
);
create index credentials_org_id_idx on einv_private.credentials (org_id);
alter table einv_private.credentials enable row level security;
revoke all on einv_private.credentials from public, anon, authenticated, service_role;

create trigger credentials_touch before update on einv_private.credentials
  for each row execute function einv_private.touch_updated_at();

-- ─── database API (service_role only) ────────────────────────────────────────────────────────────
-- The stored credential of a company of the org, ciphertext included, or null.
create function public.einv_credential_get(
  p_org_id uuid, p_company_id uuid, p_service text, p_environment text
) returns jsonb
language plpgsql stable security definer set search_path = '' as $$
begin
  return (
    select jsonb_build_object(
             'org_id', c.org_id, 'company_id', c.company_id, 'service', c.service,
             'environment', c.environment, 'url', c.url, 'settings', c.settings,
             'api_key_ciphertext', c.api_key_ciphertext, 'api_key_hint', c.api_key_hint,
             'verified_at', c.verified_at)
      from einv_private.credentials c
     where c.org_id = p_org_id and c.company_id = p_company_id
       and c.service = p_service and c.environment = p_environment);
end
$$;

revoke all on function public.einv_credential_get(uuid, uuid, text, text)
  from public, anon, authenticated, service_role;
grant execute on function public.einv_credential_get(uuid, uuid, text, text) to service_role;
