// Entry point of the `einvoicing` Supabase Edge Function (Deno). On Supabase the runtime owns the
// port; PORT only matters when the entry is run on its own (the tests' smoke run).
import { buildDeps } from "../../shared/compose.ts";
import { createApp } from "./app.ts";

const deps = await buildDeps(Deno.env.toObject());
const port = Number(Deno.env.get("PORT")) || undefined;
Deno.serve(port ? { port, hostname: "127.0.0.1" } : {}, createApp(deps).fetch);
