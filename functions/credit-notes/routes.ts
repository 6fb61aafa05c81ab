/**
 * Route group: create, reissue, representation, refresh. One file per operation; this file only mounts them.
 * A group never imports another group.
 */
import { Hono } from "hono";
import type { AppEnv } from "../../shared/http/context.ts";
import { create } from "./create.ts";
import { refresh } from "./refresh.ts";
import { reissue } from "./reissue.ts";
import { representation } from "./representation.ts";

export const creditNoteRoutes = new Hono<AppEnv>()
  .post("/", create)
  .post("/reissue", reissue)
  .post("/representation", representation)
  .post("/refresh", refresh);
