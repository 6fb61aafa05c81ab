/**
 * Route group: test, save (admin only). One file per operation; this file only mounts them, each
 * imported on its first call (../../shared/http/lazy.ts).
 * A group never imports another group.
 */
import { Hono } from "hono";
import type { AppEnv } from "../../shared/http/context.ts";
import { lazy } from "../../shared/http/lazy.ts";

export const integrationRoutes = new Hono<AppEnv>()
  .post(
    "/test",
    lazy(
      () => import("./test.ts"),
      (m) => m.integrationTest,
    ),
  )
  .post(
    "/save",
    lazy(
      () => import("./save.ts"),
      (m) => m.integrationSave,
    ),
  );
