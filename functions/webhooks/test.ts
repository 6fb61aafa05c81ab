/**
 * POST /webhooks/test (admin) — sends a signed `ping` to one of the organization's endpoints and
 * answers `{ ok, status, message }` with HTTP 200 whether it was taken or not.
 */
import { z } from "zod";
import { webhookContext } from "../../shared/core/webhooks/context.ts";
import { testWebhook } from "../../shared/core/webhooks/test.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";
import { ADMIN_ONLY, operation, orgScoped, uuid } from "../../shared/http/route.ts";

export const WebhookTestRequest = orgScoped.extend({
  webhook_id: uuid.meta({ description: "An endpoint of this organization." }),
});
export type WebhookTestRequest = z.input<typeof WebhookTestRequest>;

export const WebhookTestResponse = z.object({
  ok: z.boolean().meta({ description: "Whether the endpoint answered 2xx." }),
  status: z
    .number()
    .int()
    .nullable()
    .meta({ description: "The endpoint's HTTP status; null when none came." }),
  message: z
    .string()
    .meta({ description: "What happened, for a person to read (never the endpoint's words)." }),
});
export type WebhookTestResponse = z.infer<typeof WebhookTestResponse>;

export const webhookTest = operation({
  summary: "Send a signed ping to a webhook endpoint (admin)",
  description:
    "Sends a signed `ping` to one of the organization's endpoints now and says whether it answered 2xx, " +
    "so a receiver's signature check can be tried before real events arrive. Admins only.",
  input: WebhookTestRequest,
  output: WebhookTestResponse,
  roles: ADMIN_ONLY,
  errors: ["not_found", "business_rule"],
  example: {
    request: { org_id: EXAMPLE.org_id, webhook_id: EXAMPLE.webhook_id },
    response: { ok: true, status: 204, message: "The endpoint took the ping (HTTP 204)." },
  },
  handle: (input, ctx) => testWebhook({ input, ctx: webhookContext(ctx) }),
});
