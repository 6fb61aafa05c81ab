/**
 * A route whose operation module is imported on its first call. Route groups mount every route
 * with `lazy()`, so loading the app builds no zod schema and imports no provider client, PDF or
 * ZIP code: a cold instance loads only what its first requests use (DESIGN §7, cold start).
 */
import type { Handler } from "hono";
import type { AppEnv } from "./context.ts";

export function lazy<M>(load: () => Promise<M>, pick: (module: M) => Handler<AppEnv>): Handler<AppEnv> {
  let pending: Promise<Handler<AppEnv>> | undefined;
  return async (c, next) => {
    if (!pending) {
      const loading = load().then(pick);
      // a failed import is not remembered: the next call tries again
      loading.catch(() => {
        if (pending === loading) pending = undefined;
      });
      pending = loading;
    }
    return (await pending)(c, next);
  };
}
