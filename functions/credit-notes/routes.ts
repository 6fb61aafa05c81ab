/**
 * Route group: create, reissue, representation, refresh. One file per operation; this file only
 * mounts them, each imported on its first call (../../shared/http/lazy.ts).
 * A group never imports another group.
 */
import { Hono } from "hono";
import type { AppEnv } from "../../shared/http/context.ts";
import { lazy } from "../../shared/http/lazy.ts";

export const creditNoteRoutes = new Hono<AppEnv>()
  .post(
    "/",
    lazy(
      () => import("./create.ts"),
      (m) => m.create,
    ),
  )
  .post(
    "/reissue",
    lazy(
      () => import("./reissue.ts"),
      (m) => m.reissue,
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
    "/refresh",
    lazy(
      () => import("./refresh.ts"),
      (m) => m.refresh,
    ),
  );
