/**
 * docs/openapi.json as it should be now: built from the einvoicing function's route groups. The
 * writer (`npm run openapi`) and the staleness test both call this.
 */

import { ROUTES } from "../../client/index.ts";
import { FUNCTION_NAME, ROUTE_GROUPS } from "../../functions/einvoicing/app.ts";
import packageJson from "../../package.json" with { type: "json" };
import { DOCUMENT_EVENT_EXAMPLE, WebhookMessageSchema } from "../../shared/events/schema.ts";
import { loadGroup } from "../../shared/http/lazy.ts";
import { buildOpenApi } from "../../shared/http/openapi.ts";

export const OPENAPI_FILE = new URL("../../docs/openapi.json", import.meta.url);

/** The document as committed: two-space JSON and a final newline. */
export async function openApiText(): Promise<string> {
  const groups = await Promise.all(
    ROUTE_GROUPS.map(async (group) => ({ ...group, operations: await loadGroup(group.operations) })),
  );
  const document = buildOpenApi({
    functionName: FUNCTION_NAME,
    version: packageJson.version,
    groups,
    clientMethods: Object.fromEntries(Object.entries(ROUTES).map(([method, route]) => [`/${route}`, method])),
    webhooks: {
      documentStatus: {
        summary: "A status changed (an invoice, a credit note, a delivery, a credential)",
        description:
          "Sent to each enabled endpoint of the organization that takes the event's type, signed per Standard " +
          'Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`; docs/api.md, "Events"). At least ' +
          "once, in order per document; the same `webhook-id` on every retry. The same event (`data`) is " +
          "broadcast on the organization's private Realtime channel `org:<org_id>:documents`.",
        body: WebhookMessageSchema,
        example: {
          type: DOCUMENT_EVENT_EXAMPLE.type,
          timestamp: DOCUMENT_EVENT_EXAMPLE.occurred_at,
          data: DOCUMENT_EVENT_EXAMPLE,
        },
      },
    },
  });
  return `${JSON.stringify(document, null, 2)}\n`;
}
