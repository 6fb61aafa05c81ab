/**
 * Route group: create, reissue, representation, refresh, deliver. One file per operation; this file only
 * lists them, each imported on its first call (a cold instance loads only what its requests use).
 * A group never imports another group.
 */
import type { OperationGroup } from "../../shared/http/lazy.ts";

export const debitNoteOperations: OperationGroup = {
  "/": async () => (await import("./create.ts")).create,
  "/reissue": async () => (await import("./reissue.ts")).reissue,
  "/representation": async () => (await import("./representation.ts")).representation,
  "/refresh": async () => (await import("./refresh.ts")).refresh,
  "/deliver": async () => (await import("./deliver.ts")).deliver,
};
