/**
 * `npm start`: the real `einvoicing` function under Deno, on 127.0.0.1:54321, laid out like
 * `supabase start` (functions under /functions/v1, the JWKS under /auth/v1; see ./router.ts), with the
 * API reference at /docs. The database is an
 * embedded PGlite in .data/pglite, or the PostgreSQL server at DATABASE_URL; either is migrated
 * and seeded on first use. The sandbox providers answer in-process under /sandbox/<service>, and
 * the demo companies have credentials for them; adapter-tax adopts, at every start, what the database
 * says it accepted or holds pending (./adopt.ts). PDFs go to .data/storage and can be downloaded with
 * a user's own token at /storage/v1/object/service-documentos/<path>. The tables answer at
 * /rest/v1/<table> as PostgREST does, as the signed-in user under the real grants and RLS (the
 * stand-in the tests use too, devkit/postgrest/). Writes .data/local.json and prints a curl line
 * that works as pasted.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { createLocalSigner } from "../../devkit/auth.ts";
import { createFilesystemStore } from "../../devkit/filesystem-store.ts";
import { createPostgrest } from "../../devkit/postgrest/index.ts";
import { createApp, FUNCTION_NAME } from "../../functions/einvoicing/app.ts";
import { createReconcileApp, RECONCILE_FUNCTION } from "../../functions/reconcile/app.ts";
import {
  createSandboxDeliver,
  createSandboxDocsgen,
  createSandboxProvider,
  createSandboxRouter,
} from "../../sandbox/index.ts";
import { buildDeps } from "../../shared/compose.ts";
import { createPostgresDb } from "../../shared/db/postgres-transport.ts";
import { connectPostgres, fromPGlite, type SqlClient } from "../../shared/db/sql-client.ts";
import { migrate } from "../db/migrate.ts";
import { adoptSandboxDocuments } from "./adopt.ts";
import { ensureDemoCredentials } from "./demo-credentials.ts";
import { createDemoInvoiceHandler } from "./demo-invoice-route.ts";
import { startDianDemo } from "./dian-demo.ts";
import { createDocsHandler } from "./docs.ts";
import { curlUser, describeLocalRun, LOCAL_API_KEY, printCurl } from "./local-json.ts";
import { createLocalRouter, FUNCTIONS_PREFIX } from "./router.ts";
import { createStorageDownloadHandler } from "./storage-download.ts";

const env = Deno.env.toObject();
const host = env.HOST ?? "127.0.0.1";
const port = Number(env.PORT ?? 54321);
const dataDir = env.EINV_DATA_DIR ?? ".data";
const baseUrl = `http://${host}:${port}`;

// Before anything else: a port in use would otherwise fail after the database setup, as a stack trace.
const portProblem = checkAddress(host, port);
if (portProblem) {
  console.error(portProblem);
  Deno.exit(1);
}

await mkdir(dataDir, { recursive: true });
// The database shares this machine with the server, whose JavaScript runs on one core: a connection
// for each of the other cores unless told otherwise (more only queue up in PostgreSQL and cost a
// process switch per query; one connection pipelines its queries).
const poolSize = Number(env.EINV_DB_POOL_SIZE ?? Math.max(1, (navigator.hardwareConcurrency ?? 2) - 1));
if (!Number.isInteger(poolSize) || poolSize < 1 || poolSize > 100) {
  throw new Error(`EINV_DB_POOL_SIZE must be a whole number from 1 to 100, not ${env.EINV_DB_POOL_SIZE}`);
}
const client: SqlClient = env.DATABASE_URL
  ? await connectPostgres(env.DATABASE_URL, { max: poolSize })
  : fromPGlite(await PGlite.create({ dataDir: `${dataDir}/pglite` }));
const report = await migrate(client, { seed: true });
console.error(
  `database: ${env.DATABASE_URL ? "DATABASE_URL" : `PGlite in ${dataDir}/pglite`}; ` +
    `${report.applied.length} migration(s) applied${report.seeded ? ", demo data seeded" : ""}`,
);

const keyFile = `${dataDir}/local-jwt-key.json`;
const savedKey = await readFile(keyFile, "utf8").then(JSON.parse, () => undefined);
const signer = await createLocalSigner(`${baseUrl}/auth/v1`, savedKey);
if (!savedKey) await writeFile(keyFile, JSON.stringify(signer.privateJwk), { mode: 0o600 });

const credentialsKeyFile = `${dataDir}/local-credentials-key`;
const credentialsKey = await readFile(credentialsKeyFile, "utf8").catch(async () => {
  const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
  await writeFile(credentialsKeyFile, key, { mode: 0o600 });
  return key;
});

// The reconcile function's secret, kept like the others; written to local.json for curl.
const reconcileSecretFile = `${dataDir}/local-reconcile-secret`;
const reconcileSecret = (
  await readFile(reconcileSecretFile, "utf8").catch(async () => {
    const secret = Array.from(crypto.getRandomValues(new Uint8Array(24)), (b) =>
      b.toString(16).padStart(2, "0"),
    ).join("");
    await writeFile(reconcileSecretFile, secret, { mode: 0o600 });
    return secret;
  })
).trim();

const deps = await buildDeps(
  {
    // a local document left en_proceso is reconciled after 30 s unless the environment says otherwise
    EINV_RECONCILE_GRACE_SECONDS: "30",
    ...env,
    EINV_RECONCILE_SECRET: reconcileSecret,
    SUPABASE_URL: baseUrl,
    SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: LOCAL_API_KEY }),
    SUPABASE_JWKS: JSON.stringify(signer.jwks),
    EINV_DB_TRANSPORT: "embedded",
    EINV_CREDENTIALS_KEY: credentialsKey.trim(),
    // the demo credentials point at this very server
    EINV_ALLOW_PRIVATE_PROVIDER_URLS: "true",
  },
  { db: createPostgresDb(client), documents: createFilesystemStore(`${dataDir}/storage`, client) },
);
// mounted where the router hands requests on, as they come (./router.ts)
const app = createApp(deps, { mountedAt: FUNCTIONS_PREFIX });
const reconcileApp = createReconcileApp(deps, { mountedAt: FUNCTIONS_PREFIX });
// No service key: locally nothing may act as service_role through /rest/v1.
const rest = createPostgrest({
  client,
  url: baseUrl,
  publishableKey: LOCAL_API_KEY,
  verify: (token) => deps.verifyToken(token),
});
const download = createStorageDownloadHandler({
  client,
  store: deps.documents,
  verifyToken: deps.verifyToken,
});

// The sandbox providers, in-process: adapter-tax, docsgen and deliver (which writes each message
// with its attachments to .data/outbox/).
const latency = { knobs: { latencyMs: Number(env.SANDBOX_LATENCY_MS ?? 150) } };
const adapterTax = createSandboxProvider(latency);
// DIAN direct: Demo Org's DIAN-mode company transmits to the DIAN stand-in (./dian-demo.ts)
const dianDemo = await startDianDemo({
  dataDir,
  sandboxUrl: `${baseUrl}/sandbox`,
  db: deps.db,
  secretBox: deps.secretBox,
});
if (dianDemo.saved)
  console.error("DIAN direct: the demo company's DIAN-mode credential saved for the stand-in");
const sandboxes = createSandboxRouter(
  {
    adapterTax,
    docsgen: createSandboxDocsgen(latency),
    deliver: createSandboxDeliver({ ...latency, outboxDir: `${dataDir}/outbox` }),
    dian: dianDemo.standIn,
  },
  { prefix: "/sandbox" },
);
const seeded = await ensureDemoCredentials(client, deps.db, deps.secretBox, `${baseUrl}/sandbox`);
if (seeded > 0) console.error(`demo companies: ${seeded} sandbox credential(s) sealed and saved`);
// The sandbox's books are in memory: it adopts what the database says it accepted or holds (./adopt.ts).
const adoption = await adoptSandboxDocuments(client, deps.db, adapterTax, `${baseUrl}/sandbox/adapter-tax`);
console.error(
  `sandbox: ${adoption.adopted} document(s) the database says it holds adopted` +
    (adoption.stamped > 0 ? `, ${adoption.stamped} stamped and recorded` : ""),
);
for (const skipped of adoption.skipped) console.error(`sandbox: not adopted: ${skipped}`);

const functionsRoot = `${baseUrl}/functions`;
// local.json is written before the server listens: whoever sees it answer can read it.
const local = await describeLocalRun(
  client,
  signer,
  baseUrl,
  { url: `${functionsRoot}/v1/${RECONCILE_FUNCTION}`, secret: reconcileSecret },
  dianDemo.local,
);
await writeFile(`${dataDir}/local.json`, `${JSON.stringify(local, null, 2)}\n`);
// the port was free at start; another process may have taken it since (a second npm start)
const server = (() => {
  try {
    return Deno.serve(
      { hostname: host, port, onListen: () => {} },
      createLocalRouter({
        functions: { [FUNCTION_NAME]: app.fetch, [RECONCILE_FUNCTION]: reconcileApp.fetch },
        jwks: () => signer.jwks,
        storage: download,
        rest: rest.handle,
        sandboxes,
        // Authorize filled in with the quick start's operador (and the apikey), as curl uses them
        docs: createDocsHandler(functionsRoot, {
          apikey: LOCAL_API_KEY,
          accessToken: curlUser(local)?.access_token ?? "",
        }),
        demoInvoice: createDemoInvoiceHandler({ client, verifyToken: deps.verifyToken }),
      }),
    );
  } catch (error) {
    const problem = error instanceof Deno.errors.AddrInUse ? checkAddress(host, port) : undefined;
    if (!problem) throw error;
    console.error(problem);
    Deno.exit(1);
  }
})();

console.error(
  `einvoicing listening on ${functionsRoot}/v1/${FUNCTION_NAME}  (details: ${dataDir}/local.json)`,
);
console.error(`API reference: ${baseUrl}/docs`);
console.error("Try it:");
console.log(printCurl(local));

// What pg_cron does on Supabase: a reconcile run every EINV_RECONCILE_INTERVAL_MS (60 s; 0: never).
const interval = Number(env.EINV_RECONCILE_INTERVAL_MS ?? 60_000);
const timer =
  interval > 0
    ? setInterval(async () => {
        const response = await Promise.resolve(
          reconcileApp.request(`${FUNCTIONS_PREFIX}/${RECONCILE_FUNCTION}`, {
            method: "POST",
            headers: { authorization: `Bearer ${reconcileSecret}` },
          }),
        ).catch((error: unknown) => Response.json({ error: String(error) }, { status: 500 }));
        const body = await response.json();
        if (!response.ok || body.picked > 0) console.error(`reconcile: ${JSON.stringify(body)}`);
      }, interval)
    : undefined;

/** Why the server could not listen on `hostname:port`, in words that say which variable to set. */
function checkAddress(hostname: string, port: number): string | undefined {
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    return `PORT must be a port number from 1 to 65535, not ${env.PORT}`;
  }
  try {
    Deno.listen({ hostname, port }).close();
    return undefined;
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) {
      return `port ${port} on ${hostname} is already in use (another npm start?): stop it, or set PORT to a free port, e.g. PORT=${port + 1} npm start`;
    }
    if (error instanceof Deno.errors.AddrNotAvailable || error instanceof Deno.errors.NotFound) {
      return `cannot listen on ${hostname}: HOST must be an address of this machine (the default is 127.0.0.1)`;
    }
    if (error instanceof Deno.errors.PermissionDenied) {
      return `no permission to listen on port ${port}: set PORT to a port above 1023`;
    }
    throw error;
  }
}

const shutdown = async () => {
  if (timer) clearInterval(timer);
  await server.shutdown();
  await client.close();
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", shutdown);
Deno.addSignalListener("SIGTERM", shutdown);
