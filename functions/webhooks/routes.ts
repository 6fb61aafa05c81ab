/**
 * Route group: save, test (admin only). One file per operation, each imported on its first call.
 * A group never imports another group.
 */
import type { OperationGroup } from "../../shared/http/lazy.ts";

export const webhookOperations: OperationGroup = {
  "/save": async () => (await import("./save.ts")).webhookSave,
  "/test": async () => (await import("./test.ts")).webhookTest,
};
