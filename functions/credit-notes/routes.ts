/**
 * Route group: create, reissue, representation, refresh. One file per operation; this file only lists them.
 * A group never imports another group.
 */
import type { OperationGroup } from "../../shared/http/route.ts";
import { create } from "./create.ts";
import { refresh } from "./refresh.ts";
import { reissue } from "./reissue.ts";
import { representation } from "./representation.ts";

export const creditNoteOperations: OperationGroup = {
  "/": create,
  "/reissue": reissue,
  "/representation": representation,
  "/refresh": refresh,
};
