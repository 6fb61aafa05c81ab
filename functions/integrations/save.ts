/**
 * POST /integrations/save (admin) — checks a provider key, then stores it sealed. Answers
 * `{ company_id, service, environment, url, settings, api_key_hint, verified_at }`; 422
 * `credential_rejected` when the key does not authenticate, and nothing is stored. Without `api_key`
 * the saved key is kept and checked at the saved url (a `url` naming another one is 422).
 */
import { z } from "zod";
import { integrationContext } from "../../shared/core/integrations/context.ts";
import { saveCredential } from "../../shared/core/integrations/save.ts";
import { ADMIN_ONLY, operation, PROVIDER_ERRORS } from "../../shared/http/route.ts";
import { Environment } from "../../shared/providers/protocol.ts";
import {
  ApiKey,
  CredentialFields,
  ProviderServiceName,
  ProviderUrl,
  refusingUrls,
  Settings,
} from "./fields.ts";

export const IntegrationSaveRequest = CredentialFields.extend({
  api_key: ApiKey.optional(),
  url: ProviderUrl.optional(),
  settings: Settings.optional(),
});
export type IntegrationSaveRequest = z.input<typeof IntegrationSaveRequest>;

export const IntegrationSaveResponse = z.object({
  company_id: z.string(),
  service: ProviderServiceName,
  environment: Environment,
  url: z.string(),
  settings: z.record(z.string(), z.unknown()),
  /** The key's last four characters, never more. */
  api_key_hint: z.string().max(4),
  verified_at: z.string(),
});
export type IntegrationSaveResponse = z.infer<typeof IntegrationSaveResponse>;

export const integrationSave = operation({
  summary: "Check a provider key and store it sealed (admin)",
  input: IntegrationSaveRequest,
  output: IntegrationSaveResponse,
  roles: ADMIN_ONLY,
  errors: ["not_found", "business_rule", ...PROVIDER_ERRORS],
  handle: (input, ctx) => refusingUrls(() => saveCredential({ input, ctx: integrationContext(ctx) })),
});
