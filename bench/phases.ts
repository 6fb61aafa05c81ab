/**
 * Where the time of one request goes (`npm run bench -- --phases`): the real app in-process, as
 * `npm run bench` drives it, with each port timed from outside — the token check, every database
 * API call by name, the provider, the documents store — so nothing in the service is edited to be
 * measured. What is left (routing, middleware, zod, JSON, p-limit, logging) is "the rest"; its parts
 * are timed on their own below the table. Medians per request over many calls.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { PUBLIC_TEST_ADDRESS, TEST_API_KEY, TEST_CREDENTIALS_KEY } from "../devkit/app.ts";
import { createLocalSigner } from "../devkit/auth.ts";
import { saveCredential } from "../devkit/credentials.ts";
import { createInvoice, createTenant } from "../devkit/factories.ts";
import { createFilesystemStore } from "../devkit/filesystem-store.ts";
import { createApp } from "../functions/einvoicing/app.ts";
import { TransmitRequest } from "../functions/invoices/transmit.ts";
import { createSandboxProvider } from "../sandbox/provider.ts";
import { buildDeps } from "../shared/compose.ts";
import { createPostgresDb } from "../shared/db/postgres-transport.ts";
import { createLogger } from "../shared/kernel/log.ts";
import type { Db, DbScope } from "../shared/ports/db/port.ts";
import type { FetchLike } from "../shared/providers/tax/client.ts";
import { openBenchDatabase } from "./database.ts";
import { median } from "./stats.ts";

const CALLS = 300;
const WARMUP = 30;

/** Accumulates milliseconds per phase for the request in flight. */
class Clock {
  current = new Map<string, number>();
  async time<T>(phase: string, work: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await work();
    } finally {
      this.current.set(phase, (this.current.get(phase) ?? 0) + performance.now() - t0);
    }
  }
}

function timedDb(db: Db, clock: Clock): Db {
  const wrap = (scope: DbScope, who: string): DbScope => ({
    call: (fn, args) => clock.time(`db ${fn} (${who})`, () => scope.call(fn, args)),
  });
  return {
    asUser: (caller) => wrap(db.asUser(caller), "user"),
    asService: () => wrap(db.asService(), "service"),
    close: () => db.close(),
  };
}

export async function measurePhases(options: { pglite?: boolean; url?: string } = {}): Promise<void> {
  const { db, label, stop, url } = await openBenchDatabase(options);
  try {
    // per-function times inside PostgreSQL (pg_stat_user_functions), for new sessions of this database
    if (url)
      await db.superuser(`alter database ${new URL(url).pathname.slice(1)} set track_functions = 'all'`);
    const clock = new Clock();
    const sandbox = createSandboxProvider();
    const providerFetch: FetchLike = (input, init) =>
      clock.time("provider (in-process sandbox)", () => sandbox.fetch(input, init));
    const signer = await createLocalSigner("http://supabase.test/auth/v1");
    const store = createFilesystemStore(mkdtempSync(join(tmpdir(), "einv-bench-")), db.client);
    const deps = await buildDeps(
      {
        SUPABASE_URL: "http://supabase.test",
        SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: TEST_API_KEY }),
        SUPABASE_JWKS: JSON.stringify(signer.jwks),
        EINV_DB_TRANSPORT: "embedded",
        EINV_CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
        EINV_LOG_LEVEL: "info",
      },
      {
        db: timedDb(createPostgresDb(db.client), clock),
        logger: createLogger("info", () => {}),
        providerFetch,
        resolver: async () => [PUBLIC_TEST_ADDRESS],
        documents: {
          put: (...args) => clock.time("documents store", () => store.put(...args)),
          get: (...args) => clock.time("documents store", () => store.get(...args)),
        },
      },
    );
    const verify = deps.verifyToken;
    deps.verifyToken = (token) => clock.time("token check (remembered)", () => verify(token));
    const app = createApp(deps);
    const tenant = await createTenant(db);
    await saveCredential(deps, tenant);
    const token = await signer.sign(tenant.operador);
    const post = async (path: string, body: unknown) => {
      clock.current = new Map();
      const t0 = performance.now();
      const response = await app.request(`/einvoicing${path}`, {
        method: "POST",
        headers: {
          apikey: TEST_API_KEY,
          "content-type": "application/json",
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify(body),
      });
      const json = await response.json();
      const total = performance.now() - t0;
      if (response.status !== 200)
        throw new Error(`${path}: HTTP ${response.status} ${JSON.stringify(json)}`);
      return { total, phases: clock.current, json };
    };

    const report = (title: string, runs: { total: number; phases: Map<string, number> }[]) => {
      const names = [...new Set(runs.flatMap((r) => [...r.phases.keys()]))];
      console.log(`\n${title} — medians of ${runs.length} calls`);
      let accounted = 0;
      for (const name of names) {
        const ms = median(runs.map((r) => r.phases.get(name) ?? 0));
        accounted += ms;
        console.log(`  ${ms.toFixed(3).padStart(7)} ms  ${name}`);
      }
      const total = median(runs.map((r) => r.total));
      console.log(
        `  ${(total - accounted).toFixed(3).padStart(7)} ms  the rest (routing, middleware, zod, JSON, logging)`,
      );
      console.log(`  ${total.toFixed(3).padStart(7)} ms  total`);
    };

    // /transmit of one pending invoice, provider answering at once
    const ids = await Promise.all(
      Array.from({ length: WARMUP + CALLS }, () => createInvoice(db, tenant.org, tenant.company)),
    );
    await resetFunctionTimes(db);
    const transmits = [];
    for (const [i, invoice] of ids.entries()) {
      const run = await post("/transmit", { org_id: tenant.org.id, invoice_ids: [invoice.id] });
      if (i >= WARMUP) transmits.push(run);
    }
    report("/transmit, 1 invoice, instant provider", transmits);
    await functionTimes(db, transmits.length + WARMUP);

    // /representation answered from the stored file
    const [first] = ids;
    const body = { org_id: tenant.org.id, invoice_id: first?.id };
    await post("/representation", body);
    await resetFunctionTimes(db);
    const cached = [];
    for (let i = 0; i < WARMUP + CALLS; i++) {
      const run = await post("/representation", body);
      if ((run.json as { cached?: boolean }).cached !== true) throw new Error("not cached");
      if (i >= WARMUP) cached.push(run);
    }
    report("/representation, cached", cached);
    await functionTimes(db, cached.length + WARMUP);

    // the floor: a bare Hono handler making one SQL round trip to the same server
    const bare = new Hono().post("/x", async (c) => c.json(await db.client.script("select 1 as one")));
    const floor: number[] = [];
    const script: number[] = [];
    for (let i = 0; i < WARMUP + CALLS; i++) {
      const t0 = performance.now();
      await (await bare.request("/x", { method: "POST" })).json();
      const t1 = performance.now();
      await db.client.script("select set_config('role', 'service_role', true); select 1");
      const t2 = performance.now();
      if (i >= WARMUP) {
        floor.push(t1 - t0);
        script.push(t2 - t1);
      }
    }
    console.log(
      `\nfloor: bare Hono + one SQL round trip ${median(floor).toFixed(3)} ms; a set_config + call script ${median(script).toFixed(3)} ms`,
    );

    // parts of "the rest", alone
    const sample = JSON.stringify({ org_id: tenant.org.id, invoice_ids: [first?.id] });
    const micro = (what: string, work: () => unknown, n = 5000) => {
      for (let i = 0; i < 500; i++) work();
      const t0 = performance.now();
      for (let i = 0; i < n; i++) work();
      console.log(`  ${(((performance.now() - t0) / n) * 1000).toFixed(1).padStart(7)} µs  ${what}`);
    };
    console.log("\nparts of the rest, alone (mean of many):");
    micro("JSON.parse of the /transmit body", () => JSON.parse(sample));
    micro("zod: TransmitRequest.safeParse", () => TransmitRequest.safeParse(JSON.parse(sample)));
    console.log(`\n${label}; Deno ${process.versions.deno}`);
  } finally {
    await stop();
  }
}

/** Self and total time per SQL function since the last call, per request; then resets the counters. */
async function functionTimes(db: import("../devkit/database.ts").TestDatabase, requests: number) {
  if (db.engine !== "postgres") return;
  // an idle backend flushes its function counters within 10 s
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  const rows = await db.superuser<{ name: string; calls: string; self: number; total: number }>(
    `select schemaname || '.' || funcname as name, calls::text, self_time as self, total_time as total
       from pg_stat_user_functions order by self_time desc limit 14`,
  );
  console.log("  inside PostgreSQL, per request (ms): self / total, calls per request");
  for (const r of rows) {
    console.log(
      `    ${(r.self / requests).toFixed(3).padStart(7)} / ${(r.total / requests).toFixed(3).padStart(7)}  ${(Number(r.calls) / requests).toFixed(1).padStart(4)}  ${r.name}`,
    );
  }
  if (!(await hasStatements(db))) return;
  const statements = await db.superuser<{ query: string; calls: string; ms: number }>(
    `select regexp_replace(query, '\\s+', ' ', 'g') as query, calls::text, total_exec_time as ms
       from pg_stat_statements where query not like '%pg_stat%' order by total_exec_time desc limit 16`,
  );
  console.log("  statements (pg_stat_statements, nested included), per request (ms), calls per request");
  for (const r of statements) {
    console.log(
      `    ${(r.ms / requests).toFixed(3).padStart(7)}  ${(Number(r.calls) / requests).toFixed(1).padStart(4)}  ${r.query.slice(0, 110)}`,
    );
  }
}

async function hasStatements(db: import("../devkit/database.ts").TestDatabase): Promise<boolean> {
  const [row] = await db.superuser<{ ok: boolean }>(
    "select exists (select 1 from pg_extension where extname = 'pg_stat_statements') as ok",
  );
  return row?.ok === true;
}

async function resetFunctionTimes(db: import("../devkit/database.ts").TestDatabase) {
  if (db.engine !== "postgres") return;
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  await db.superuser("select pg_stat_reset()");
  if (await hasStatements(db)) await db.superuser("select pg_stat_statements_reset()");
}
