/**
 * Route group: test, save (admin only). One file per operation; this file only mounts them.
 * A group never imports another group.
 */
import { Hono } from "hono";
import type { AppEnv } from "../../shared/http/context.ts";
import { integrationSave } from "./save.ts";
import { integrationTest } from "./test.ts";

export const integrationRoutes = new Hono<AppEnv>()
  .post("/test", integrationTest)
  .post("/save", integrationSave);
