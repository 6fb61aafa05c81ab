// Entry point of the `einvoicing` Supabase Edge Function (Deno).
import { buildDeps } from "../../shared/compose.ts";
import { createApp } from "./app.ts";

const deps = await buildDeps(Deno.env.toObject());
Deno.serve(createApp(deps).fetch);
