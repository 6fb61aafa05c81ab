/**
 * POST /integrations/test (admin) — does a provider key work? Checks `api_key` at `url`, or the saved
 * key or url for whichever is not given (the saved key only at the saved url: 422 otherwise), and
 * answers `{ ok, company_id, service, environment, message, checked_at }` with HTTP 200 whether it
 * works or not.
 */
import { z } from "zod";
import { integrationContext } from "../../shared/core/integrations/context.ts";
import { testCredential } from "../../shared/core/integrations/test.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";
import { ADMIN_ONLY, operation } from "../../shared/http/route.ts";
import { Environment } from "../../shared/providers/protocol.ts";
import {
  ApiKey,
  CredentialFields,
  KEY_DESCRIPTION,
  ProviderServiceName,
  ProviderUrl,
  URL_DESCRIPTION,
} from "./fields.ts";

export const IntegrationTestRequest = CredentialFields.extend({
  api_key: ApiKey.optional().meta({ description: KEY_DESCRIPTION }),
  url: ProviderUrl.optional().meta({ description: URL_DESCRIPTION }),
});
export type IntegrationTestRequest = z.input<typeof IntegrationTestRequest>;

export const IntegrationTestResponse = z.object({
  ok: z.boolean().meta({ description: "Whether the provider accepted the key." }),
  company_id: z.string().meta({ description: "The company, as requested." }),
  service: ProviderServiceName.meta({ description: "The provider, as requested." }),
  environment: Environment.meta({ description: "The environment, as requested." }),
  message: z.string().meta({ description: "The provider's verdict, for a person to read." }),
  checked_at: z.string().meta({ description: "When it was checked (ISO 8601)." }),
});
export type IntegrationTestResponse = z.infer<typeof IntegrationTestResponse>;

export const integrationTest = operation({
  summary: "Check whether a provider key works (admin)",
  input: IntegrationTestRequest,
  output: IntegrationTestResponse,
  roles: ADMIN_ONLY,
  errors: ["not_found", "business_rule"],
  example: {
    request: {
      org_id: EXAMPLE.org_id,
      company_id: EXAMPLE.company_id,
      service: "deliver",
      environment: "prd",
    },
    response: {
      ok: false,
      company_id: EXAMPLE.company_id,
      service: "deliver",
      environment: "prd",
      message: "The provider refused the API key (401).",
      checked_at: EXAMPLE.at,
    },
  },
  handle: (input, ctx) => testCredential({ input, ctx: integrationContext(ctx) }),
});
