// Entry point of the `reconcile` Supabase Edge Function (Deno), hit by the scheduler (pg_cron + pg_net,
// supabase/schedule/reconcile.sql). On Supabase the runtime owns the port; PORT only matters when
// the entry is run on its own.
import { buildDeps } from "../../shared/compose.ts";
import { createReconcileApp } from "./app.ts";

const deps = await buildDeps(Deno.env.toObject());
const port = Number(Deno.env.get("PORT")) || undefined;
Deno.serve(port ? { port, hostname: "127.0.0.1" } : {}, createReconcileApp(deps).fetch);
