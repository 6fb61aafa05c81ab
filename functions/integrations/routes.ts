/**
 * Route group: test, save (admin only). One file per operation; this file only lists them.
 * A group never imports another group.
 */
import type { OperationGroup } from "../../shared/http/route.ts";
import { integrationSave } from "./save.ts";
import { integrationTest } from "./test.ts";

export const integrationOperations: OperationGroup = {
  "/test": integrationTest,
  "/save": integrationSave,
};
