/**
 * `npm run soak`: the local server (scripts/local/serve.ts, what `npm start` runs) on a real
 * PostgreSQL under a mixed load for a while (default 60 s), from a bounded load generator on
 * loopback: a fixed number of workers, each sending one request at a time — /transmit of fresh
 * invoices, /representation, /credit-notes (an annulment of a transmitted invoice) and /refresh.
 *
 * Then it checks, and exits 1 unless all hold:
 * - 0 errors: every answer was the expected 200 with the expected status (transmitida, emitida).
 * - 0 lost, 0 doubled: every invoice and note the load sent is accepted in the database, the
 *   sandbox's submission log (the authority's side) holds each exactly once, and nothing else.
 * - resident memory flat: the server's VmRSS (/proc/<pid>/status) is read at the start (before any
 *   load), after a warm-up (a quarter of the run), in the middle and at the end, and every 5 s.
 *   Flat means the end is at most 1.25 × the middle: past the warm-up the JIT, pools and caches
 *   have filled, so what grows from the middle to the end grows with the requests served; a
 *   quarter is room for the collector's timing. The start is reported, not judged.
 *   The server runs with V8's old generation capped (`--max-old-space-size=128`, SOAK_V8_FLAGS
 *   changes it; "none" removes it). Without a cap V8 lets its heap grow toward its default limit
 *   before collecting in earnest, so RSS climbs for minutes whether or not anything leaks (measured:
 *   195 → 330 MiB from the middle to the end of a 60 s run; a 150 s run levelled off near 500 MiB).
 *   With the cap, garbage is collected and a leak shows as growth, then as an out-of-memory crash
 *   (errors): the same 60 s load held at 260 MiB from 20 s on.
 *
 * The provider is a sandbox served by this script on loopback, which the company's adapter-tax
 * credential is pointed at through /integrations/save: the server's memory is then the service's
 * alone, not the in-process sandbox's ever-growing books.
 *
 * The database: `DATABASE_URL` (a database the server may migrate and seed, and the soak may add
 * invoices to), else a throwaway PostgreSQL 15 cluster (devkit/postgres-server.ts), removed
 * afterwards. Options: SOAK_SECONDS (60), SOAK_CONCURRENCY (4), SOAK_V8_FLAGS. Run under Deno or Node
 * (tests/e2e/soak.test.ts runs it in the test suite).
 */
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import postgres from "postgres";
import { freePort, spawnDeno } from "../../devkit/deno.ts";
import { findPostgresBinaries, startPostgresServer } from "../../devkit/postgres-server.ts";
import { createSandboxProvider } from "../../sandbox/provider.ts";
import { startSandboxServer } from "../../sandbox/server.ts";

export interface SoakOptions {
  /** A database the local server may migrate and seed. */
  databaseUrl: string;
  seconds: number;
  concurrency: number;
  /** V8 flags for the server (DENO_V8_FLAGS), e.g. a heap limit; default: none. */
  v8Flags?: string;
  /** Progress lines; default: none. */
  say?: (line: string) => void;
}

export interface SoakReport {
  seconds: number;
  concurrency: number;
  requests: Record<Operation, number>;
  errors: number;
  /** A few of the errors, for the report. */
  error_samples: string[];
  documents: { invoices_transmitted: number; credit_notes: number; lost: number; doubled: number };
  /** Unexpected documents in the sandbox's log (submitted by nobody in this run). */
  unexpected_submissions: number;
  memory_kib: { start: number; warm: number; middle: number; end: number; peak: number };
  /** VmRSS every 5 s of the run, in MiB: the shape of the curve behind the three points. */
  memory_mib_every_5s: number[];
  memory_flat: boolean;
  passed: boolean;
}

type Operation = "transmit" | "representation" | "credit_note" | "refresh";
/** How often each operation is picked (per 20 picks). */
const MIX: Operation[] = [
  ...Array<Operation>(7).fill("transmit"),
  ...Array<Operation>(5).fill("representation"),
  ...Array<Operation>(3).fill("credit_note"),
  ...Array<Operation>(5).fill("refresh"),
];
const FLAT_RATIO = 1.25;
/** The server's V8 heap limit during a soak (see above). */
export const SOAK_V8_FLAGS = "--max-old-space-size=128";
const FUNCTIONS = "/functions/v1/einvoicing";

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const say = options.say ?? (() => {});
  const dataDir = await mkdtemp(join(tmpdir(), "einv-soak-"));
  const port = await freePort();
  const server = spawnDeno(
    "scripts/local/serve.ts",
    {
      DATABASE_URL: options.databaseUrl,
      EINV_DATA_DIR: dataDir,
      SANDBOX_LATENCY_MS: "0",
      EINV_RECONCILE_INTERVAL_MS: "0",
      EINV_LOG_LEVEL: "warn",
      ...(options.v8Flags ? { DENO_V8_FLAGS: options.v8Flags } : {}),
    },
    port,
  );
  let output = "";
  server.stdout?.on("data", (chunk) => (output = (output + chunk).slice(-20_000)));
  server.stderr?.on("data", (chunk) => (output = (output + chunk).slice(-20_000)));
  const origin = `http://127.0.0.1:${port}`;
  const db = postgres(options.databaseUrl, { max: 2, onnotice: () => {} });
  const provider = await startSandboxServer(createSandboxProvider(), { port: 0 });
  try {
    await waitUntilListening(
      origin,
      () => server.exitCode,
      () => output,
    );
    const pid = server.pid as number;
    const local = JSON.parse(await readFile(join(dataDir, "local.json"), "utf8")) as LocalJson;
    const operador = local.users.find((u) => u.role === "operador");
    if (!operador) throw new Error("local.json names no operador");
    const company = local.companies.find((c) => c.org_id === operador.org_id);
    if (!company) throw new Error("local.json names no company of the operador's org");
    const admin = local.users.find((u) => u.role === "admin" && u.org_id === operador.org_id);
    if (!admin) throw new Error("local.json names no admin of the operador's org");

    // The provider: a sandbox of its own on loopback, saved as the company's adapter-tax credential
    // through /integrations/save, so the server's memory is the service's alone (the sandbox keeps
    // every document it receives) and its submission log is the authority's side of the books.
    const save = await fetch(`${origin}${FUNCTIONS}/integrations/save`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${admin.access_token}`,
        apikey: local.apikey,
        "content-type": "application/json",
      },
      body: JSON.stringify({
        org_id: operador.org_id,
        company_id: company.id,
        service: "adapter-tax",
        environment: company.active_environment,
        api_key: local.sandbox.api_key,
        url: `${provider.url}/adapter-tax`,
      }),
    });
    if (save.status !== 200) throw new Error(`could not save the soak's provider: ${await save.text()}`);

    // Fresh drafts for the run, topped up in the background when they run low (as the web app
    // writes drafts while others are sent).
    const drafts = await seedDrafts(db, operador.org_id, company.id, 1_000);
    let refilling: Promise<void> | undefined;
    const refill = () =>
      (refilling ??= seedDrafts(db, operador.org_id, company.id, 1_000)
        .then((ids) => void drafts.push(...ids))
        .finally(() => {
          refilling = undefined;
        }));
    say(`soak: ${drafts.length} drafts ready; ${options.concurrency} workers for ${options.seconds} s`);

    const call = async (route: string, body: Record<string, unknown>) => {
      const response = await fetch(`${origin}${FUNCTIONS}${route}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${operador.access_token}`,
          apikey: local.apikey,
          "content-type": "application/json",
        },
        body: JSON.stringify({ org_id: operador.org_id, ...body }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };

    const requests: Record<Operation, number> = {
      transmit: 0,
      representation: 0,
      credit_note: 0,
      refresh: 0,
    };
    const errors: string[] = [];
    const transmitted: string[] = [];
    const creditable: string[] = [];
    const notes: string[] = [];
    const error = (what: string, detail: unknown): void => {
      errors.push(`${what}: ${JSON.stringify(detail).slice(0, 500)}`);
    };
    const pickTransmitted = () => transmitted[Math.floor(Math.random() * transmitted.length)];

    async function operate(op: Operation): Promise<void> {
      if (op !== "transmit" && transmitted.length === 0) op = "transmit";
      if (op === "credit_note" && creditable.length === 0) op = "refresh";
      requests[op]++;
      if (op === "transmit") {
        if (drafts.length < 300) void refill();
        if (drafts.length < 3) await refill();
        const ids = drafts.splice(0, 1 + Math.floor(Math.random() * 3));
        if (ids.length === 0) return error("transmit", "ran out of drafts");
        const { status, body } = await call("/transmit", { invoice_ids: ids });
        const results = (body.results ?? []) as { invoice_id: string; status: string }[];
        if (status !== 200 || results.some((r) => r.status !== "transmitida"))
          return error("transmit", { status, body });
        transmitted.push(...ids);
        creditable.push(...ids);
      } else if (op === "representation") {
        const { status, body } = await call("/representation", { invoice_id: pickTransmitted() });
        if (status !== 200 || body.stamped !== true) error("representation", { status, body });
      } else if (op === "refresh") {
        const { status, body } = await call("/refresh", { invoice_id: pickTransmitted() });
        if (status !== 200 || body.status !== "transmitida") error("refresh", { status, body });
      } else {
        const invoiceId = creditable.splice(Math.floor(Math.random() * creditable.length), 1)[0];
        const { status, body } = await call("/credit-notes", {
          invoice_id: invoiceId,
          concept_code: "2",
          reason: "Anulación (soak)",
        });
        if (status !== 200 || body.status !== "emitida") return error("credit_note", { status, body });
        notes.push(body.credit_note_id as string);
      }
    }

    const memory = { start: vmRssKib(pid), warm: 0, middle: 0, end: 0, peak: 0 };
    const started = Date.now();
    const deadline = started + options.seconds * 1000;
    const curve: number[] = [];
    let ticks = 0;
    const sampler = setInterval(() => {
      const now = vmRssKib(pid);
      memory.peak = Math.max(memory.peak, now);
      if (++ticks % 10 === 0) curve.push(Math.round(now / 1024));
    }, 500);
    const at = (fraction: number, key: "warm" | "middle") =>
      setTimeout(
        () => {
          memory[key] = vmRssKib(pid);
          say(`soak: ${key} at ${Math.round((Date.now() - started) / 1000)} s, VmRSS ${memory[key]} KiB`);
        },
        options.seconds * 1000 * fraction,
      );
    const timers = [at(0.25, "warm"), at(0.5, "middle")];
    let next = 0;
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (Date.now() < deadline) {
          const op = MIX[next++ % MIX.length] as Operation;
          await operate(op).catch((e: unknown) => error(op, String(e)));
        }
      }),
    );
    clearInterval(sampler);
    for (const timer of timers) clearTimeout(timer);
    memory.end = vmRssKib(pid);
    memory.peak = Math.max(memory.peak, memory.end);

    // The oracle: the authority's side (the sandbox's log) and ours (the database).
    const times = new Map<string, number>();
    for (const s of provider.provider.submissions) times.set(s.reference, (times.get(s.reference) ?? 0) + 1);
    const sent = [...transmitted, ...notes];
    const expected = new Set(sent);
    const [states] = await db<{ invoices: number; notes: number }[]>`
      select (select count(*)::int from public.invoices
               where id = any(${transmitted}::uuid[]) and status = 'transmitida' and provider_reference is not null) as invoices,
             (select count(*)::int from public.credit_notes
               where id = any(${notes}::uuid[]) and status = 'emitida' and provider_reference is not null) as notes`;
    const acceptedHere = (states?.invoices ?? 0) + (states?.notes ?? 0);
    const lost = sent.filter((id) => (times.get(id) ?? 0) === 0).length + (sent.length - acceptedHere);
    const doubled = [...times.values()].filter((n) => n > 1).length;
    const unexpected = [...times.keys()].filter((reference) => !expected.has(reference)).length;
    const memoryFlat = memory.end <= FLAT_RATIO * memory.middle;
    const report: SoakReport = {
      seconds: options.seconds,
      concurrency: options.concurrency,
      requests,
      errors: errors.length,
      error_samples: errors.slice(0, 5),
      documents: { invoices_transmitted: transmitted.length, credit_notes: notes.length, lost, doubled },
      unexpected_submissions: unexpected,
      memory_kib: memory,
      memory_mib_every_5s: curve,
      memory_flat: memoryFlat,
      passed: errors.length === 0 && lost === 0 && doubled === 0 && unexpected === 0 && memoryFlat,
    };
    return report;
  } finally {
    await provider.close();
    await db.end({ timeout: 5 });
    await new Promise<void>((resolve) => {
      if (server.exitCode !== null) return resolve();
      server.once("exit", () => resolve());
      server.kill("SIGTERM");
    });
    await rm(dataDir, { recursive: true, force: true });
  }
}

interface LocalJson {
  apikey: string;
  users: { role: string; org_id: string; access_token: string }[];
  companies: { id: string; org_id: string; active_environment: string }[];
  sandbox: { api_key: string };
}

/** The resident set size of `pid`, in KiB, from /proc (Linux). */
export function vmRssKib(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"));
  const kib = Number(/(\d+)/.exec(line ?? "")?.[1]);
  if (!Number.isFinite(kib) || kib <= 0) throw new Error(`no VmRSS for process ${pid}`);
  return kib;
}

async function waitUntilListening(
  origin: string,
  exitCode: () => number | null,
  output: () => string,
): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (exitCode() !== null) throw new Error(`the local server exited:\n${output()}`);
    try {
      await fetch(`${origin}${FUNCTIONS}/transmit`, { method: "OPTIONS" });
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`the local server did not start:\n${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** `count` fresh pendiente invoices of the company, numbered past the demo's, two lines each. */
async function seedDrafts(
  db: postgres.Sql,
  orgId: string,
  companyId: string,
  count: number,
): Promise<string[]> {
  const rows = await db<{ id: string }[]>`
    with made as (
      insert into public.invoices (org_id, company_id, number, issue_date, issue_time, currency,
        buyer_id_type, buyer_id_number, buyer_check_digit, buyer_name, buyer_email, buyer_address,
        buyer_city_code)
      select ${orgId}, ${companyId}, c.invoice_prefix || (m.last + g)::text,
             current_date, time with time zone '10:15:00-05', 'COP', '31', (870000000 + g)::text,
             einv_private.nit_check_digit((870000000 + g)::text),
             'Cliente Soak ' || g || ' S.A.S.', 'soak' || g || '@cliente.test', 'Avenida 68 # 2-' || g,
             '11001'
        from public.companies c
        cross join generate_series(1, ${count}) g
        -- past every number the company has (a second run on the same database), from 991000001
        cross join (select greatest(991000000, max(substring(number from '[0-9]+$')::bigint)) as last
                      from public.invoices where company_id = ${companyId}) m
       where c.id = ${companyId}
      returning id, org_id)
    insert into public.invoice_lines (invoice_id, org_id, position, code, description, quantity, unit_price,
      taxes)
    select made.id, made.org_id, l.position, l.code, l.description, l.quantity, l.unit_price, l.taxes
      from made
     cross join (values (1, 'SRV-01', 'Servicio de consultoría', 2::numeric, 50000::numeric,
                         '[{"code": "01", "percent": 19}]'::jsonb),
                        (2, 'LIB-07', 'Libro técnico (exento)', 1::numeric, 10000::numeric,
                         '[{"code": "01", "percent": 0}]'::jsonb))
           as l (position, code, description, quantity, unit_price, taxes)
    returning invoice_id as id`;
  return [...new Set(rows.map((r) => r.id))];
}

async function main(): Promise<void> {
  const seconds = Number(process.env.SOAK_SECONDS ?? 60);
  const concurrency = Number(process.env.SOAK_CONCURRENCY ?? 4);
  if (
    !(seconds > 0 && seconds <= 3_600) ||
    !(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 64)
  ) {
    throw new Error("SOAK_SECONDS must be 1–3600 and SOAK_CONCURRENCY an integer 1–64");
  }
  let databaseUrl = process.env.DATABASE_URL;
  let stop = async () => {};
  if (!databaseUrl) {
    const bindir = await findPostgresBinaries();
    if (!bindir) throw new Error("set DATABASE_URL, or install PostgreSQL 15 for a throwaway cluster");
    const cluster = await startPostgresServer(bindir);
    const url = new URL(cluster.adminUrl);
    url.pathname = "/soak";
    const admin = postgres(cluster.adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe("create database soak").finally(() => admin.end({ timeout: 5 }));
    databaseUrl = url.toString();
    stop = () => cluster.stop();
    console.error(`soak: throwaway PostgreSQL ${cluster.version} on port ${cluster.port}`);
  }
  try {
    const flags = process.env.SOAK_V8_FLAGS ?? SOAK_V8_FLAGS;
    const v8Flags = flags === "none" ? undefined : flags;
    const report = await runSoak({
      databaseUrl,
      seconds,
      concurrency,
      ...(v8Flags ? { v8Flags } : {}),
      say: (l) => console.error(l),
    });
    console.log(JSON.stringify(report, null, 2));
    console.error(report.passed ? "soak: passed" : "soak: FAILED");
    process.exitCode = report.passed ? 0 : 1;
  } finally {
    await stop();
  }
}

// `npm run soak` runs this file under Deno; the test suite imports runSoak.
if ((import.meta as ImportMeta & { main?: boolean }).main === true) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
