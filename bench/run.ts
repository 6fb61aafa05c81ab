/**
 * `npm run bench`: the /transmit budgets of DESIGN §7, measured in one run under Deno. It drives the
 * real app in-process (`app.request`, a signed token, the `postgres` transport) with the sandbox
 * provider at the network edge, on a throwaway PostgreSQL 15 cluster (PGlite when the binaries are
 * missing, or with `--pglite`). A measurement, not a test: a missed budget is printed as MISS and the
 * exit code stays 0; only a broken run (an invoice not transmitted, a crash) exits 1.
 */
import { cpus } from "node:os";
import { createSandboxProvider } from "../sandbox/provider.ts";
import type { FetchLike } from "../shared/providers/tax-client.ts";
import { measureRenderTiming, measureWorstCase } from "../tests/pdf/render-timing.ts";
import { createTestApp, TEST_API_KEY, TEST_CREDENTIALS_KEY, type TestApp } from "../tests/support/app.ts";
import { saveCredential } from "../tests/support/credentials.ts";
import { createInvoice, createTenant, type Tenant } from "../tests/support/factories.ts";
import { measureColdStart } from "./cold-start.ts";
import { openBenchDatabase } from "./database.ts";
import { measurePhases } from "./phases.ts";
import { mean, median, pct } from "./stats.ts";

const BATCH = 50;
const LATENCY_MS = 200;
const MAX_RATIO = 1.15;
const C10_RUNS = 3;
const OVERHEAD = { warmup: 20, calls: 200, p50: 5, p99: 25 };
const RENDER = { lines: [20, 200], runs: 20, budget20: 40, worstBudget: 300 };
const CACHED = { warmup: 20, calls: 200, p50: 5 };

type Entry = { invoice_id: string; status: string; message: string };

async function main(): Promise<number> {
  const started = performance.now();
  const { db, label, stop } = await openBenchDatabase({ pglite: process.argv.includes("--pglite") });
  const onSignal = () => void stop().finally(() => process.exit(130));
  process.once("SIGINT", onSignal);
  try {
    const sandbox = createSandboxProvider();
    let providerMs = 0; // time spent inside the in-process sandbox, to split it out of the overhead
    const providerFetch: FetchLike = async (input, init) => {
      const t0 = performance.now();
      try {
        return await sandbox.fetch(input, init);
      } finally {
        providerMs += performance.now() - t0;
      }
    };
    const appFor = (c: number) =>
      createTestApp(db, {
        env: { EINV_TRANSMIT_CONCURRENCY: String(c) },
        providerFetch,
      });
    const [app10, app1] = [await appFor(10), await appFor(1)];
    const tenant: Tenant = await createTenant(db);
    await saveCredential(app10.deps, tenant);
    const tokens = new Map([
      [app10, await app10.token(tenant.operador)],
      [app1, await app1.token(tenant.operador)],
    ]);
    const freshIds = async (n: number) =>
      (await Promise.all(Array.from({ length: n }, () => createInvoice(db, tenant.org, tenant.company)))).map(
        (i) => i.id,
      );
    const transmit = async (t: TestApp, ids: string[]): Promise<{ ms: number; results: Entry[] }> => {
      const t0 = performance.now();
      const response = await t.post("/transmit", { org_id: tenant.org.id, invoice_ids: ids }, tokens.get(t));
      const body = (await response.json()) as { results?: Entry[] };
      const ms = performance.now() - t0;
      const bad = (body.results ?? []).filter((r) => r.status !== "transmitida");
      if (response.status !== 200 || bad.length > 0 || body.results?.length !== ids.length) {
        throw new Error(
          `transmit did not go through: HTTP ${response.status} ${JSON.stringify(bad[0] ?? body)}`,
        );
      }
      return { ms, results: body.results };
    };

    // warm both apps (JIT, key import, first connections) on an instant provider
    for (const t of [app10, app1]) await transmit(t, await freshIds(1));

    // 1. the batch budget: 50 invoices, latency L, the provider's limit = the service's concurrency
    const batch = async (t: TestApp, c: number) => {
      const ids = await freshIds(BATCH);
      sandbox.reset();
      sandbox.setKnobs({ latencyMs: LATENCY_MS, concurrencyLimit: c });
      const { ms } = await transmit(t, ids);
      const refused = sandbox.received.filter((r) => r.result !== "processed").length;
      return { ms, refused };
    };
    const c10: { ms: number; refused: number }[] = [];
    for (let i = 0; i < C10_RUNS; i++) c10.push(await batch(app10, 10));
    const c1 = await batch(app1, 1);

    // 2. service overhead: one invoice per call, provider answering instantly
    const ids = await freshIds(OVERHEAD.warmup + OVERHEAD.calls);
    sandbox.reset();
    const totals: number[] = [];
    const serviceOnly: number[] = [];
    for (const [i, id] of ids.entries()) {
      providerMs = 0;
      const { ms } = await transmit(app10, [id]);
      if (i < OVERHEAD.warmup) continue;
      totals.push(ms);
      serviceOnly.push(ms - providerMs);
    }

    // 3. PDFs: render time of stamped invoices (sequential, warm), and a representation answered
    //    from the stored file (cached: true) as a whole request
    const renders = await measureRenderTiming({ lines: RENDER.lines, runs: RENDER.runs });
    const worst = await measureWorstCase();
    const [cachedId] = await freshIds(1);
    const represent = async () => {
      const t0 = performance.now();
      const response = await app10.post(
        "/representation",
        { org_id: tenant.org.id, invoice_id: cachedId },
        tokens.get(app10),
      );
      const body = (await response.json()) as { cached?: boolean };
      return { ms: performance.now() - t0, cached: body.cached === true };
    };
    if ((await represent()).cached) throw new Error("the first representation cannot be cached");
    const cached: number[] = [];
    for (let i = 0; i < CACHED.warmup + CACHED.calls; i++) {
      const { ms, cached: hit } = await represent();
      if (!hit) throw new Error("a repeated representation was rendered again instead of cached");
      if (i >= CACHED.warmup) cached.push(ms);
    }

    // 4. cold start of the function entry against a bare Hono app (fresh processes)
    const cold = await measureColdStart({
      SUPABASE_URL: "http://127.0.0.1:9",
      SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: TEST_API_KEY }),
      SUPABASE_SECRET_KEYS: JSON.stringify({ default: "sb_secret_bench_unused" }),
      EINV_DB_TRANSPORT: "postgres",
      DATABASE_URL: "postgres://127.0.0.1:9/unused", // connected lazily: a preflight never needs it
      EINV_CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
      EINV_LOG_LEVEL: "silent",
    });

    // report
    const ideal = (c: number) => Math.ceil(BATCH / c) * LATENCY_MS;
    const medianC10 = median(c10.map((r) => r.ms));
    const rows: Row[] = [
      ratioRow(`transmit ${BATCH}, c=10, L=${LATENCY_MS} ms (median of ${C10_RUNS})`, medianC10, ideal(10)),
      ratioRow(`transmit ${BATCH}, c=1,  L=${LATENCY_MS} ms (1 run)`, c1.ms, ideal(1)),
      limitRow(`overhead p50, 1 invoice, L=0 (${OVERHEAD.calls} calls)`, pct(totals, 0.5), OVERHEAD.p50),
      limitRow(`overhead p99, 1 invoice, L=0 (${OVERHEAD.calls} calls)`, pct(totals, 0.99), OVERHEAD.p99),
      ...renders.map((r) =>
        r.lines === 20
          ? limitRow(`render ${r.lines}-line stamped PDF (median of ${r.runs})`, r.medianMs, RENDER.budget20)
          : infoRow(`render ${r.lines}-line stamped PDF (median of ${r.runs})`, r.medianMs),
      ),
      limitRow(
        `worst invoice the limits allow, refused at the render budget (median of ${worst.runs})`,
        worst.refusedMedianMs,
        RENDER.worstBudget,
      ),
      limitRow(
        `render 1,000-line stamped PDF, the largest ordinary (median of ${worst.runs})`,
        worst.largestMedianMs,
        RENDER.worstBudget,
      ),
      limitRow(`cached /representation p50 (${CACHED.calls} calls)`, pct(cached, 0.5), CACHED.p50),
      {
        what: "cold start, function vs bare Hono (median of 5)",
        measured: `${cold.functionMs.toFixed(0)} ms`,
        target: `≤ 1.3 × ${cold.bareMs.toFixed(0)} ms`,
        ratio: (cold.functionMs / cold.bareMs).toFixed(3),
        verdict: cold.functionMs <= 1.3 * cold.bareMs ? "PASS" : "MISS <<<",
      },
    ];
    const refused = [...c10, c1].reduce((n, r) => n + r.refused, 0);
    printTable(label, rows, [
      `c=10 runs: ${c10.map((r) => `${r.ms.toFixed(0)} ms`).join(", ")}; provider refusals (429 etc.): ${refused}`,
      `overhead without the in-process sandbox's own time: p50 ${pct(serviceOnly, 0.5).toFixed(2)} ms, ` +
        `p99 ${pct(serviceOnly, 0.99).toFixed(2)} ms; mean total ${mean(totals).toFixed(2)} ms`,
      `bench took ${((performance.now() - started) / 1000).toFixed(1)} s`,
    ]);
    return 0;
  } finally {
    process.off("SIGINT", onSignal);
    await stop();
  }
}

interface Row {
  what: string;
  measured: string;
  target: string;
  ratio: string;
  verdict: string;
}

function ratioRow(what: string, ms: number, idealMs: number): Row {
  const ratio = ms / idealMs;
  return {
    what,
    measured: `${ms.toFixed(0)} ms`,
    target: `ideal ${idealMs} ms`,
    ratio: `${ratio.toFixed(3)} (≤ ${MAX_RATIO})`,
    verdict: ratio <= MAX_RATIO ? "PASS" : "MISS <<<",
  };
}

function limitRow(what: string, ms: number, limitMs: number): Row {
  return {
    what,
    measured: `${ms.toFixed(2)} ms`,
    target: `≤ ${limitMs} ms`,
    ratio: (ms / limitMs).toFixed(3),
    verdict: ms <= limitMs ? "PASS" : "MISS <<<",
  };
}

function infoRow(what: string, ms: number): Row {
  return { what, measured: `${ms.toFixed(2)} ms`, target: "no budget", ratio: "", verdict: "PASS" };
}

function printTable(label: string, rows: Row[], notes: string[]): void {
  const head: Row = { what: "budget", measured: "measured", target: "target", ratio: "ratio", verdict: "" };
  const keys = Object.keys(head) as (keyof Row)[];
  const width = (k: keyof Row) => Math.max(...[head, ...rows].map((r) => r[k].length));
  const line = (r: Row) =>
    keys
      .map((k) => r[k].padEnd(width(k)))
      .join("  ")
      .trimEnd();
  const runtime = "Deno" in globalThis ? `Deno ${process.versions.deno}` : `Node ${process.version}`;
  console.log(`\nbudgets (DESIGN §7) — ${label}; ${runtime}; ${cpus().length} CPUs\n`);
  console.log(line(head));
  console.log("-".repeat(line(head).length + 8));
  for (const r of rows) console.log(line(r));
  console.log("");
  for (const note of notes) console.log(`  ${note}`);
  const missed = rows.filter((r) => r.verdict !== "PASS").length;
  console.log(
    missed
      ? `\n${missed} of ${rows.length} budgets MISSED (measurement only; exit 0)\n`
      : "\nall budgets met\n",
  );
}

const run = process.argv.includes("--phases")
  ? () => measurePhases({ pglite: process.argv.includes("--pglite") }).then(() => 0)
  : main;

run().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
