import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/.data/**"],
    // starts the throwaway PostgreSQL cluster (or picks PGlite) once for the whole run
    globalSetup: ["tests/global-setup.ts"],
    // supabase-js builds a realtime client in createClient, which needs WebSocket: native from Node 22
    execArgv: ["--experimental-websocket"],
    // cloning a database or loading PGlite with the schema takes a moment in beforeAll
    hookTimeout: 60_000,
    testTimeout: 15_000,
    // two files at a time even on two cores (vitest would run one): the suites mostly wait on
    // PostgreSQL and on Deno children, so a second worker halves the run (8 → 4 minutes here)
    maxWorkers: 2,
  },
});
