// The baseline of the cold-start budget (DESIGN §7): a bare Hono app on Deno, nothing else.
import { Hono } from "hono";

const app = new Hono().basePath("/einvoicing");
app.options("*", (c) => c.body(null, 204));
Deno.serve({ port: Number(Deno.env.get("PORT")), hostname: "127.0.0.1", onListen: () => {} }, app.fetch);
