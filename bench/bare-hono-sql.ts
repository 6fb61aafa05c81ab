// The floor of a first authenticated call (bench/cold-start.ts): a bare Hono app on Deno whose one
// POST route makes one SQL round trip over postgres.js, connecting on first use as the service does.
import { Hono } from "hono";
import postgres from "postgres";

const sql = postgres(Deno.env.get("DATABASE_URL") ?? "", { max: 1, prepare: false, onnotice: () => {} });
const app = new Hono().basePath("/einvoicing");
app.post("/*", async (c) => c.json(await sql.unsafe("select 1 as one").simple()));
Deno.serve({ port: Number(Deno.env.get("PORT")), hostname: "127.0.0.1", onListen: () => {} }, app.fetch);
