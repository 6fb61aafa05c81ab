/**
 * Route group: create, reissue, representation, refresh. One file per operation; this file only mounts them.
 * A group never imports another group.
 */
import { Hono } from "hono";
import type { AppEnv } from "../../shared/http/context.ts";

export const creditNoteRoutes = new Hono<AppEnv>();
