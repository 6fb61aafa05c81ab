/**
 * POST /webhooks/save (admin) — creates a webhook endpoint (no `webhook_id`) or changes one of the
 * organization's. Answers `{ webhook_id, url, events, enabled, disabled_reason, secret? }`: the
 * `whsec_…` signing secret only when the endpoint is created or its secret rotated
 * (`rotate_secret: true`), never again. Messages follow Standard Webhooks (docs/api.md, "Events").
 */
import { z } from "zod";
import { webhookContext } from "../../shared/core/webhooks/context.ts";
import { MAX_WEBHOOKS_PER_ORG, saveWebhook } from "../../shared/core/webhooks/save.ts";
import { EXAMPLE } from "../../shared/http/examples.ts";
import { ADMIN_ONLY, operation, orgScoped, uuid } from "../../shared/http/route.ts";
import { OutboundUrl } from "../../shared/http/url-field.ts";
import { EVENT_TYPES, type EventType } from "../../shared/kernel/event.ts";

/** One of the closed list; the error names where the list is (its words are the statuses' own). */
const EventTypeName = z.enum(EVENT_TYPES as [EventType, ...EventType[]], {
  error: 'must be an event type listed in docs/api.md ("Events"), such as "invoice.error"',
});

const EventTypes = z
  .array(EventTypeName)
  .min(1, "list at least one type, or send null for every type")
  .max(EVENT_TYPES.length)
  .refine((types) => new Set(types).size === types.length, "each type may appear once")
  .meta({ uniqueItems: true });

export const WebhookSaveRequest = orgScoped
  .extend({
    webhook_id: uuid.optional().meta({
      description: "The endpoint to change; left out, a new endpoint is created.",
    }),
    url: OutboundUrl.optional().meta({
      description:
        "Where messages are POSTed: https, no userinfo, query or fragment, a host that resolves to public addresses only. Required for a new endpoint.",
    }),
    events: EventTypes.nullable().optional().meta({
      description:
        'The event types sent to it (docs/api.md, "Events"); null: every type. Left out: every type for a new endpoint, unchanged otherwise.',
    }),
    enabled: z.boolean().optional().meta({
      description:
        "false stops sending (what was pending is given up); true sends again from now on. Left out: enabled for a new endpoint, unchanged otherwise.",
    }),
    rotate_secret: z.boolean().optional().meta({
      description:
        "true: a new secret, answered once; the old one keeps signing beside it for 24 hours. Only with webhook_id.",
    }),
  })
  .superRefine((body, ctx) => {
    if (body.webhook_id === undefined && body.url === undefined) {
      ctx.addIssue({ code: "custom", path: ["url"], message: "required for a new endpoint" });
    }
    if (body.webhook_id === undefined && body.rotate_secret !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["rotate_secret"],
        message: "only with webhook_id: a new endpoint gets its secret anyway",
      });
    }
  });
export type WebhookSaveRequest = z.input<typeof WebhookSaveRequest>;

export const WebhookSaveResponse = z.object({
  webhook_id: z.string().meta({ description: "The endpoint (admins read it in `webhook_endpoints`)." }),
  url: z.string().meta({ description: "The url as stored, normalised." }),
  events: z.array(EventTypeName).nullable().meta({ description: "The event types sent; null: every type." }),
  enabled: z.boolean().meta({ description: "Whether messages are sent to it." }),
  disabled_reason: z.string().nullable().meta({
    description:
      "Why the service disabled it (it answered 410 Gone, or its messages failed for 3 days); null when enabled or disabled by an admin.",
  }),
  secret: z.string().optional().meta({
    description:
      "The `whsec_…` signing secret, only when the endpoint was created or its secret rotated: keep it, it is never answered again.",
  }),
});
export type WebhookSaveResponse = z.infer<typeof WebhookSaveResponse>;

export const webhookSave = operation({
  summary: `Create or change a webhook endpoint, at most ${MAX_WEBHOOKS_PER_ORG} per organization (admin)`,
  description:
    "Creates one of the organization's webhook endpoints (an https URL and the event types it takes) or " +
    "changes one. Its `whsec_` signing secret is answered once, when it is created or rotated " +
    "(`rotate_secret: true`). Every status change then goes to it signed per Standard Webhooks " +
    "(verify with the client's `verifyWebhook`), at least once, in order per document. Admins only.",
  input: WebhookSaveRequest,
  output: WebhookSaveResponse,
  roles: ADMIN_ONLY,
  errors: ["not_found", "business_rule"],
  // the kept answer of a retry under the same Idempotency-Key holds the secret: sealed at rest
  keepsSecrets: true,
  example: {
    request: {
      org_id: EXAMPLE.org_id,
      url: "https://app.example.com/hooks/einvoicing",
      events: ["invoice.transmitida", "invoice.error", "credit_note.emitida", "credit_note.error"],
    },
    response: {
      webhook_id: EXAMPLE.webhook_id,
      url: "https://app.example.com/hooks/einvoicing",
      events: ["invoice.transmitida", "invoice.error", "credit_note.emitida", "credit_note.error"],
      enabled: true,
      disabled_reason: null,
      secret: "whsec_ZXhhbXBsZS1vbmx5LW5ldmVyLWEtcmVhbC1zZWNyZXQ=",
    },
  },
  handle: (input, ctx) => saveWebhook({ input, ctx: webhookContext(ctx) }),
});
