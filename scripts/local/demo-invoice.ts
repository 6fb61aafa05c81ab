/**
 * `npm run demo:invoice`: a new `pendiente` invoice with two lines in the demo organization of the
 * running local server (`npm start`), created as its operador — the user of the quick start's curl
 * line — by the server's own route (./demo-invoice-route.ts: the web app's INSERTs, under the same
 * grants and RLS). Reads `<EINV_DATA_DIR or .data>/local.json` for where the server is and the
 * token. Prints the invoice's id on stdout (`id=$(npm run -s demo:invoice)`), and on stderr its
 * number and a curl line that transmits it.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import type { DemoInvoice } from "./demo-invoice-route.ts";
import { DEMO_INVOICE_PATH } from "./demo-invoice-route.ts";
import { curlUser, type LocalRun, printCurl } from "./local-json.ts";

const dataDir = process.env.EINV_DATA_DIR ?? ".data";
const localFile = join(dataDir, "local.json");

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const local: LocalRun = await readFile(localFile, "utf8").then(JSON.parse, () =>
  fail(
    `${localFile} not found: start the local server first (npm start), or set EINV_DATA_DIR to its data folder`,
  ),
);
const user = curlUser(local) ?? fail(`${localFile} names no demo user: the database was not seeded`);
// the server's root: base_url is `<root>/functions`
const root = local.base_url.replace(/\/functions$/, "");
const response = await fetch(`${root}${DEMO_INVOICE_PATH}`, {
  method: "POST",
  headers: { authorization: `Bearer ${user.access_token}`, "content-type": "application/json" },
  body: JSON.stringify({ org_id: user.org_id }),
}).catch((error: unknown) =>
  fail(`the local server at ${root} does not answer (${(error as Error).message}): is npm start running?`),
);
const body = await response.json().catch(() => null);
if (response.status !== 201) {
  fail(`the local server refused (${response.status}): ${JSON.stringify(body?.error ?? body)}`);
}
const created = body as DemoInvoice;
const org = local.orgs.find((o) => o.id === created.org_id)?.name ?? created.org_id;
console.error(
  `created invoice ${created.number} (pendiente, ${created.lines} lines, total ${created.total}) in ${org} as ${user.email}; transmit it:`,
);
console.error(printCurl(local, [created.invoice_id]));
console.log(created.invoice_id);
