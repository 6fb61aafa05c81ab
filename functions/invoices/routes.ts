/**
 * Route group: transmit, refresh, representation, deliver. One file per operation; this file only
 * mounts them, each imported on its first call (../../shared/http/lazy.ts).
 * A group never imports another group.
 */
import { Hono } from "hono";
import type { AppEnv } from "../../shared/http/context.ts";
import { lazy } from "../../shared/http/lazy.ts";

export const invoiceRoutes = new Hono<AppEnv>()
  .post(
    "/transmit",
    lazy(
      () => import("./transmit.ts"),
      (m) => m.transmit,
    ),
  )
  .post(
    "/refresh",
    lazy(
      () => import("./refresh.ts"),
      (m) => m.refresh,
    ),
  )
  .post(
    "/representation",
    lazy(
      () => import("./representation.ts"),
      (m) => m.representation,
    ),
  )
  .post(
    "/deliver",
    lazy(
      () => import("./deliver.ts"),
      (m) => m.deliver,
    ),
  );
