/**
 * `npm run openapi`: writes docs/openapi.json from the routes' schemas (see shared/http/openapi.ts),
 * and from it client/route-errors.ts (the typed client's per-route error codes), and
 * client/messages.ts (the sentences for people of every code); the script then runs
 * openapi-typescript for client/openapi.ts.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MESSAGES_FILE, messagesText } from "./messages.ts";
import { OPENAPI_FILE, openApiText } from "./openapi-document.ts";
import { ROUTE_ERRORS_FILE, routeErrorsText } from "./route-errors.ts";

const text = await openApiText();
writeFileSync(OPENAPI_FILE, text);
console.log(`wrote ${fileURLToPath(OPENAPI_FILE)}`);
writeFileSync(ROUTE_ERRORS_FILE, routeErrorsText(JSON.parse(text)));
console.log(`wrote ${fileURLToPath(ROUTE_ERRORS_FILE)}`);
writeFileSync(MESSAGES_FILE, messagesText());
console.log(`wrote ${fileURLToPath(MESSAGES_FILE)}`);
