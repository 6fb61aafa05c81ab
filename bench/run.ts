/**
 * `npm run bench`: the budgets of DESIGN §7, measured in one run under Deno. It drives the real app
 * in-process (`app.request`, a signed token, the `postgres` transport) with the sandbox provider at
 * the network edge, on a throwaway PostgreSQL 15 cluster (PGlite when the binaries are missing, or
 * with `--pglite`). A measurement, not a test: a missed budget is printed as MISS and the exit code
 * stays 0; only a broken run (an invoice not transmitted, a crash) exits 1.
 *
 *   npm run bench                     every budget (about a minute), then the load run (./load.ts)
 *   npm run bench -- --no-load        the budgets without the load run
 *   npm run bench -- --load           the load run alone
 *   npm run bench -- --scale          cost as one organization grows to 1,000,000 invoices (./scale.ts)
 *   npm run bench -- --events         the events' figures alone: the outbox on /transmit, a drain (./events.ts)
 *   npm run bench -- --pkcs12         the costliest certificate file the PKCS#12 rules accept (./pkcs12-timing.ts)
 *   npm run bench -- --events-scale   the outbox's costs as it grows to 1,000,000 events (./events-scale.ts)
 *   npm run bench -- --phases         where a request's time goes (./phases.ts)
 *   npm run bench -- --json[=path]    also writes the figures as JSON (default reports/bench/*.json)
 *   npm run bench -- --load --transmissions=N --heap-snapshots=dir
 *                                     the load run with N measured transmissions (20,000), writing heap
 *                                     snapshots (compare them with ./heap-snapshot.ts)
 *
 * "Service time" is a request's wall time minus the time spent inside the in-process sandbox
 * provider, which stands for a provider answering instantly; its floor is a bare Hono handler making
 * one SQL round trip to the same server, measured interleaved with it, and its budgets are ratios to
 * that floor (issue 39: the same meaning on a laptop and on a CI machine; the milliseconds are
 * reported beside them). Beside it, without a budget, a bare handler making /transmit's two round
 * trips in the transport's shape (./floor.ts). Figures with no floor keep absolute budgets.
 */
import { Hono } from "hono";
import { createTestApp, TEST_API_KEY, TEST_CREDENTIALS_KEY, type TestApp } from "../devkit/app.ts";
import { saveCredential } from "../devkit/credentials.ts";
import { createInvoice, createTenant, type Tenant } from "../devkit/factories.ts";
import { createReconcileApp } from "../functions/reconcile/app.ts";
import { createSandboxProvider } from "../sandbox/provider.ts";
import { RememberedFingerprints } from "../shared/core/documents/remembered-fingerprints.ts";
import type { FetchLike } from "../shared/providers/tax/client.ts";
import { measureColdStart, measureFirstCall, measureImports } from "./cold-start.ts";
import { openBenchDatabase } from "./database.ts";
import { measureAttachedDocument, measureDianEnvelope, measureDianSigning } from "./dian-timing.ts";
import { measureEvents } from "./events.ts";
import { measureEventScale } from "./events-scale.ts";
import { FLOOR_SETUP, transmitRoundTrips } from "./floor.ts";
import { measureLoad } from "./load.ts";
import { measurePhases } from "./phases.ts";
import { describeTimings, measurePkcs12, PKCS12_CPU_BUDGET_MS, type Pkcs12Timing } from "./pkcs12-timing.ts";
import { measureRenderHeap } from "./render-heap.ts";
import { measureRenderTiming, measureWorstCase } from "./render-timing.ts";
import { type Figure, jsonPath, printFigures, writeFigures } from "./report.ts";
import { measureScale } from "./scale.ts";
import { median, pct } from "./stats.ts";

const BATCH = 50;
const LATENCY_MS = 200;
const C10_RUNS = 3;
/** Service time ÷ the floor's, at p50 and at p99. */
const OVERHEAD = { warmup: 30, calls: 300, p50: 3, p99: 5 };
const DIAN = { lines: 20, runs: 50, budget: 25 };
const RENDER = { lines: [20, 200], runs: 20, budget20: 15, worstBudget: 300, heapBudgetMiB: 128 };
/** Service time p50 ÷ the floor's: the document's record cached, and read whole. */
const CACHED = { warmup: 30, calls: 300, p50: 3, wholeP50: 4 };
/** A cold worker's first authenticated call ÷ a fresh bare Hono app's first POST with one round trip. */
const FIRST_CALL_RATIO = 1.5;
const CREDIT_NOTES = { sequential: 40, concurrent: 40, concurrency: 8 };
const RECONCILE = { documents: 300, batch: 25 };
const RECONCILE_SECRET = "bench-reconcile-secret-0123456789abcdef";

type Entry = { invoice_id: string; status: string; message: string };

/**
 * The least /transmit of one invoice can cost while it keeps its guarantees, from figures of the
 * same run: its two round trips, each a write (the claim before the provider is called, the record
 * after: exactly-once needs both durable), as the floor makes them, plus what each of those writes
 * costs the database beyond the floor's own, being the invoice's status change with its checks,
 * indexes and the outbox written in the same transaction (./events.ts). No lock, payload, audit
 * row, idempotency or JavaScript counted: whatever /transmit does is above it. Reported beside the
 * p50 budget, which it shows to be out of reach while the guarantees stay (issue 39).
 */
function guaranteesBound(twoTripsP50: number, floorP50: number, events: Figure[]): Figure {
  const change = events.find((f) => f.id === "events.status_change.sql");
  const extra = change?.floor === undefined ? Number.NaN : 2 * (change.value - change.floor);
  return {
    id: "overhead.guarantees_bound",
    what: "/transmit's lower bound keeping its guarantees: the two-round-trip floor + two status changes' SQL beyond the floor's writes",
    value: twoTripsP50 + extra,
    unit: "ms",
    floor: floorP50,
    note: `${twoTripsP50.toFixed(2)} ms + 2 × ${((change?.value ?? Number.NaN) - (change?.floor ?? Number.NaN)).toFixed(3)} ms, reported without a budget; ${OVERHEAD.p50}× the floor is ${(OVERHEAD.p50 * floorP50).toFixed(2)} ms`,
  };
}

async function budgets(argv: string[]): Promise<Figure[]> {
  const started = performance.now();
  const { db, label, stop } = await openBenchDatabase({ pglite: argv.includes("--pglite") });
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
        env: {
          EINV_TRANSMIT_CONCURRENCY: String(c),
          EINV_LOG_LEVEL: "warn",
          EINV_RECONCILE_SECRET: RECONCILE_SECRET,
          EINV_RECONCILE_GRACE_SECONDS: "0",
          EINV_RECONCILE_BATCH: String(RECONCILE.batch),
        },
        providerFetch,
        // the service's own time: no test harness (debug log kept, answers checked on the contract)
        measuring: true,
      });
    const [app10, app1] = [await appFor(10), await appFor(1)];
    const tenant: Tenant = await createTenant(db);
    await saveCredential(app10.deps, tenant);
    const tokens = new Map([
      [app10, await app10.token(tenant.operador)],
      [app1, await app1.token(tenant.operador)],
    ]);
    const freshIds = async (n: number) => {
      const ids: string[] = [];
      // a few at a time: the pool has five connections
      for (let i = 0; i < n; i += 5) {
        const made = await Promise.all(
          Array.from({ length: Math.min(5, n - i) }, () => createInvoice(db, tenant.org, tenant.company)),
        );
        ids.push(...made.map((m) => m.id));
      }
      return ids;
    };
    const timed = async (t: TestApp, path: string, body: unknown) => {
      providerMs = 0;
      const t0 = performance.now();
      const response = await t.post(path, body, tokens.get(t));
      const json = (await response.json()) as Record<string, unknown>;
      const ms = performance.now() - t0;
      if (response.status !== 200)
        throw new Error(`${path}: HTTP ${response.status} ${JSON.stringify(json)}`);
      return { ms, service: ms - providerMs, json };
    };
    const transmit = async (t: TestApp, ids: string[]) => {
      const r = await timed(t, "/transmit", { org_id: tenant.org.id, invoice_ids: ids });
      const results = (r.json.results ?? []) as Entry[];
      const bad = results.filter((e) => e.status !== "transmitida");
      if (bad.length > 0 || results.length !== ids.length) {
        throw new Error(`transmit did not go through: ${JSON.stringify(bad[0] ?? r.json)}`);
      }
      return r;
    };
    // the floor: a bare Hono handler making one SQL round trip to the same server, in-process too;
    // and one making /transmit's two round trips in the transport's shape (reported, no budget)
    await db.client.exec(FLOOR_SETUP);
    const roundTrips = transmitRoundTrips((statements) => db.client.script(statements));
    const bare = new Hono()
      .post("/floor", async (c) => c.json(await db.client.script("select 1 as one")))
      .post("/transmit-floor", async (c) => {
        await roundTrips();
        return c.json({ ok: true });
      });
    const floorCall = async (path = "/floor") => {
      const t0 = performance.now();
      await (await bare.request(path, { method: "POST" })).json();
      return performance.now() - t0;
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
      sandbox.reset();
      return { ms, refused };
    };
    const c10: { ms: number; refused: number }[] = [];
    for (let i = 0; i < C10_RUNS; i++) c10.push(await batch(app10, 10));
    const c1 = await batch(app1, 1);
    const ideal = (c: number) => Math.ceil(BATCH / c) * LATENCY_MS;

    // 2. service overhead: one invoice per call, provider answering instantly; the floor interleaved
    const ids = await freshIds(OVERHEAD.warmup + OVERHEAD.calls);
    const service: number[] = [];
    const totals: number[] = [];
    const floor: number[] = [];
    const twoTrips: number[] = [];
    for (const [i, id] of ids.entries()) {
      const f = await floorCall();
      const f2 = await floorCall("/transmit-floor");
      const r = await transmit(app10, [id]);
      if (i < OVERHEAD.warmup) continue;
      floor.push(f);
      twoTrips.push(f2);
      service.push(r.service);
      totals.push(r.ms);
    }

    // 3. PDFs: render time of stamped invoices (sequential, warm), and a representation answered
    //    from the stored file (cached: true) as a whole request
    const renders = await measureRenderTiming({ lines: RENDER.lines, runs: RENDER.runs });
    // 3b. DIAN mode: build and sign an invoice (UBL 2.1, XAdES-EPES), the certificate opened once
    const dian = await measureDianSigning(DIAN.lines, DIAN.runs);
    const dianEnvelope = await measureDianEnvelope(DIAN.lines, DIAN.runs);
    const attached = await measureAttachedDocument(DIAN.lines, DIAN.runs);
    const worst = await measureWorstCase();
    const pkcs12 = await measurePkcs12();
    const renderHeap = await measureRenderHeap(1000);
    const [cachedId] = await freshIds(1);
    const represent = () =>
      timed(app10, "/representation", { org_id: tenant.org.id, invoice_id: cachedId }).then((r) => ({
        ...r,
        cached: r.json.cached === true,
      }));
    if ((await represent()).cached) throw new Error("the first representation cannot be cached");
    const cached: number[] = [];
    const cachedFloor: number[] = [];
    // the same, with nothing remembered: the document read whole and fingerprinted again, as the
    // first call for a document in a process (or after a write to it) is answered
    const wholeRead: number[] = [];
    for (let i = 0; i < CACHED.warmup + CACHED.calls; i++) {
      const f = await floorCall();
      const r = await represent();
      app10.deps.pdfFingerprints = new RememberedFingerprints();
      const whole = await represent();
      if (!r.cached || !whole.cached) {
        throw new Error("a repeated representation was rendered again instead of cached");
      }
      if (i >= CACHED.warmup) {
        cached.push(r.service);
        cachedFloor.push(f);
        wholeRead.push(whole.service);
      }
    }

    // 4. credit notes: issued one after the other, then CREDIT_NOTES.concurrency at a time, each for
    //    a transmitted invoice, provider answering instantly
    const forNotes = await freshIds(CREDIT_NOTES.sequential + CREDIT_NOTES.concurrent);
    for (let i = 0; i < forNotes.length; i += BATCH) await transmit(app10, forNotes.slice(i, i + BATCH));
    const issue = (invoiceId: string) =>
      timed(app10, "/credit-notes", {
        org_id: tenant.org.id,
        invoice_id: invoiceId,
        concept_code: "2",
        reason: "Anulación (bench)",
      }).then((r) => {
        if (r.json.status !== "emitida") throw new Error(`credit note not issued: ${JSON.stringify(r.json)}`);
        return r;
      });
    const noteTimes: number[] = [];
    for (const id of forNotes.slice(0, CREDIT_NOTES.sequential)) noteTimes.push((await issue(id)).service);
    const concurrentIds = forNotes.slice(CREDIT_NOTES.sequential);
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CREDIT_NOTES.concurrency }, async () => {
        while (next < concurrentIds.length) await issue(concurrentIds[next++] as string);
      }),
    );
    const notesPerSecond = concurrentIds.length / ((performance.now() - t0) / 1000);

    // 5. reconcile: documents left en_proceso (never received by the provider: each is queried,
    //    then recorded as error), settled by runs of the reconcile function until none is left
    for (let i = 0; i < RECONCILE.documents; i += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, RECONCILE.documents - i) }, () =>
          createInvoice(db, tenant.org, tenant.company, { status: "en_proceso" }),
        ),
      );
    }
    const reconcileApp = createReconcileApp(app10.deps);
    let settled = 0;
    let runs = 0;
    const r0 = performance.now();
    for (;;) {
      const response = await reconcileApp.request("/reconcile", {
        method: "POST",
        headers: { authorization: `Bearer ${RECONCILE_SECRET}` },
      });
      const body = (await response.json()) as { settled?: number; picked?: number };
      if (response.status !== 200)
        throw new Error(`reconcile: HTTP ${response.status} ${JSON.stringify(body)}`);
      runs++;
      settled += body.settled ?? 0;
      if (!body.picked) break;
    }
    const reconcileSeconds = (performance.now() - r0) / 1000;
    if (settled < RECONCILE.documents)
      throw new Error(`reconcile settled ${settled} of ${RECONCILE.documents}`);

    // 5b. events: what the outbox adds to /transmit, and a drain of 1,000 webhook messages
    const events = await measureEvents(db);

    // 6. cold start of the function entry against a bare Hono app (fresh processes)
    const entryEnv = {
      SUPABASE_URL: "http://127.0.0.1:9",
      SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: TEST_API_KEY }),
      SUPABASE_SECRET_KEYS: JSON.stringify({ default: "sb_secret_bench_unused" }),
      EINV_DB_TRANSPORT: "postgres",
      DATABASE_URL: db.url ?? "postgres://127.0.0.1:9/unused",
      EINV_CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
      EINV_LOG_LEVEL: "silent",
    };
    const cold = await measureColdStart(entryEnv);
    const firstCall = db.url
      ? await measureFirstCall(
          {
            ...entryEnv,
            SUPABASE_JWKS: JSON.stringify(app10.signer.jwks),
            JWT_ISSUER: "http://supabase.test/auth/v1",
          },
          {
            path: "/einvoicing/representation",
            headers: {
              apikey: TEST_API_KEY,
              authorization: `Bearer ${tokens.get(app10)}`,
              "content-type": "application/json",
            },
            body: JSON.stringify({ org_id: tenant.org.id, invoice_id: cachedId }),
          },
          db.url,
        )
      : undefined;
    const imports = await measureImports();

    const figures: Figure[] = [
      ratioFigure(
        "transmit50.c10",
        `/transmit of ${BATCH}, L = ${LATENCY_MS} ms, c = 10 (median of ${C10_RUNS})`,
        median(c10.map((r) => r.ms)),
        ideal(10),
      ),
      ratioFigure("transmit50.c1", `/transmit of ${BATCH}, L = ${LATENCY_MS} ms, c = 1`, c1.ms, ideal(1)),
      {
        id: "overhead.p50",
        what: `/transmit of 1, instant provider: service time p50 (${OVERHEAD.calls} calls)`,
        value: pct(service, 0.5),
        unit: "ms",
        maxRatio: OVERHEAD.p50,
        floor: pct(floor, 0.5),
        note: `wall time with the sandbox's own time p50 ${pct(totals, 0.5).toFixed(2)} ms; floor: bare Hono + one SQL round trip, interleaved`,
      },
      {
        id: "overhead.p99",
        what: "/transmit of 1, instant provider: service time p99",
        value: pct(service, 0.99),
        unit: "ms",
        maxRatio: OVERHEAD.p99,
        floor: pct(floor, 0.99),
        note: `wall time p99 ${pct(totals, 0.99).toFixed(2)} ms`,
      },
      {
        id: "overhead.transmit_floor.p50",
        what: "bare Hono making /transmit's two SQL round trips (transport's shape, each a write): p50",
        value: pct(twoTrips, 0.5),
        unit: "ms",
        note: `p99 ${pct(twoTrips, 0.99).toFixed(2)} ms; interleaved with the calls above, reported without a budget: /transmit's service time p50 is ${(pct(service, 0.5) / pct(twoTrips, 0.5)).toFixed(2)}× it`,
      },
      guaranteesBound(pct(twoTrips, 0.5), pct(floor, 0.5), events),
      ...renders.map(
        (r): Figure => ({
          id: `render.${r.lines}`,
          what: `render of a ${r.lines}-line stamped PDF (median of ${r.runs})`,
          value: r.medianMs,
          unit: "ms",
          ...(r.lines === 20 ? { max: RENDER.budget20 } : {}),
          note: `CPU ${r.cpuMedianMs} ms`,
        }),
      ),
      {
        id: "dian.sign.20",
        what: `DIAN mode: build and sign a ${dian.lines}-line invoice, p50 (${dian.runs} runs)`,
        value: dian.p50Ms,
        unit: "ms",
        max: DIAN.budget,
        note: `p95 ${dian.p95Ms} ms, CPU ${dian.cpuMedianMs} ms; ${(dian.bytes / 1024).toFixed(0)} KiB of XML`,
      },
      {
        id: "dian.envelope.20",
        what: `DIAN mode: zip that invoice and build and sign its SendBillSync envelope, p50 (${dianEnvelope.runs} runs)`,
        value: dianEnvelope.p50Ms,
        unit: "ms",
        note: `p95 ${dianEnvelope.p95Ms} ms, CPU ${dianEnvelope.cpuMedianMs} ms; ${(dianEnvelope.bytes / 1024).toFixed(0)} KiB envelope`,
      },
      {
        id: "dian.attached.20",
        what: `DIAN mode: build and sign its AttachedDocument, p50 (${attached.runs} runs; no budget)`,
        value: attached.p50Ms,
        unit: "ms",
        note: `p95 ${attached.p95Ms} ms, CPU ${attached.cpuMedianMs} ms; ${(attached.bytes / 1024).toFixed(0)} KiB of XML`,
      },
      pkcs12Figure(pkcs12),
      {
        id: "render.worst_refused",
        what: `worst invoice the limits allow, refused at the render budget (median of ${worst.runs})`,
        value: worst.refusedMedianMs,
        unit: "ms",
        max: RENDER.worstBudget,
      },
      {
        id: "render.1000",
        what: `render of a 1,000-line stamped PDF, the largest ordinary (median of ${worst.runs})`,
        value: worst.largestMedianMs,
        unit: "ms",
        max: RENDER.worstBudget,
      },
      {
        id: "render.1000.heap",
        what: "heap during the largest request: a 1,000-line stamped render, a fresh process's first",
        value: renderHeap.peakMiB + renderHeap.buffersMiB,
        unit: "MiB",
        max: RENDER.heapBudgetMiB,
        note: `V8 heap peak ${renderHeap.peakMiB.toFixed(1)} MiB (${renderHeap.beforeMiB.toFixed(1)} before it, ${renderHeap.collections} collections during it) + ArrayBuffers ${renderHeap.buffersMiB.toFixed(1)} MiB at its end; the PDF ${(renderHeap.pdfBytes / 1024).toFixed(0)} KiB`,
      },
      {
        id: "representation.cached.p50",
        what: `cached /representation: service time p50 (${CACHED.calls} calls)`,
        value: pct(cached, 0.5),
        unit: "ms",
        maxRatio: CACHED.p50,
        floor: pct(cachedFloor, 0.5),
        note: `p99 ${pct(cached, 0.99).toFixed(2)} ms; floor: bare Hono + one SQL round trip, interleaved`,
      },
      {
        id: "representation.whole.p50",
        what: "cached /representation, nothing remembered (document read whole): p50",
        value: pct(wholeRead, 0.5),
        unit: "ms",
        maxRatio: CACHED.wholeP50,
        floor: pct(cachedFloor, 0.5),
        note: `p99 ${pct(wholeRead, 0.99).toFixed(2)} ms; the same floor, interleaved with both`,
      },
      {
        id: "cold_start.ratio",
        what: "cold start: first answer (a CORS preflight), function ÷ bare Hono (median of 7)",
        value: cold.functionMs / cold.bareMs,
        unit: "ratio",
        max: 1.3,
        note: `${cold.functionMs.toFixed(0)} ms vs ${cold.bareMs.toFixed(0)} ms`,
      },
      ...(firstCall
        ? [
            {
              id: "cold_start.first_call",
              what: "cold start to a first authenticated POST (cached /representation), median of 7",
              value: firstCall.functionMs,
              unit: "ms",
              maxRatio: FIRST_CALL_RATIO,
              floor: firstCall.bareMs,
              note: "floor: a fresh bare Hono app answering a POST with one SQL round trip (connecting first)",
            } satisfies Figure,
          ]
        : []),
      {
        id: "credit_notes.issue.p50",
        what: `/credit-notes, one at a time: service time p50 (${CREDIT_NOTES.sequential} notes)`,
        value: median(noteTimes),
        unit: "ms",
        note: `p99 ${pct(noteTimes, 0.99).toFixed(2)} ms`,
      },
      {
        id: "credit_notes.throughput",
        what: `/credit-notes, ${CREDIT_NOTES.concurrency} at a time (${CREDIT_NOTES.concurrent} notes)`,
        value: notesPerSecond,
        unit: "docs/s",
      },
      {
        id: "reconcile.throughput",
        what: `reconcile: ${RECONCILE.documents} documents queried and settled, batches of ${RECONCILE.batch}`,
        value: settled / reconcileSeconds,
        unit: "docs/s",
        note: `${runs} runs, ${reconcileSeconds.toFixed(2)} s`,
      },
      ...events,
    ];
    const refused = [...c10, c1].reduce((n, r) => n + r.refused, 0);
    printFigures(`budgets (DESIGN §7) — ${label}; Deno ${process.versions.deno}`, figures, [
      `c = 10 runs: ${c10.map((r) => `${r.ms.toFixed(0)} ms`).join(", ")}; provider refusals (429 etc.): ${refused}`,
      "cold start, module by module (fresh processes, median of 5), in the order a first /transmit loads them:",
      ...imports.map((i) => `  ${i.ms.toFixed(1).padStart(6)} ms  ${i.what}`),
      `bench took ${((performance.now() - started) / 1000).toFixed(1)} s`,
    ]);
    const path = jsonPath(argv, "reports/bench/budgets.json");
    if (path) writeFigures(path, "budgets", label, [...figures, ...imports.map((i) => importFigure(i))]);
    return figures;
  } finally {
    process.off("SIGINT", onSignal);
    await stop();
  }
}

function ratioFigure(id: string, what: string, ms: number, idealMs: number): Figure {
  return {
    id,
    what: `${what} ÷ ceil(50/c)·L`,
    value: ms / idealMs,
    unit: "ratio",
    max: 1.05,
    note: `${ms.toFixed(0)} ms, ideal ${idealMs} ms`,
  };
}

/** The costliest accepted certificate file's worst opening, on its thread; every file in the note. */
function pkcs12Figure(timings: Pkcs12Timing[]): Figure {
  const [costliest] = timings;
  return {
    id: "dian.pkcs12.costliest",
    what: `costliest accepted certificate file, opened on a fresh worker: thread CPU (${costliest?.file ?? "none"})`,
    value: costliest ? Math.max(...costliest.coldMs) : Number.NaN,
    unit: "ms",
    max: PKCS12_CPU_BUDGET_MS,
    note: describeTimings(timings).join("; "),
  };
}

const importFigure = (i: { module: string; what: string; ms: number }): Figure => ({
  id: `cold_start.import.${i.module}`,
  what: `import: ${i.what}`,
  value: i.ms,
  unit: "ms",
});

async function main(argv: string[]): Promise<number> {
  if (argv.includes("--phases")) {
    await measurePhases({ pglite: argv.includes("--pglite") });
    return 0;
  }
  if (argv.includes("--scale")) {
    await measureScale(argv);
    return 0;
  }
  if (argv.includes("--events-scale")) {
    await measureEventScale(argv);
    return 0;
  }
  if (argv.includes("--pkcs12")) {
    const figures = [pkcs12Figure(await measurePkcs12())];
    printFigures(`PKCS#12 (issue 34) — Deno ${process.versions.deno}`, figures);
    const path = jsonPath(argv, "reports/bench/pkcs12.json");
    if (path) writeFigures(path, "pkcs12", "no database", figures);
    return 0;
  }
  if (argv.includes("--events")) {
    const { db, label, stop } = await openBenchDatabase({ pglite: argv.includes("--pglite") });
    try {
      const figures = await measureEvents(db);
      printFigures(`events (DESIGN §7, §11) — ${label}; Deno ${process.versions.deno}`, figures);
      const path = jsonPath(argv, "reports/bench/events.json");
      if (path) writeFigures(path, "events", label, figures);
    } finally {
      await stop();
    }
    return 0;
  }
  if (!argv.includes("--load")) await budgets(argv);
  if (argv.includes("--load") || !argv.includes("--no-load")) await measureLoad(argv);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
