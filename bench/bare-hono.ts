// The baseline of the cold-start budget and of the load run (DESIGN §7): a bare Hono app on Deno,
// nothing else. It answers preflights (cold start) and POSTs with a small JSON body (load).
import { Hono } from "hono";

const app = new Hono().basePath("/einvoicing");
app.options("*", (c) => c.body(null, 204));
app.post("*", (c) => c.json({ ok: true }));
Deno.serve({ port: Number(Deno.env.get("PORT")), hostname: "127.0.0.1", onListen: () => {} }, app.fetch);
