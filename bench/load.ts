/**
 * Load (DESIGN §7): autocannon, 64 connections for 30 s each, on loopback, against the local server
 * (scripts/local/serve.ts, the real function under Deno) on a throwaway PostgreSQL 15 cluster, with
 * its in-process sandbox answering instantly (SANDBOX_LATENCY_MS=0):
 *   - a bare Hono app on Deno answering a POST (the baseline, same run);
 *   - a cheap authenticated route: /representation of an invoice whose PDF is stored (cached);
 *   - /transmit of one pending invoice per request (a fresh one each time, seeded in SQL).
 * Budget for the cheap route: no errors, p99 ≤ 25 ms; the server's memory is sampled before and
 * after each run (flat means it does not grow with the requests served). Each run of the cheap
 * route and of bare Hono starts with 5 s of the same load that is not measured (autocannon's
 * warm-up), so the figures are the steady state, not the JIT compiling the first requests.
 *
 *   npm run bench -- --load [--duration=30] [--connections=64] [--json[=path]]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { freePort, spawnDeno } from "../tests/support/deno.ts";
import { findPostgresBinaries, startPostgresServer } from "../tests/support/postgres-server.ts";
import { type Figure, jsonPath, printFigures, writeFigures } from "./report.ts";

const P99_BUDGET_MS = 25;
const WARMUP_SECONDS = 5;
const TRANSMIT_INVOICES = 40_000;
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
  const connections = option(argv, "connections", 64);
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
  try {
    // the local server: migrates and seeds the database on start, writes local.json
    const port = await freePort();
    const local = spawnDeno(
      "scripts/local/serve.ts",
      {
        DATABASE_URL: databaseUrl,
        EINV_DATA_DIR: dataDir,
        SANDBOX_LATENCY_MS: "0",
        EINV_RECONCILE_INTERVAL_MS: "0",
        EINV_LOG_LEVEL: "warn",
      },
      port,
      "ignore",
    );
    children.push(local);
    const base = `http://127.0.0.1:${port}/functions/v1/einvoicing`;
    const state = await waitForLocalJson(join(dataDir, "local.json"), local);
    await waitForHttp(`${base}/transmit`);
    const operador = state.users.find((u) => u.role === "operador" && u.org_id === DEMO_ORG);
    const accepted = state.invoices.find((i) => i.org_id === DEMO_ORG && i.status === "transmitida");
    if (!operador || !accepted)
      throw new Error("the local server's demo data has no operador or transmitted invoice");
    const headers = {
      authorization: `Bearer ${operador.access_token}`,
      apikey: state.apikey,
      "content-type": "application/json",
    };

    // the cached representation: rendered once here, then answered from the stored file
    const representation = JSON.stringify({ org_id: DEMO_ORG, invoice_id: accepted.id });
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
    const ids = await seedPendingInvoices(db, TRANSMIT_INVOICES);
    await db.end();
    const idsFile = join(dataDir, "transmit-ids.txt");
    writeFileSync(idsFile, ids.join("\n"));

    // the bare Hono baseline, on Deno like the function
    const barePort = await freePort();
    const bare = spawnDeno("bench/bare-hono.ts", {}, barePort, "ignore");
    children.push(bare);
    await waitForHttp(`http://127.0.0.1:${barePort}/einvoicing/x`);

    const run = (spec: Record<string, unknown>) => autocannon({ connections, duration, headers, ...spec });
    // resident memory once the server has been idle a moment (its collector may run)
    const rss = async () => {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      return residentMiB(local.pid);
    };
    // the in-process sandbox keeps every document it received: forgotten between runs, so the
    // memory figures are the function's
    const resetSandbox = () =>
      fetch(`http://127.0.0.1:${port}/sandbox/adapter-tax/_sandbox/reset`, { method: "POST" }).then((r) =>
        r.text(),
      );
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
    const transmit = await run({ url: `${base}/transmit`, ids: idsFile, bodyObject: { org_id: DEMO_ORG } });
    await resetSandbox();
    const afterTransmit = await rss();
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
        note: `${cheapAgain.rps.toFixed(0)} req/s, ${cheapAgain.requests} requests`,
      },
      {
        id: "load.memory.growth",
        what: "server memory (RSS) growth over the second run of the cached route",
        value: afterAll - before,
        unit: "MiB",
        note: `RSS ${start.toFixed(0)} MiB at start → ${afterCheap.toFixed(0)} after the first run → ${afterCheapAgain.toFixed(0)} after the second → ${afterTransmit.toFixed(0)} after the transmits (sandbox emptied)`,
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
         buyer_city_code, subtotal, tax_total, total)
       select $1::uuid, $2::uuid, 'SETP' || (990100000 + n)::text, current_date, time with time zone '10:15:00-05',
              'COP', '31', (860000000 + n % 1000)::text,
              einv_private.nit_check_digit((860000000 + n % 1000)::text), 'Cliente Carga ' || n, 'carga' || n || '@cliente.test',
              'Avenida 68 # 1-' || n, '11001', 110000, 19000, 129000
         from generate_series(1, $3::int) n
       returning id, org_id)
     , lines as (
       insert into public.invoice_lines (invoice_id, org_id, position, code, description, quantity, unit_price,
         line_extension, tax_code, tax_rate, tax_amount)
       select m.id, m.org_id, l.position, l.code, l.description, l.quantity, l.unit_price, l.extension,
              l.tax_code, l.tax_rate, l.tax
         from made m cross join (values
           (1, 'SRV-01', 'Servicio de consultoría', 2, 50000, 100000, '01', 19, 19000),
           (2, 'LIB-07', 'Libro técnico (exento)', 1, 10000, 10000, 'ZZ', 0, 0)
         ) as l (position, code, description, quantity, unit_price, extension, tax_code, tax_rate, tax))
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
