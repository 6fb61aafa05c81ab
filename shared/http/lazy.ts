/**
 * Route groups list their operations as loaders: each operation module is imported on its first
 * call, so loading the app builds no zod schema and imports no provider client, PDF or ZIP code — a
 * cold instance loads only what its first requests use (DESIGN §7, cold start). This module is
 * what the app imports of them; it loads nothing but Hono.
 */
import { type Handler, Hono } from "hono";
import type { AppEnv } from "./context.ts";
import type { Operation } from "./route.ts";

/** A route group's operations by path (relative to the group), in the order the reference lists them. */
export type OperationGroup = Readonly<Record<string, () => Promise<Operation>>>;

/** A handler that imports its operation on the first call (a failed import is tried again next time). */
export function lazy(load: () => Promise<Handler<AppEnv>>): Handler<AppEnv> {
  let pending: Promise<Handler<AppEnv>> | undefined;
  return async (c, next) => {
    if (!pending) {
      const loading = load();
      loading.catch(() => {
        if (pending === loading) pending = undefined;
      });
      pending = loading;
    }
    return (await pending)(c, next);
  };
}

/** Mounts a group's operations as POST routes, each loaded on its first call. */
export function mount(group: OperationGroup): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  for (const [path, load] of Object.entries(group)) routes.post(path, lazy(load));
  return routes;
}

/** The group with every operation loaded: what docs/openapi.json is built from. */
export async function loadGroup(group: OperationGroup): Promise<Record<string, Operation>> {
  const entries = await Promise.all(
    Object.entries(group).map(async ([path, load]) => [path, await load()] as const),
  );
  return Object.fromEntries(entries);
}
