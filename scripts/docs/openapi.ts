/**
 * `npm run openapi`: writes docs/openapi.json from the routes' schemas (see shared/http/openapi.ts),
 * and from it client/route-errors.ts (the typed client's per-route error codes); the script then runs
 * openapi-typescript for client/openapi.ts.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { OPENAPI_FILE, openApiText } from "./openapi-document.ts";
import { ROUTE_ERRORS_FILE, routeErrorsText } from "./route-errors.ts";

const text = await openApiText();
writeFileSync(OPENAPI_FILE, text);
console.log(`wrote ${fileURLToPath(OPENAPI_FILE)}`);
writeFileSync(ROUTE_ERRORS_FILE, routeErrorsText(JSON.parse(text)));
console.log(`wrote ${fileURLToPath(ROUTE_ERRORS_FILE)}`);
