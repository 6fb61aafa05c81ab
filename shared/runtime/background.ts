/**
 * Work a request starts and does not wait for: the webhook messages its changes queued are sent
 * after its answer has left. On Supabase's Edge Runtime an instance may be stopped once it has
 * answered, unless the work is handed to `EdgeRuntime.waitUntil(promise)` (Supabase, "Background
 * Tasks": supabase.com/docs/guides/functions/background-tasks), which keeps it alive until the promise
 * settles, within the platform's wall-clock limit. Elsewhere (Deno run locally, Node in the tests)
 * the process outlives the request anyway. Either way the task is kept until it settles, so a test or
 * a shutdown can wait for it (`idle`), and what it throws is logged, never unhandled.
 */
import type { Logger } from "../kernel/log.ts";

export interface Background {
  /** Starts `task` now, without waiting for it. */
  run(name: string, task: () => Promise<unknown>): void;
  /** Settles once every task started so far (and any they start) has settled. */
  idle(): Promise<void>;
}

interface EdgeRuntimeLike {
  waitUntil(promise: Promise<unknown>): void;
}

export function createBackground(log: Logger): Background {
  const running = new Set<Promise<unknown>>();
  return {
    run(name, task) {
      const promise: Promise<unknown> = Promise.resolve()
        .then(task)
        .catch((error: unknown) => log.error("background task failed", { task: name, error }))
        .finally(() => running.delete(promise));
      running.add(promise);
      const edge = (globalThis as { EdgeRuntime?: EdgeRuntimeLike }).EdgeRuntime;
      if (typeof edge?.waitUntil === "function") edge.waitUntil(promise);
    },
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
