/**
 * Load (DESIGN §7): autocannon, 64 connections for 30 s each, on loopback, against the local server
 * (scripts/local/serve.ts, the real function under Deno) on a throwaway PostgreSQL 15 cluster, with
 * a sandbox provider answering instantly in this process (not the server's: it keeps every document
 * it receives), saved as the demo company's adapter-tax credential:
 *   - a bare Hono app on Deno answering a POST (the baseline, same run);
 *   - a cheap authenticated route: /representation of an invoice whose PDF is stored (cached);
 *   - /transmit of one pending invoice per request (a fresh one each time, seeded in SQL): 2,000 as
 *     a warm-up, then 20,000 measured (`--transmissions=N`). The functions' heap (objects and
 *     ArrayBuffers, after a full collection, read through the server's inspector: ./inspector.ts)
 *     after the warm-up and after the run: the budget is 1.25× (DESIGN §7, a worker has 256 MB);
 *   - its floor: a bare Hono app on Deno making the same SQL round trips as /transmit of one invoice
 *     over a pool of the same size (./bare-hono-sql.ts, FLOOR=transmit), driven exactly as /transmit
 *     is (the same warm-up and number of requests); /transmit's req/s must be at least half of its.
 * Budget for the cheap route: no errors, p99 ≤ 25 ms; the server's memory is sampled before and
 * after each run (flat means it does not grow with the requests served). Each run of the cheap
 * route and of bare Hono starts with 5 s of the same load that is not measured (autocannon's
 * warm-up), so the figures are the steady state, not the JIT compiling the first requests.
 *
 *   npm run bench -- --load [--duration=30] [--connections=64] [--transmissions=20000] [--pool=N]
 *                           [--heap-snapshots=dir] [--json[=path]]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { freePort, spawnDeno } from "../devkit/deno.ts";
import { findPostgresBinaries, startPostgresServer } from "../devkit/postgres-server.ts";
import { createSandboxProvider } from "../sandbox/provider.ts";
import { type RunningSandbox, startSandboxServer } from "../sandbox/server.ts";
import { FLOOR_SETUP } from "./floor.ts";
import { type Inspector, openInspector } from "./inspector.ts";
import { type Figure, jsonPath, printFigures, writeFigures } from "./report.ts";

/**
 * The cheap route's p99 under load, absolute: bare Hono's p99 beside it is 1–3 ms in whole
 * milliseconds (autocannon's histogram), so a ratio to it would jump by half or double on one
 * millisecond of rounding; against ~17–24 ms measured, 25 ms says more.
 */
const P99_BUDGET_MS = 25;
const WARMUP_SECONDS = 5;
/** The measured /transmit run, in requests of one fresh invoice each (`--transmissions=N`). */
const TRANSMISSIONS = 20_000;
/** /transmit requests before the heap's warm figure. */
const TRANSMIT_WARMUP = 2_000;
/** DESIGN §7: the heap after the transmissions at most this × the heap after the warm-up. */
const HEAP_GROWTH_BUDGET = 1.25;
/** /transmit's req/s at least this fraction of its floor's, in the same run (issue 39). */
const TRANSMIT_FRACTION_BUDGET = 0.5;
/**
 * The local server's pool for its `postgres` transport: scripts/local/serve.ts's default (a
 * connection for each core but the one its JavaScript runs on), set explicitly so that the floor's
 * pool is the same size.
 */
const DEFAULT_POOL_SIZE = Math.max(1, (navigator.hardwareConcurrency ?? 2) - 1);
const MIB = 1024 * 1024;
const DEMO_ORG = "11111111-1111-4111-8111-111111111111";
const DEMO_COMPANY = "c1111111-1111-4111-8111-111111111111";

interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, { count: number }>;
}

const option = (argv: string[], name: string, fallback: number) =>
  Number(argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);

export async function measureLoad(argv: string[]): Promise<Figure[]> {
  const duration = option(argv, "duration", 30);
  // `--pool=N`: both pools another size (EINV_DB_POOL_SIZE), to see what the default leaves
  const poolSize = option(argv, "pool", DEFAULT_POOL_SIZE);
  const connections = option(argv, "connections", 64);
  const transmissions = option(argv, "transmissions", TRANSMISSIONS);
  const snapshots = argv.find((a) => a.startsWith("--heap-snapshots="))?.split("=")[1];
  const bindir = await findPostgresBinaries();
  if (!bindir) {
    console.log("\nload: skipped — it needs PostgreSQL 15's server binaries (postgresql-15)\n");
    return [];
  }
  const server = await startPostgresServer(bindir);
  const admin = postgres(server.adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe("create database load");
  const databaseUrl = server.adminUrl.replace(/\/postgres$/, "/load");
  const dataDir = mkdtempSync(join(tmpdir(), "einv-load-"));
  const children: ChildProcess[] = [];
  let inspector: Inspector | undefined;
  let sandbox: RunningSandbox | undefined;
  try {
    // the local server: migrates and seeds the database on start, writes local.json; its inspector
    // is how the bench reads the functions' heap (./inspector.ts)
    const port = await freePort();
    const inspectorPort = await freePort();
    const local = spawnDeno(
      "scripts/local/serve.ts",
      {
        DATABASE_URL: databaseUrl,
        EINV_DATA_DIR: dataDir,
        SANDBOX_LATENCY_MS: "0",
        EINV_RECONCILE_INTERVAL_MS: "0",
        EINV_LOG_LEVEL: "warn",
        EINV_DB_POOL_SIZE: String(poolSize),
      },
      port,
      "ignore",
      [`--inspect=127.0.0.1:${inspectorPort}`],
    );
    children.push(local);
    const base = `http://127.0.0.1:${port}/functions/v1/einvoicing`;
    const state = await waitForLocalJson(join(dataDir, "local.json"), local);
    await waitForHttp(`${base}/transmit`);
    inspector = await openInspector(inspectorPort);
    const operador = state.users.find((u) => u.role === "operador" && u.org_id === DEMO_ORG);
    const admin = state.users.find((u) => u.role === "admin" && u.org_id === DEMO_ORG);
    const draft = state.invoices.find((i) => i.org_id === DEMO_ORG && i.status === "pendiente");
    const company = state.companies.find((c) => c.id === DEMO_COMPANY);
    if (!operador || !admin || !draft || !company)
      throw new Error("the local server's demo data has no operador, admin, company or pending invoice");
    const headers = {
      authorization: `Bearer ${operador.access_token}`,
      apikey: state.apikey,
      "content-type": "application/json",
    };

    // The provider: a sandbox in this process, not the server's (which keeps every document it
    // receives), saved as the demo company's adapter-tax credential: the server's heap is then the
    // functions' own.
    sandbox = await startSandboxServer(createSandboxProvider(), { port: 0 });
    const save = await fetch(`${base}/integrations/save`, {
      method: "POST",
      headers: { ...headers, authorization: `Bearer ${admin.access_token}` },
      body: JSON.stringify({
        org_id: DEMO_ORG,
        company_id: company.id,
        service: "adapter-tax",
        environment: company.active_environment,
        api_key: state.sandbox.api_key,
        url: `${sandbox.url}/adapter-tax`,
      }),
    });
    if (save.status !== 200) throw new Error(`could not save the load's provider: ${await save.text()}`);

    // the cached representation of an invoice this sandbox accepted (it hands over its XML, so the
    // stored record is complete): rendered once here, then answered from the stored file
    const sent = await fetch(`${base}/transmit`, {
      method: "POST",
      headers,
      body: JSON.stringify({ org_id: DEMO_ORG, invoice_ids: [draft.id] }),
    });
    const [result] = ((await sent.json()) as { results?: { status: string }[] }).results ?? [];
    if (result?.status !== "transmitida")
      throw new Error(`the load's invoice was not accepted: ${result?.status}`);
    const representation = JSON.stringify({ org_id: DEMO_ORG, invoice_id: draft.id });
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${base}/representation`, {
        method: "POST",
        headers,
        body: representation,
      });
      const body = (await response.json()) as { cached?: boolean };
      if (response.status !== 200) throw new Error(`/representation answered ${response.status}`);
      if (i === 1 && body.cached !== true) throw new Error("the second /representation was not cached");
    }

    // pending invoices for /transmit, valid for the demo company's numbering range
    const db = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    const ids = await seedPendingInvoices(db, TRANSMIT_WARMUP + transmissions);
    await db.unsafe(FLOOR_SETUP).simple();
    await db.end();
    const idsFile = (name: string, list: string[]) => {
      const path = join(dataDir, name);
      writeFileSync(path, list.join("\n"));
      return path;
    };
    const warmIds = idsFile("transmit-warmup-ids.txt", ids.slice(0, TRANSMIT_WARMUP));
    const loadIds = idsFile("transmit-ids.txt", ids.slice(TRANSMIT_WARMUP));

    // the bare Hono baseline, on Deno like the function
    const barePort = await freePort();
    const bare = spawnDeno("bench/bare-hono.ts", {}, barePort, "ignore");
    children.push(bare);
    await waitForHttp(`http://127.0.0.1:${barePort}/einvoicing/x`);
    // /transmit's floor: the same round trips in a bare handler, on a pool of the same size
    const floorPort = await freePort();
    const floorServer = spawnDeno(
      "bench/bare-hono-sql.ts",
      { FLOOR: "transmit", DATABASE_URL: databaseUrl, EINV_DB_POOL_SIZE: String(poolSize) },
      floorPort,
      "ignore",
    );
    children.push(floorServer);
    await waitForHttp(`http://127.0.0.1:${floorPort}/einvoicing/transmit`);

    const run = (spec: Record<string, unknown>) => autocannon({ connections, duration, headers, ...spec });
    // resident memory once the server has been idle a moment (its collector may run)
    const rss = async () => {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      return residentMiB(local.pid);
    };
    // the functions' heap after a full collection, in MiB: objects and ArrayBuffers' backing stores
    // (./inspector.ts); a snapshot too with --heap-snapshots=dir (compare with ./heap-snapshot.ts)
    // at once when a run ends: what a request leaves behind for a while (a timer's) is counted too
    const heap = async (moment: string) => {
      if (!inspector) throw new Error("no inspector");
      const { objects, buffers } = await inspector.heapAfterGc();
      if (snapshots) {
        mkdirSync(snapshots, { recursive: true });
        await inspector.snapshot(join(snapshots, `${moment}.heapsnapshot`));
      }
      return { total: (objects + buffers) / MIB, buffers: buffers / MIB };
    };
    // the highest heap seen during a run, garbage included, sampled every 500 ms
    const peakDuring = async <T>(work: Promise<T>): Promise<[T, number]> => {
      let peak = 0;
      let done = false;
      const sampling = (async () => {
        while (!done) {
          const now = await inspector?.heapNow();
          if (now) peak = Math.max(peak, (now.objects + now.buffers) / MIB);
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      })();
      try {
        return [await work, peak];
      } finally {
        done = true;
        await sampling;
      }
    };
    const mib = (h: { total: number; buffers: number }) =>
      `${h.total.toFixed(1)} MiB (${h.buffers.toFixed(1)} of it ArrayBuffers)`;
    const warmup = { connections, duration: WARMUP_SECONDS };
    const bareResult = await autocannon({
      connections,
      duration,
      warmup,
      url: `http://127.0.0.1:${barePort}/einvoicing/x`,
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    const start = await rss();
    const cheap = await run({ url: `${base}/representation`, body: representation, warmup });
    const afterCheap = await rss();
    // the same run again: a flat memory stays where the first one left it
    const cheapAgain = await run({ url: `${base}/representation`, body: representation, warmup });
    const afterCheapAgain = await rss();
    // /transmit: a warm-up (JIT, the transmit path's modules, the provider's connections), then the
    // measured run, each a fixed number of fresh invoices
    const transmitRun = (file: string, amount: number, url = `${base}/transmit`) =>
      run({ url, ids: file, bodyObject: { org_id: DEMO_ORG }, amount });
    const heapStart = await heap("start");
    const warmTransmit = await transmitRun(warmIds, TRANSMIT_WARMUP);
    const heapWarm = await heap("warm");
    const [transmit, heapPeak] = await peakDuring(transmitRun(loadIds, transmissions));
    const heapAfter = await heap("after");
    const afterTransmit = await rss();
    // the floor, driven as /transmit was: the same warm-up, then the same number of requests
    const floorUrl = `http://127.0.0.1:${floorPort}/einvoicing/transmit`;
    await transmitRun(warmIds, TRANSMIT_WARMUP, floorUrl);
    const floor = await transmitRun(loadIds, transmissions, floorUrl);
    const before = afterCheap;
    const afterAll = afterCheapAgain;
    const errors = (r: LoadResult) => r.errors + r.timeouts + r.non2xx;
    const figures: Figure[] = [
      {
        id: "load.bare.rps",
        what: "bare Hono on Deno, POST: requests/s",
        value: bareResult.rps,
        unit: "req/s",
      },
      {
        id: "load.representation.rps",
        what: "cached /representation: requests/s",
        value: cheap.rps,
        unit: "req/s",
        note: `${cheap.requests} requests, p50 ${cheap.p50} ms, max ${cheap.max} ms; bare Hono p99 ${bareResult.p99} ms`,
      },
      {
        id: "load.representation.p99",
        what: `cached /representation: p99 (${connections} connections, ${duration} s after ${WARMUP_SECONDS} s)`,
        value: cheap.p99,
        unit: "ms",
        max: P99_BUDGET_MS,
        floor: bareResult.p99,
      },
      {
        id: "load.representation.errors",
        what: "cached /representation: errors, timeouts and non-2xx",
        value: errors(cheap) + errors(cheapAgain),
        unit: "req/s",
        max: 0,
        note: "a count, not a rate",
      },
      {
        id: "load.transmit.rps",
        what: "/transmit of 1, instant provider: requests/s",
        value: transmit.rps,
        unit: "req/s",
        note: `${transmit.requests} invoices, p50 ${transmit.p50} ms, p99 ${transmit.p99} ms, errors ${errors(transmit)}`,
      },
      {
        id: "load.transmit_floor.rps",
        what: `/transmit's floor: bare Hono making its two SQL round trips: requests/s`,
        value: floor.rps,
        unit: "req/s",
        note: `${floor.requests} requests, p50 ${floor.p50} ms, p99 ${floor.p99} ms, errors ${errors(floor)}; a pool of ${poolSize} as the server's`,
      },
      {
        id: "load.transmit.fraction",
        what: "/transmit's requests/s ÷ its floor's",
        value: transmit.rps / floor.rps,
        unit: "ratio",
        min: TRANSMIT_FRACTION_BUDGET,
        note: `${transmit.rps.toFixed(0)} vs ${floor.rps.toFixed(0)} req/s`,
      },
      {
        id: "load.transmit.errors",
        what: "/transmit: errors, timeouts and non-2xx",
        value: errors(transmit),
        unit: "req/s",
        max: 0,
        note: "a count, not a rate",
      },
      {
        id: "load.representation.again.p99",
        what: "cached /representation, a second run: p99",
        value: cheapAgain.p99,
        unit: "ms",
        max: P99_BUDGET_MS,
        floor: bareResult.p99,
        note: `${cheapAgain.rps.toFixed(0)} req/s, ${cheapAgain.requests} requests`,
      },
      {
        id: "load.memory.growth",
        what: "server memory (RSS) growth over the second run of the cached route",
        value: afterAll - before,
        unit: "MiB",
        note: `RSS ${start.toFixed(0)} MiB at start → ${afterCheap.toFixed(0)} after the first run → ${afterCheapAgain.toFixed(0)} after the second → ${afterTransmit.toFixed(0)} after the transmits (the sandbox in the bench's process)`,
      },
      {
        id: "load.heap.transmit",
        what: `functions' heap after ${transmissions.toLocaleString("en")} transmissions ÷ after the warm-up`,
        value: heapAfter.total / heapWarm.total,
        unit: "ratio",
        max: HEAP_GROWTH_BUDGET,
        note: `used after a full collection: ${mib(heapStart)} before any /transmit → ${mib(heapWarm)} after the warm-up (${TRANSMIT_WARMUP.toLocaleString("en")}) → ${mib(heapAfter)} after the run; at most ${heapPeak.toFixed(0)} MiB during it, garbage included (sampled)`,
      },
      {
        id: "load.heap.after_transmit",
        what: `functions' heap after ${transmissions.toLocaleString("en")} transmissions (used, after a full GC)`,
        value: heapAfter.total,
        unit: "MiB",
        note: `warm-up /transmit: ${warmTransmit.requests} requests, errors ${errors(warmTransmit)}`,
      },
    ];
    printFigures(
      `load (DESIGN §7) — autocannon, ${connections} connections × ${duration} s, local server on PostgreSQL ${server.version}`,
      figures,
      ["req/s and latencies are autocannon's: the load generator shares the machine's cores with the server"],
    );
    const path = jsonPath(argv, "reports/bench/load.json");
    if (path) writeFigures(path, "load", `PostgreSQL ${server.version}`, figures);
    return figures;
  } finally {
    inspector?.close();
    await sandbox?.close();
    for (const child of children) child.kill("SIGKILL");
    await admin.end({ timeout: 5 }).catch(() => {});
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `count` pending invoices of the demo company (two lines each, numbers in its range), their ids. */
async function seedPendingInvoices(db: postgres.Sql, count: number): Promise<string[]> {
  const rows = await db.unsafe(
    `with made as (
       insert into public.invoices (org_id, company_id, number, issue_date, issue_time, currency,
         buyer_id_type, buyer_id_number, buyer_check_digit, buyer_name, buyer_email, buyer_address,
         buyer_city_code)
       select $1::uuid, $2::uuid, 'SETP' || (990100000 + n)::text, current_date, time with time zone '10:15:00-05',
              'COP', '31', (860000000 + n % 1000)::text,
              einv_private.nit_check_digit((860000000 + n % 1000)::text), 'Cliente Carga ' || n, 'carga' || n || '@cliente.test',
              'Avenida 68 # 1-' || n, '11001'
         from generate_series(1, $3::int) n
       returning id, org_id)
     , lines as (
       insert into public.invoice_lines (invoice_id, org_id, position, code, description, quantity, unit_price,
         taxes)
       select m.id, m.org_id, l.position, l.code, l.description, l.quantity, l.unit_price, l.taxes::jsonb
         from made m cross join (values
           (1, 'SRV-01', 'Servicio de consultoría', 2, 50000, '[{"code": "01", "percent": 19}]'),
           (2, 'LIB-07', 'Libro técnico (exento)', 1, 10000, '[{"code": "01", "percent": 0}]')
         ) as l (position, code, description, quantity, unit_price, taxes))
     select id from made`,
    [DEMO_ORG, DEMO_COMPANY, count],
  );
  await db.unsafe("analyze public.invoices; analyze public.invoice_lines");
  return rows.map((r) => r.id as string);
}

async function autocannon(spec: Record<string, unknown>): Promise<LoadResult> {
  const child = spawn("node", ["bench/load-client.mjs", JSON.stringify(spec)]);
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk) => (out += chunk));
  child.stderr?.on("data", (chunk) => (err += chunk));
  const code = await new Promise((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`autocannon exited with ${code}: ${err.slice(-500)}`);
  return JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as LoadResult;
}

type LocalJson = {
  apikey: string;
  companies: { id: string; org_id: string; active_environment: string }[];
  sandbox: { api_key: string };
  users: { role: string; org_id: string; access_token: string }[];
  invoices: { id: string; org_id: string; status: string }[];
};

async function waitForLocalJson(path: string, child: ChildProcess): Promise<LocalJson> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the local server exited with ${child.exitCode}`);
    try {
      return JSON.parse(readFileSync(path, "utf8")) as LocalJson;
    } catch {
      if (Date.now() > deadline) throw new Error("the local server did not write local.json in 120 s");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

async function waitForHttp(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await (await fetch(url, { method: "POST", body: "{}" })).text();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${url} did not answer in 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Resident memory of a process, from /proc (Linux); NaN elsewhere. */
function residentMiB(pid: number | undefined): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? Number(kb) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
