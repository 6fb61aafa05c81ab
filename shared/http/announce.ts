/**
 * After a request that may have changed a status: the webhook messages its changes queued for the
 * organization are sent in the background, once the answer has left (../background.ts keeps the
 * instance alive for it on Supabase). A batch or two, bounded by the drain's own limits; whatever it
 * leaves (a failure, an endpoint slower than the batch) the next request's drain or the next
 * reconcile run takes. The answer never waits for it.
 */
import { drainWebhooks } from "../events/drain.ts";
import type { Logger } from "../log.ts";
import type { AppDeps } from "./context.ts";

/** Deliveries a request's drain takes: plenty for what one request changes (a /transmit of 50: 100 events). */
const BATCH = 100;

export function announceChanges(deps: AppDeps, orgId: string, log: Logger): void {
  const { webhooks, providers } = deps.config;
  deps.background.run("webhooks", () =>
    drainWebhooks(
      {
        serviceDb: deps.db.asService(),
        secretBox: deps.secretBox,
        egress: deps.egress,
        allowPrivateUrls: providers.allowPrivateUrls,
        timeoutMs: webhooks.timeoutMs,
        concurrency: webhooks.concurrency,
        log,
      },
      // a batch is taken while a message can still end in time: here once or twice
      { orgId, batchSize: BATCH, budgetMs: 2 * webhooks.timeoutMs },
    ),
  );
}
