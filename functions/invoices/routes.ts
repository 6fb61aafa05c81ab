/**
 * Route group: transmit, refresh, representation, deliver. One file per operation; this file only lists them.
 * A group never imports another group.
 */
import type { OperationGroup } from "../../shared/http/route.ts";
import { deliver } from "./deliver.ts";
import { refresh } from "./refresh.ts";
import { representation } from "./representation.ts";
import { transmit } from "./transmit.ts";

export const invoiceOperations: OperationGroup = {
  "/transmit": transmit,
  "/refresh": refresh,
  "/representation": representation,
  "/deliver": deliver,
};
