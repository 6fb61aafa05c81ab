/**
 * POST /integrations/test (admin) — does a provider key work? Checks `api_key` at `url`, or the saved
 * key or url for whichever is not given (the saved key only at the saved url: 422 otherwise), and
 * answers `{ ok, company_id, service, environment, message, checked_at }` with HTTP 200 whether it
 * works or not.
 */
import { z } from "zod";
import { integrationContext } from "../../shared/core/integrations/context.ts";
import { testCredential } from "../../shared/core/integrations/test.ts";
import { ADMIN_ONLY, operation } from "../../shared/http/route.ts";
import { Environment } from "../../shared/providers/protocol.ts";
import { ApiKey, CredentialFields, ProviderServiceName, ProviderUrl, refusingUrls } from "./fields.ts";

export const IntegrationTestRequest = CredentialFields.extend({
  api_key: ApiKey.optional(),
  url: ProviderUrl.optional(),
});
export type IntegrationTestRequest = z.input<typeof IntegrationTestRequest>;

export const IntegrationTestResponse = z.object({
  ok: z.boolean(),
  company_id: z.string(),
  service: ProviderServiceName,
  environment: Environment,
  message: z.string(),
  checked_at: z.string(),
});
export type IntegrationTestResponse = z.infer<typeof IntegrationTestResponse>;

export const integrationTest = operation({
  summary: "Check whether a provider key works (admin)",
  input: IntegrationTestRequest,
  output: IntegrationTestResponse,
  roles: ADMIN_ONLY,
  errors: ["not_found", "business_rule"],
  handle: (input, ctx) => refusingUrls(() => testCredential({ input, ctx: integrationContext(ctx) })),
});
