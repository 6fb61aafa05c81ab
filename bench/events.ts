/**
 * The events' costs (`npm run bench`, part of the budgets run; DESIGN §7 and §11):
 *   - what the outbox adds to /transmit of one invoice, p50 of service time: short blocks of calls
 *     with the status trigger on and off, alternating (ALTER TABLE … DISABLE TRIGGER between blocks,
 *     never inside one; the first calls after each switch, which plan their statements again, left
 *     out), so that a machine busier at one moment weighs on both alike; the median with it ÷ the
 *     median without it (its floor) against the budget of 1.15, the difference in ms reported;
 *   - the same with a webhook endpoint registered (the deliveries queued in the transaction), the
 *     background drain awaited between calls so it never overlaps the next one;
 *   - a drain of 1,000 queued events to a receiver on loopback over real HTTP, signed, the outcome
 *     of each recorded.
 * `npm run bench -- --events-scale` measures the outbox's costs as it grows (./events-scale.ts).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createTestApp } from "../devkit/app.ts";
import { saveCredential } from "../devkit/credentials.ts";
import type { TestDatabase } from "../devkit/database.ts";
import { createInvoice, createTenant, type Tenant } from "../devkit/factories.ts";
import { createWebhookEndpoint } from "../devkit/webhooks.ts";
import { createSandboxProvider } from "../sandbox/provider.ts";
import { drainWebhooks } from "../shared/events/drain.ts";
import { createLogger } from "../shared/kernel/log.ts";
import type { FetchLike } from "../shared/providers/tax/client.ts";
import { FLOOR_SETUP } from "./floor.ts";
import type { Figure } from "./report.ts";
import { median, pct } from "./stats.ts";

const CALLS = 200;
const WARMUP = 30;
/** Calls per block, and of them the first ones left out after the trigger was switched. */
const BLOCK = 12;
const SETTLE = 2;
/** /transmit's service time p50 with the outbox ÷ without it, measured in alternating blocks. */
const BUDGET_RATIO = 1.15;
const DRAINED = 1_000;
const DRAIN_BUDGET_MS = 120_000;

const TRIGGER_ROWS = 500;

/**
 * The trigger's cost without the request around it: pending invoices moved to `en_proceso` one
 * statement each inside a DO block, timed by the database's own clock, in alternating blocks with
 * the status trigger on and off; µs a change. Beside them, timed the same way, the bench floor's own
 * write (./floor.ts: one small row, no check, trigger or second index): what a status change costs
 * the database beyond a write the floor already pays.
 */
async function triggerMicros(
  db: TestDatabase,
  tenant: Tenant,
  trigger: (on: boolean) => Promise<unknown>,
): Promise<{ on: number; off: number; added: number; floorWrite: number }> {
  const times: Record<"on" | "off" | "floor", number[]> = { on: [], off: [], floor: [] };
  await db.client.exec(FLOOR_SETUP);
  for (const on of [true, false, true, false, true, false]) {
    const made = await db.superuser<{ id: string }>(
      `insert into public.invoices (org_id, company_id, number)
       select $1, $2, 'TRG' || (floor(random() * 1e12)::bigint) from generate_series(1, ${TRIGGER_ROWS})
       returning id::text`,
      [tenant.org.id, tenant.company.id],
    );
    const ids = made.map((m) => m.id);
    await trigger(on);
    // one round trip, one transaction, one connection (the temporary table is the connection's)
    const [timed] = await db.client.script<{
      us: number;
    }>(`create temp table if not exists bench_trigger (us float);
      truncate bench_trigger;
      do $$ declare t0 timestamptz; _id uuid; begin
        t0 := clock_timestamp();
        foreach _id in array '{${ids.join(",")}}'::uuid[] loop
          update public.invoices set status = 'en_proceso', last_code = 'in_progress' where id = _id;
        end loop;
        insert into bench_trigger values (extract(epoch from clock_timestamp() - t0) * 1e6 / ${ids.length});
      end $$;
      select us from bench_trigger`);
    times[on ? "on" : "off"].push(Number(timed?.us));
    if (!on) times.floor.push(await floorWriteMicros(db));
  }
  await trigger(true);
  const on = median(times.on);
  const off = median(times.off);
  return { on, off, added: on - off, floorWrite: median(times.floor) };
}

/** The floor's write (./floor.ts), TRIGGER_ROWS rows one statement each in a DO block: µs a write. */
async function floorWriteMicros(db: TestDatabase): Promise<number> {
  const [timed] = await db.client.script<{
    us: number;
  }>(`create temp table if not exists bench_trigger (us float);
    truncate bench_trigger;
    do $$ declare t0 timestamptz; begin
      t0 := clock_timestamp();
      for i in 0..${TRIGGER_ROWS - 1} loop
        update public.bench_floor set n = n + 1 where id = i;
      end loop;
      insert into bench_trigger values (extract(epoch from clock_timestamp() - t0) * 1e6 / ${TRIGGER_ROWS});
    end $$;
    select us from bench_trigger`);
  return Number(timed?.us);
}

/** A receiver over real HTTP on loopback: answers 204 to every POST, counting them. */
export async function startReceiver(): Promise<{
  url: string;
  received: () => number;
  close(): Promise<void>;
}> {
  let count = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      count++;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function measureEvents(db: TestDatabase): Promise<Figure[]> {
  const receiver = await startReceiver();
  try {
    const sandbox = createSandboxProvider();
    let providerMs = 0;
    // the receiver over the real network; the provider in-process, its own time split out
    const providerFetch: FetchLike = async (input, init) => {
      const request = new Request(input, init);
      if (request.url.startsWith(receiver.url)) return globalThis.fetch(request);
      const t0 = performance.now();
      try {
        return await sandbox.fetch(request);
      } finally {
        providerMs += performance.now() - t0;
      }
    };
    // private urls allowed: the receiver is on loopback, as in local development
    const app = await createTestApp(db, {
      env: { EINV_LOG_LEVEL: "warn", EINV_ALLOW_PRIVATE_PROVIDER_URLS: "true" },
      providerFetch,
      measuring: true,
    });
    const [plain, hooked] = [await createTenant(db), await createTenant(db)];
    for (const tenant of [plain, hooked]) await saveCredential(app.deps, tenant);
    await createWebhookEndpoint(db, app.deps.secretBox, hooked.org.id, receiver.url);
    const tokens = new Map<Tenant, string>([
      [plain, await app.token(plain.operador)],
      [hooked, await app.token(hooked.operador)],
    ]);
    const transmitOne = async (tenant: Tenant): Promise<number> => {
      const invoice = await createInvoice(db, tenant.org, tenant.company);
      providerMs = 0;
      const t0 = performance.now();
      const response = await app.post(
        "/transmit",
        { org_id: tenant.org.id, invoice_ids: [invoice.id] },
        tokens.get(tenant),
      );
      const body = (await response.json()) as { results: { status: string }[] };
      const ms = performance.now() - t0 - providerMs;
      if (body.results[0]?.status !== "transmitida") throw new Error(`transmit: ${JSON.stringify(body)}`);
      await app.deps.background.idle();
      return ms;
    };
    const block = async (tenant: Tenant, calls: number) => {
      const times: number[] = [];
      for (let i = 0; i < calls; i++) times.push(await transmitOne(tenant));
      return times;
    };
    const trigger = (on: boolean) =>
      db.superuser(`alter table public.invoices ${on ? "enable" : "disable"} trigger invoices_status_event`);

    await block(plain, WARMUP);
    const withOutbox: number[] = [];
    const without: number[] = [];
    for (let on = true; without.length < CALLS; on = !on) {
      await trigger(on);
      (on ? withOutbox : without).push(...(await block(plain, BLOCK)).slice(SETTLE));
    }
    await trigger(true);
    const perEvent = await triggerMicros(db, plain, trigger);
    await block(hooked, WARMUP);
    const fannedOut = await block(hooked, CALLS);
    const added = median(withOutbox) - median(without);

    // 1,000 events queued for the hooked org's endpoint, each of its own document, then one drain
    await db.superuser(
      `select einv_private.emit_event('invoice', $1::uuid, gen_random_uuid(), 'transmitida', 'accepted')
         from generate_series(1, ${DRAINED})`,
      [hooked.org.id],
    );
    const before = receiver.received();
    const { webhooks, providers } = app.deps.config;
    const t0 = performance.now();
    const drained = await drainWebhooks(
      {
        serviceDb: app.deps.db.asService(),
        secretBox: app.deps.secretBox,
        egress: app.deps.egress,
        allowPrivateUrls: providers.allowPrivateUrls,
        timeoutMs: webhooks.timeoutMs,
        concurrency: webhooks.concurrency,
        log: createLogger("warn"),
      },
      { orgId: null, batchSize: 100, budgetMs: DRAIN_BUDGET_MS },
    );
    const drainMs = performance.now() - t0;
    if (drained.delivered !== DRAINED || receiver.received() - before !== DRAINED) {
      throw new Error(`drain: ${JSON.stringify(drained)}, received ${receiver.received() - before}`);
    }

    return [
      {
        id: "events.outbox.transmit_p50",
        what: `/transmit of 1 with the outbox: service time p50, status trigger on (floor: off; ${without.length} calls each)`,
        value: median(withOutbox),
        unit: "ms",
        maxRatio: BUDGET_RATIO,
        floor: median(without),
        note: `the outbox adds ${added >= 0 ? "+" : ""}${added.toFixed(3)} ms, in alternating blocks of ${BLOCK - SETTLE}; two events a call (the claim, the outcome), each written, broadcast and fanned out`,
      },
      {
        id: "events.outbox.sql_per_event",
        what: "the outbox's SQL per status change, timed inside the database (update with the trigger − without)",
        value: perEvent.added / 1000,
        unit: "ms",
        note: `${perEvent.added.toFixed(1)} µs a change (${perEvent.on.toFixed(1)} vs ${perEvent.off.toFixed(1)} µs an update, ${TRIGGER_ROWS} rows each, alternating); a /transmit makes two`,
      },
      {
        id: "events.status_change.sql",
        what: "an invoice's status change inside the database (its checks, indexes and triggers, the outbox's) ÷ the floor's write",
        value: perEvent.on / 1000,
        unit: "ms",
        floor: perEvent.floorWrite / 1000,
        note: `${perEvent.on.toFixed(1)} vs ${perEvent.floorWrite.toFixed(1)} µs a write, ${TRIGGER_ROWS} rows each; /transmit's claim and record each make one (its lower bound: ./run.ts)`,
      },
      {
        id: "events.webhooks.transmit_p50",
        what: "/transmit of 1 with a webhook endpoint (two deliveries queued a call): service time p50",
        value: median(fannedOut),
        unit: "ms",
        note: `p99 ${pct(fannedOut, 0.99).toFixed(2)} ms; the background drain awaited between calls, not timed`,
      },
      {
        id: "events.drain.1000",
        what: `a drain of ${DRAINED.toLocaleString("en")} events to a receiver on loopback (HTTP, signed, recorded)`,
        value: DRAINED / (drainMs / 1000),
        unit: "docs/s",
        // a drain takes what can end within its budget, at the timeout each (shared/events/drain.ts)
        note: `${drainMs.toFixed(0)} ms; batches of ${Math.min(100, webhooks.concurrency * Math.floor(DRAIN_BUDGET_MS / webhooks.timeoutMs))}, ${webhooks.concurrency} at a time`,
      },
    ];
  } finally {
    await receiver.close();
  }
}
