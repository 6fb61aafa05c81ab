/**
 * Route group: test, save, test-set (admin only). One file per operation; this file only lists them, each
 * imported on its first call (a cold instance loads only what its requests use).
 * A group never imports another group.
 */
import type { OperationGroup } from "../../shared/http/lazy.ts";

export const integrationOperations: OperationGroup = {
  "/test": async () => (await import("./test.ts")).integrationTest,
  "/save": async () => (await import("./save.ts")).integrationSave,
  "/test-set": async () => (await import("./test-set.ts")).integrationTestSet,
};
