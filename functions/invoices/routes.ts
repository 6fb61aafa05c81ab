/**
 * Route group: transmit, refresh, representation, deliver. One file per operation; this file only mounts them.
 * A group never imports another group.
 */
import { Hono } from "hono";
import type { AppEnv } from "../../shared/http/context.ts";
import { deliver } from "./deliver.ts";
import { refresh } from "./refresh.ts";
import { representation } from "./representation.ts";
import { transmit } from "./transmit.ts";

export const invoiceRoutes = new Hono<AppEnv>()
  .post("/transmit", transmit)
  .post("/refresh", refresh)
  .post("/representation", representation)
  .post("/deliver", deliver);
