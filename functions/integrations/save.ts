/**
 * POST /integrations/save (admin) — checks a provider key, then stores it sealed. Answers
 * `{ company_id, service, environment, url, settings, api_key_hint, verified_at }`; 422
 * `credential_rejected` when the key does not authenticate, and nothing is stored. Without `api_key`
 * the saved key is kept and checked at the saved url (a `url` naming another one is 422). In DIAN
 * mode (`settings.provider` "dian") the certificate and software PIN take the key's place, and the
 * answer adds `certificate: { subject, nit, serial, not_after }`.
 */
import { z } from "zod";
import { integrationContext } from "../../shared/core/integrations/context.ts";
import { saveCredential } from "../../shared/core/integrations/save.ts";
import { DIAN_EXAMPLE, EXAMPLE } from "../../shared/http/examples.ts";
import { ADMIN_ONLY, operation, PROVIDER_ERRORS } from "../../shared/http/route.ts";
import { Environment } from "../../shared/ports/providers/protocol.ts";
import {
  ApiKey,
  Certificate,
  CertificateSummary,
  CredentialFields,
  KEY_DESCRIPTION,
  ProviderServiceName,
  ProviderUrl,
  SETTINGS_DESCRIPTION,
  Settings,
  SoftwarePin,
  URL_DESCRIPTION,
} from "./fields.ts";

export const IntegrationSaveRequest = CredentialFields.extend({
  api_key: ApiKey.optional().meta({ description: KEY_DESCRIPTION }),
  url: ProviderUrl.optional().meta({ description: URL_DESCRIPTION }),
  settings: Settings.optional().meta({
    description: `${SETTINGS_DESCRIPTION} Left out, the saved ones are kept.`,
  }),
  certificate: Certificate.optional(),
  software_pin: SoftwarePin.optional(),
});
export type IntegrationSaveRequest = z.input<typeof IntegrationSaveRequest>;

export const IntegrationSaveResponse = z.object({
  company_id: z.string().meta({ description: "The company, as requested." }),
  service: ProviderServiceName.meta({ description: "The provider, as requested." }),
  environment: Environment.meta({ description: "The environment, as requested." }),
  url: z.string().meta({ description: "The saved url, normalised." }),
  settings: z.record(z.string(), z.unknown()).meta({ description: "The saved settings." }),
  /** The key's last four characters, never more. */
  api_key_hint: z
    .string()
    .max(4)
    .meta({ description: 'The saved key\'s last four characters, never more ("" in DIAN mode: no key).' }),
  verified_at: z.string().meta({ description: "When the provider accepted the key (ISO 8601)." }),
  certificate: CertificateSummary.optional(),
});
export type IntegrationSaveResponse = z.infer<typeof IntegrationSaveResponse>;

export const integrationSave = operation({
  summary: "Check a provider key and store it sealed (admin)",
  description:
    "Checks a provider credential as /integrations/test does and, only if it works, stores it for the " +
    "company, service and environment, sealed (AES-256-GCM) and never shown again: answers show the " +
    "key's last four characters at most. Admins only.",
  input: IntegrationSaveRequest,
  output: IntegrationSaveResponse,
  roles: ADMIN_ONLY,
  announces: true, // its changes go to the org's webhooks right after the answer
  errors: ["not_found", "business_rule", ...PROVIDER_ERRORS],
  example: {
    summary: "A provider key",
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
  moreExamples: {
    dian: {
      summary: "DIAN mode (habilitación): the company's certificate and software",
      request: {
        org_id: EXAMPLE.org_id,
        company_id: EXAMPLE.company_id,
        service: "adapter-tax",
        environment: "uat",
        settings: DIAN_EXAMPLE.settings,
        certificate: { p12_base64: DIAN_EXAMPLE.p12_base64, password: "contraseña-del-certificado" },
        software_pin: "k7Qp2vXn9LmR4tWs",
      },
      response: {
        company_id: EXAMPLE.company_id,
        service: "adapter-tax",
        environment: "uat",
        url: "https://vpfe-hab.dian.gov.co/WcfDianCustomerServices.svc",
        settings: DIAN_EXAMPLE.settings,
        api_key_hint: "",
        verified_at: EXAMPLE.at,
        certificate: DIAN_EXAMPLE.certificate,
      },
    },
  },
  handle: (input, ctx) => saveCredential({ input, ctx: integrationContext(ctx) }),
});
