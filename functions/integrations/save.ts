/**
 * POST /integrations/save (admin) — checks a provider key, then stores it sealed. Answers
 * `{ company_id, service, environment, url, settings, api_key_hint, verified_at }`; 422
 * `credential_rejected` when the key does not authenticate, and nothing is stored. Without `api_key`
 * the saved key is kept and checked at the saved url (a `url` naming another one is 422).
 */
import { z } from "zod";
import { integrationContext } from "../../shared/core/integrations/context.ts";
import { saveCredential } from "../../shared/core/integrations/save.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";
import { ADMIN_ONLY, operation, PROVIDER_ERRORS } from "../../shared/http/route.ts";
import { Environment } from "../../shared/providers/protocol.ts";
import {
  ApiKey,
  CredentialFields,
  KEY_DESCRIPTION,
  ProviderServiceName,
  ProviderUrl,
  Settings,
  URL_DESCRIPTION,
} from "./fields.ts";

export const IntegrationSaveRequest = CredentialFields.extend({
  api_key: ApiKey.optional().meta({ description: KEY_DESCRIPTION }),
  url: ProviderUrl.optional().meta({ description: URL_DESCRIPTION }),
  settings: Settings.optional().meta({
    description: "Provider-specific settings: a JSON object of at most 8 KiB and 8 levels.",
  }),
});
export type IntegrationSaveRequest = z.input<typeof IntegrationSaveRequest>;

export const IntegrationSaveResponse = z.object({
  company_id: z.string().meta({ description: "The company, as requested." }),
  service: ProviderServiceName.meta({ description: "The provider, as requested." }),
  environment: Environment.meta({ description: "The environment, as requested." }),
  url: z.string().meta({ description: "The saved url, normalised." }),
  settings: z.record(z.string(), z.unknown()).meta({ description: "The saved settings." }),
  /** The key's last four characters, never more. */
  api_key_hint: z.string().max(4).meta({ description: "The saved key's last four characters, never more." }),
  verified_at: z.string().meta({ description: "When the provider accepted the key (ISO 8601)." }),
});
export type IntegrationSaveResponse = z.infer<typeof IntegrationSaveResponse>;

export const integrationSave = operation({
  summary: "Check a provider key and store it sealed (admin)",
  input: IntegrationSaveRequest,
  output: IntegrationSaveResponse,
  roles: ADMIN_ONLY,
  announces: true, // its changes go to the org's webhooks right after the answer
  errors: ["not_found", "business_rule", ...PROVIDER_ERRORS],
  example: {
    request: {
      org_id: EXAMPLE.org_id,
      company_id: EXAMPLE.company_id,
      service: "adapter-tax",
      environment: "uat",
      api_key: "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
      url: "https://api.proveedor.com.co/v1",
    },
    response: {
      company_id: EXAMPLE.company_id,
      service: "adapter-tax",
      environment: "uat",
      url: "https://api.proveedor.com.co/v1",
      settings: {},
      api_key_hint: "7dc",
      verified_at: EXAMPLE.at,
    },
  },
  handle: (input, ctx) => saveCredential({ input, ctx: integrationContext(ctx) }),
});
