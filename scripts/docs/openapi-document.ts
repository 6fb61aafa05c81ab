/**
 * docs/openapi.json as it should be now: built from the einvoicing function's route groups. The
 * writer (`npm run openapi`) and the staleness test both call this.
 */

import { FUNCTION_NAME, ROUTE_GROUPS } from "../../functions/einvoicing/app.ts";
import packageJson from "../../package.json" with { type: "json" };
import { loadGroup } from "../../shared/http/lazy.ts";
import { buildOpenApi } from "../../shared/http/openapi.ts";

export const OPENAPI_FILE = new URL("../../docs/openapi.json", import.meta.url);

/** The document as committed: two-space JSON and a final newline. */
export async function openApiText(): Promise<string> {
  const groups = await Promise.all(
    ROUTE_GROUPS.map(async (group) => ({ ...group, operations: await loadGroup(group.operations) })),
  );
  const document = buildOpenApi({ functionName: FUNCTION_NAME, version: packageJson.version, groups });
  return `${JSON.stringify(document, null, 2)}\n`;
}
