/**
 * After a request that may have changed a status: the webhook messages its changes queued for the
 * organization are sent in the background, once the answer has left (../runtime/background.ts keeps the
 * instance alive for it on Supabase). Bounded by the drain's own limits; whatever it leaves (a
 * failure, an endpoint slower than the budget) the next request's drain or the next reconcile run
 * takes. The answer never waits for it.
 *
 * One drain per organization at a time in a process: a request that asks while one runs marks it to
 * go round once more when it ends (its picks may have come before the request's events committed),
 * so a burst of requests costs a drain or two, not one each, and nothing asked for is missed.
 */
import { drainWebhooks } from "../events/drain.ts";
import type { Logger } from "../kernel/log.ts";
import type { AppDeps } from "./context.ts";

/**
 * The most deliveries a request's drain takes at a time (a /transmit of 50 makes 100 events); it
 * takes fewer when fewer can end within its budget (../events/drain.ts).
 */
const BATCH = 100;

/** Per app, the organizations whose drain is running, and whether it must go round once more. */
const draining = new WeakMap<AppDeps, Map<string, "running" | "again">>();

export function announceChanges(deps: AppDeps, orgId: string, log: Logger): void {
  const orgs = draining.get(deps) ?? new Map<string, "running" | "again">();
  draining.set(deps, orgs);
  if (orgs.has(orgId)) {
    orgs.set(orgId, "again");
    return;
  }
  orgs.set(orgId, "running");
  const { webhooks, providers } = deps.config;
  const context = {
    serviceDb: deps.db.asService(),
    secretBox: deps.secretBox,
    egress: deps.egress,
    allowPrivateUrls: providers.allowPrivateUrls,
    timeoutMs: webhooks.timeoutMs,
    concurrency: webhooks.concurrency,
    log,
  };
  deps.background.run("webhooks", async () => {
    try {
      do {
        orgs.set(orgId, "running");
        // as many as can end in time are taken (two per slot of the concurrency, at the timeout),
        // batch after batch while they are delivered
        await drainWebhooks(context, { orgId, batchSize: BATCH, budgetMs: 2 * webhooks.timeoutMs });
      } while (orgs.get(orgId) === "again");
    } finally {
      orgs.delete(orgId);
    }
  });
}
