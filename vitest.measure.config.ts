import { defineConfig } from "vitest/config";
import base from "./vitest.config.ts";

/**
 * Measurements that print figures for the docs and are never part of `npm test` (a time is not a
 * test): `npm run measure:batches` (docs/postgrest-stand-in.md). Same setup as the tests.
 */
export default defineConfig({
  test: { ...base.test, include: ["tests/measure/**/*.measure.ts"], testTimeout: 120_000 },
});
