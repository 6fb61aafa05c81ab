/**
 * POST /integrations/test (admin) — does a provider key work? Checks `api_key` at `url`, or the saved
 * key or url for whichever is not given (the saved key only at the saved url: 422 otherwise), and
 * answers `{ ok, company_id, service, environment, message, checked_at }` with HTTP 200 whether it
 * works or not. `settings` (not in the spec's body: our addition) are tested with, not saved, so an
 * unsaved DIAN-mode credential can be tested whole: with `settings.provider` "dian", given or saved,
 * the certificate and software PIN take the key's place and the answer adds the `certificate`, and
 * `warnings` when the PIN is one a CUDE gives away (shared/co/software-pin.ts).
 */
import { z } from "zod";
import { GUESSABLE_PIN_WARNING } from "../../shared/co/software-pin.ts";
import { integrationContext } from "../../shared/core/integrations/context.ts";
import { testCredential } from "../../shared/core/integrations/test.ts";
import { DIAN_EXAMPLE, EXAMPLE } from "../../shared/http/examples.ts";
import { ADMIN_ONLY, operation } from "../../shared/http/route.ts";
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

export const IntegrationTestRequest = CredentialFields.extend({
  api_key: ApiKey.optional().meta({ description: KEY_DESCRIPTION }),
  url: ProviderUrl.optional().meta({ description: URL_DESCRIPTION }),
  settings: Settings.optional().meta({
    description: `${SETTINGS_DESCRIPTION} Tested with, not saved; left out, the saved ones.`,
  }),
  certificate: Certificate.optional(),
  software_pin: SoftwarePin.optional(),
});
export type IntegrationTestRequest = z.input<typeof IntegrationTestRequest>;

export const IntegrationTestResponse = z.object({
  ok: z.boolean().meta({ description: "Whether the provider accepted the key." }),
  company_id: z.string().meta({ description: "The company, as requested." }),
  service: ProviderServiceName.meta({ description: "The provider, as requested." }),
  environment: Environment.meta({ description: "The environment, as requested." }),
  message: z.string().meta({ description: "The verdict, in English, for a person to read." }),
  checked_at: z.string().meta({ description: "When it was checked (ISO 8601)." }),
  certificate: CertificateSummary.optional(),
  warnings: z
    .array(
      z.object({
        code: z.enum(["software_pin_guessable"]).meta({
          description:
            "`software_pin_guessable`: the software PIN (under 72 bits: e.g. fewer than 13 letters of both cases and digits, or 22 digits) " +
            "can be recovered from any credit note's CUDE by trying PINs; register a longer one with DIAN.",
        }),
        message: z.string().meta({ description: "What to fix, for a person to read." }),
      }),
    )
    .optional()
    .meta({ description: "DIAN mode: what should be fixed whatever the verdict. Absent when nothing." }),
  provider_message: z.string().optional().meta({
    description:
      "The provider's (or DIAN's) own words about the key or its failure, as it wrote them (the key cut out); present when it gave any. Never part of `message`.",
  }),
});
export type IntegrationTestResponse = z.infer<typeof IntegrationTestResponse>;

export const integrationTest = operation({
  summary: "Check whether a provider key works (admin)",
  description:
    "Asks the provider whether an API key works at a URL (or, in DIAN mode, whether a certificate and " +
    "software registration do), without saving anything; what is not given is taken from the saved " +
    "credential. Answers 200 whether it works or not, with a sentence saying why. Admins only.",
  input: IntegrationTestRequest,
  output: IntegrationTestResponse,
  roles: ADMIN_ONLY,
  errors: ["not_found", "business_rule"],
  example: {
    summary: "A provider key",
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
      message: "The provider rejected the API key (HTTP 401).",
      provider_message: "API key revoked",
      checked_at: EXAMPLE.at,
    },
  },
  moreExamples: {
    dian: {
      summary: "DIAN mode, before saving: a certificate of another company, and a 5-digit PIN",
      request: {
        org_id: EXAMPLE.org_id,
        company_id: EXAMPLE.company_id,
        service: "adapter-tax",
        environment: "uat",
        settings: DIAN_EXAMPLE.settings,
        certificate: { p12_base64: DIAN_EXAMPLE.p12_base64, password: "contraseña-del-certificado" },
        software_pin: "12345",
      },
      response: {
        ok: false,
        company_id: EXAMPLE.company_id,
        service: "adapter-tax",
        environment: "uat",
        message: "The certificate is NIT 900123456's, not the company's (NIT 901234567-7).",
        checked_at: EXAMPLE.at,
        certificate: DIAN_EXAMPLE.certificate,
        warnings: [{ code: "software_pin_guessable", message: GUESSABLE_PIN_WARNING }],
      },
    },
  },
  handle: (input, ctx) => testCredential({ input, ctx: integrationContext(ctx) }),
});
