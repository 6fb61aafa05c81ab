/**
 * docs/openapi.json as it should be now: built from the einvoicing function's route groups. The
 * writer (`npm run openapi`) and the staleness test both call this.
 */

import { FUNCTION_NAME, ROUTE_GROUPS } from "../../functions/einvoicing/app.ts";
import packageJson from "../../package.json" with { type: "json" };
import { buildOpenApi } from "../../shared/http/openapi.ts";

export const OPENAPI_FILE = new URL("../../docs/openapi.json", import.meta.url);

/** The document as committed: two-space JSON and a final newline. */
export function openApiText(): string {
  const document = buildOpenApi({
    functionName: FUNCTION_NAME,
    version: packageJson.version,
    groups: ROUTE_GROUPS,
  });
  return `${JSON.stringify(document, null, 2)}\n`;
}
