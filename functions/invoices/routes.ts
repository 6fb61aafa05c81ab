/**
 * Route group: transmit, refresh, representation, deliver. One file per operation; this file only
 * lists them, each imported on its first call (a cold instance loads only what its requests use).
 * A group never imports another group.
 */
import type { OperationGroup } from "../../shared/http/lazy.ts";

export const invoiceOperations: OperationGroup = {
  "/transmit": async () => (await import("./transmit.ts")).transmit,
  "/refresh": async () => (await import("./refresh.ts")).refresh,
  "/representation": async () => (await import("./representation.ts")).representation,
  "/deliver": async () => (await import("./deliver.ts")).deliver,
};
