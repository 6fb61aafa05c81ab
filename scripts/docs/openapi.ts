/** `npm run openapi`: writes docs/openapi.json from the routes' schemas (see shared/http/openapi.ts). */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { OPENAPI_FILE, openApiText } from "./openapi-document.ts";

writeFileSync(OPENAPI_FILE, await openApiText());
console.log(`wrote ${fileURLToPath(OPENAPI_FILE)}`);
