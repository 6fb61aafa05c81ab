/**
 * The event and the webhook message as zod schemas, for the contract: docs/openapi.json describes
 * them under `webhooks` (OpenAPI 3.1), so the typed client and any receiver are typed from the same
 * source as the routes. The shape is ../kernel/event.ts's; a test holds what the database sends to it.
 */
import { z } from "zod";
import {
  CREDENTIAL_CODES,
  EVENT_STATUSES,
  EVENT_TYPES,
  type EventKind,
  type EventType,
} from "../kernel/event.ts";
import { RESULT_CODES, type ResultCode } from "../kernel/result-codes.ts";

const TYPES = EVENT_TYPES as [EventType, ...EventType[]];
const KINDS = Object.keys(EVENT_STATUSES) as [EventKind, ...EventKind[]];
/** Every result code, then the credential codes not among them (`rejected` is both). */
const CODES = [...new Set<string>([...(Object.keys(RESULT_CODES) as ResultCode[]), ...CREDENTIAL_CODES])] as [
  string,
  ...string[],
];

export const DocumentEventSchema = z
  .object({
    id: z
      .string()
      .regex(/^evt_[0-9a-f]{32}$/)
      .meta({
        description:
          "`evt_` and 32 random hexadecimal digits: names the event, orders nothing. Also the message's `webhook-id`: the same on every retry.",
      }),
    sequence: z.number().int().min(1).meta({
      description:
        "The event's place among its document's events: 1, 2, 3… in the order the changes committed. Sort a document's events by it.",
    }),
    type: z.enum(TYPES).meta({ description: '`<kind>.<status>` (docs/api.md, "Events").' }),
    org_id: z.string().meta({ description: "The organization." }),
    kind: z.enum(KINDS).meta({ description: "What changed." }),
    document_id: z.string().meta({
      description:
        "The invoice, credit note or delivery (the `deliveries` row); for a credential, its company.",
    }),
    status: z.string().meta({ description: "The new status." }),
    code: z.enum(CODES).nullable().meta({
      description: "The outcome's result code (docs/api.md, \"Result codes\"), or a credential's code.",
    }),
    occurred_at: z.string().meta({ description: "When the change was written (ISO 8601, UTC)." }),
  })
  .strict();

export const WebhookMessageSchema = z
  .object({
    type: z.enum(TYPES).meta({ description: "The event's type." }),
    timestamp: z.string().meta({ description: "When the event happened (not when it was sent)." }),
    data: DocumentEventSchema,
  })
  .strict();

export const DOCUMENT_EVENT_EXAMPLE = {
  id: "evt_6f1c2a9e4b7d4e0f8a3c5b2d9e1f7a40",
  sequence: 3,
  type: "invoice.transmitida",
  org_id: "11111111-1111-4111-8111-111111111111",
  kind: "invoice",
  document_id: "5b0e7f4c-2d3a-4f8e-9c61-7a2b9d0e1f35",
  status: "transmitida",
  code: "accepted",
  occurred_at: "2026-11-25T14:03:27.512204Z",
} as const;
