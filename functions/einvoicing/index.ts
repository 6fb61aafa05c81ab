// Entry point of the `einvoicing` Supabase Edge Function (Deno). On Supabase the runtime owns the
// port; PORT only matters when the entry is run on its own (the tests' smoke run).
//
// Cold start: the front (./front.ts) answers CORS preflights with Hono's CORS middleware alone; the
// app and its dependencies are imported by the first request that needs them (`npm run bench`
// measures both). deno.json's `lazy-dynamic-imports` keeps Deno from loading them before main.
import { createFront } from "./front.ts";

const env = Deno.env.toObject();
const port = Number(Deno.env.get("PORT")) || undefined;
Deno.serve(
  port ? { port, hostname: "127.0.0.1", onListen: () => {} } : {},
  createFront(env, async () => {
    const [{ buildDeps }, { createApp }] = await Promise.all([
      import("../../shared/compose.ts"),
      import("./app.ts"),
    ]);
    return createApp(await buildDeps(env)).fetch;
  }),
);
