// The floor of a first authenticated call (bench/cold-start.ts): a bare Hono app on Deno whose one
// POST route makes one SQL round trip over postgres.js, connecting on first use as the service does.
// With FLOOR=transmit, the floor of the load's /transmit (bench/load.ts) instead: the POST reads its
// JSON body and makes the SQL round trips /transmit of one invoice makes (./floor.ts), over the
// client of the local server's `postgres` transport with its pool size (EINV_DB_POOL_SIZE); loaded
// only then, so the cold start's floor imports what it always did.
import { Hono } from "hono";
import postgres from "postgres";

const url = Deno.env.get("DATABASE_URL") ?? "";
const app = new Hono().basePath("/einvoicing");
if (Deno.env.get("FLOOR") === "transmit") {
  const [{ connectPostgres }, { transmitRoundTrips }] = await Promise.all([
    import("../shared/db/sql-client.ts"),
    import("./floor.ts"),
  ]);
  const client = await connectPostgres(url, { max: Number(Deno.env.get("EINV_DB_POOL_SIZE")) });
  const roundTrips = transmitRoundTrips((statements) => client.script(statements));
  app.post("/*", async (c) => {
    await c.req.json();
    await roundTrips();
    return c.json({ ok: true });
  });
} else {
  const sql = postgres(url, { max: 1, prepare: false, onnotice: () => {} });
  app.post("/*", async (c) => c.json(await sql.unsafe("select 1 as one").simple()));
}
Deno.serve({ port: Number(Deno.env.get("PORT")), hostname: "127.0.0.1", onListen: () => {} }, app.fetch);
