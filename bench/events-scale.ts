/**
 * `npm run bench -- --events-scale`: the outbox's costs as its history grows — 10,000, 100,000 and
 * 1,000,000 events of one organization (a week's worth: older ones are pruned by every reconcile
 * run), each with its webhook delivery done, and a thousand deliveries waiting for later. At each
 * size, in-process with the receiver at the edge answering at once:
 *   - /transmit of one invoice with the endpoint registered (two events written and two deliveries
 *     queued in its transactions): service time p50;
 *   - a drain of 25 messages due among that history (picked, signed, sent, recorded): time p50;
 *   - the outbox's pruning of what is past the week, 5,000 events at a time: time p50.
 * Flat means within 1.5× from the smallest size to the largest; and at the largest, the drain's
 * picking statements and the pruning's are EXPLAINed for a sequential scan.
 *
 *   npm run bench -- --events-scale [--sizes=10000,100000,1000000] [--json[=path]]
 */
import { createTestApp, type TestApp } from "../devkit/app.ts";
import { saveCredential } from "../devkit/credentials.ts";
import type { TestDatabase } from "../devkit/database.ts";
import { createInvoice, createTenant, type Tenant } from "../devkit/factories.ts";
import { createWebhookEndpoint } from "../devkit/webhooks.ts";
import { createSandboxProvider } from "../sandbox/provider.ts";
import { connectPostgres } from "../shared/db/sql-client.ts";
import { drainWebhooks } from "../shared/events/drain.ts";
import { createLogger } from "../shared/kernel/log.ts";
import type { FetchLike } from "../shared/providers/tax/client.ts";
import { cloneTemplate, openBenchDatabase, superuserOf } from "./database.ts";
import { type Figure, jsonPath, printFigures, writeFigures } from "./report.ts";
import { median } from "./stats.ts";

const SIZES = [10_000, 100_000, 1_000_000];
const FLAT = 1.5;
const HOOKS = "https://hooks.bench.test/in";
const ROUNDS = 5;
const PER_ROUND = { transmit: 10, drain: 3, prune: 2 } as const;
type Path = keyof typeof PER_ROUND;

interface Site {
  size: number;
  db: TestDatabase;
  run: Record<Path, () => Promise<number>>;
}

export async function measureEventScale(argv: string[]): Promise<Figure[]> {
  const sizes =
    argv
      .find((a) => a.startsWith("--sizes="))
      ?.slice("--sizes=".length)
      .split(",")
      .map(Number) ?? SIZES;
  const { label, server, stop } = await openBenchDatabase({ poolSize: 1 });
  if (!server) throw new Error("--events-scale needs PostgreSQL 15 (postgresql-15)");
  const sites: Site[] = [];
  try {
    for (const size of sizes) {
      const url = await cloneTemplate(server, `events_${size}`);
      const client = await connectPostgres(url, { max: 5 });
      const db: TestDatabase = {
        engine: "postgres",
        url,
        client,
        superuser: superuserOf(client),
        close: () => client.close(),
      };
      const t0 = performance.now();
      sites.push(await openSite(db, size));
      console.log(
        `  ${size.toLocaleString("en")} events seeded in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
      );
    }
    const paths = Object.keys(PER_ROUND) as Path[];
    for (const site of sites) for (const path of paths) await site.run[path]();
    const samples = new Map<string, number[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const site of sites) {
        for (const path of paths) {
          for (let i = 0; i < PER_ROUND[path]; i++) {
            const key = `${site.size}/${path}`;
            samples.set(key, [...(samples.get(key) ?? []), await site.run[path]()]);
          }
        }
      }
    }
    const ms = (size: number, path: Path) => median(samples.get(`${size}/${path}`) ?? []);
    const names: Record<Path, string> = {
      transmit: "/transmit of 1 with a webhook endpoint, service time p50",
      drain: "a drain of 25 messages due, p50",
      prune: "pruning 1,000 events past the week, p50",
    };
    const figures: Figure[] = sites.flatMap((site) =>
      paths.map((path) => ({
        id: `events_scale.${site.size}.${path}`,
        what: `${site.size.toLocaleString("en")} events: ${names[path]}`,
        value: ms(site.size, path),
        unit: "ms" as const,
      })),
    );
    const [first, largest] = [sites[0], sites.at(-1)];
    if (first && largest && first !== largest) {
      for (const path of paths) {
        figures.push({
          id: `events_scale.flat.${path}`,
          what: `${names[path]}: ${largest.size.toLocaleString("en")} ÷ ${first.size.toLocaleString("en")} events`,
          value: ms(largest.size, path) / ms(first.size, path),
          unit: "ratio",
          max: FLAT,
        });
      }
    }
    if (largest) {
      const scans = await sequentialScans(largest.db);
      figures.push({
        id: "events_scale.explain.seq_scans",
        what: `the drains' picking statements and the pruning's, EXPLAINed at ${largest.size.toLocaleString("en")} events: sequential scans`,
        value: scans.length,
        unit: "ratio",
        max: 0,
        ...(scans.length ? { note: scans.join("; ") } : {}),
      });
    }
    printFigures(`events scale — ${label}, ${ROUNDS} interleaved rounds`, figures);
    const path = jsonPath(argv, "reports/bench/events-scale.json");
    if (path) writeFigures(path, "events-scale", label, figures);
    return figures;
  } finally {
    for (const site of sites) await site.db.close().catch(() => {});
    await stop();
  }
}

async function openSite(db: TestDatabase, size: number): Promise<Site> {
  const sandbox = createSandboxProvider();
  let edgeMs = 0;
  // the provider and the receiver in-process, their own time split out of the service's
  const providerFetch: FetchLike = async (input, init) => {
    const request = new Request(input, init);
    const t0 = performance.now();
    try {
      if (request.url === HOOKS) {
        await request.arrayBuffer();
        return new Response(null, { status: 204 });
      }
      return await sandbox.fetch(request);
    } finally {
      edgeMs += performance.now() - t0;
    }
  };
  const app: TestApp = await createTestApp(db, {
    env: { EINV_LOG_LEVEL: "warn" },
    providerFetch,
    measuring: true,
  });
  const tenant: Tenant = await createTenant(db);
  await saveCredential(app.deps, tenant);
  const endpoint = await createWebhookEndpoint(db, app.deps.secretBox, tenant.org.id, HOOKS);
  await seedEvents(db, tenant.org.id, endpoint.id, size);
  const token = await app.token(tenant.operador);
  const { webhooks } = app.deps.config;
  const drainContext = {
    serviceDb: app.deps.db.asService(),
    secretBox: app.deps.secretBox,
    egress: app.deps.egress,
    allowPrivateUrls: false,
    timeoutMs: webhooks.timeoutMs,
    concurrency: webhooks.concurrency,
    log: createLogger("warn"),
  };
  return {
    size,
    db,
    run: {
      transmit: async () => {
        const invoice = await createInvoice(db, tenant.org, tenant.company);
        edgeMs = 0;
        const t0 = performance.now();
        const response = await app.post(
          "/transmit",
          { org_id: tenant.org.id, invoice_ids: [invoice.id] },
          token,
        );
        await response.json();
        const ms = performance.now() - t0 - edgeMs;
        await app.deps.background.idle();
        return ms;
      },
      drain: async () => {
        await db.superuser(
          `select einv_private.emit_event('invoice', $1::uuid, gen_random_uuid(), 'transmitida', 'accepted')
             from generate_series(1, 25)`,
          [tenant.org.id],
        );
        edgeMs = 0;
        const t0 = performance.now();
        const result = await drainWebhooks(drainContext, {
          orgId: tenant.org.id,
          batchSize: 25,
          budgetMs: 60_000,
        });
        const ms = performance.now() - t0 - edgeMs;
        if (result.delivered !== 25) throw new Error(`drain delivered ${result.delivered}`);
        return ms;
      },
      prune: async () => {
        // 1,000 events past the week (made so, untimed), then one pruning batch
        await db.superuser(
          `update einv_private.outbox set occurred_at = now() - interval '8 days'
            where id in (select id from einv_private.outbox order by id limit 1000)`,
        );
        const t0 = performance.now();
        const [row] = await db.superuser<{ deleted: number }>(
          "select (public.einv_events_prune(7, 1000) ->> 'deleted')::int as deleted",
        );
        const ms = performance.now() - t0;
        if (row?.deleted !== 1000) throw new Error(`pruned ${row?.deleted}`);
        // the history stays its size: the pruned are written again, as new events
        await db.superuser(
          `with e as (insert into einv_private.outbox (org_id, kind, document_id, status, code, occurred_at, sequence)
                      select $1, 'invoice', gen_random_uuid(), 'transmitida', 'accepted', now() - interval '1 day', 1
                        from generate_series(1, 1000) returning *)
           insert into einv_private.webhook_deliveries (endpoint_id, event_id, org_id, document_id, state, attempts,
                                                        finished_at)
           select $2, e.id, e.org_id, e.document_id, 'delivered', 1, now() from e`,
          [tenant.org.id, endpoint.id],
        );
        return ms;
      },
    },
  };
}

/** `size` events over the last six days, each delivered to the endpoint; 1,000 more waiting an hour. */
export async function seedEvents(
  db: TestDatabase,
  orgId: string,
  endpointId: string,
  size: number,
): Promise<void> {
  for (let start = 1; start <= size + 1000; start += 100_000) {
    const end = Math.min(size + 1000, start + 99_999);
    await db.superuser(
      `with e as (insert into einv_private.outbox (org_id, kind, document_id, status, code, occurred_at, sequence)
                  select $1, 'invoice', gen_random_uuid(), 'transmitida', 'accepted',
                         now() - interval '6 days' + (g::float / $5) * interval '6 days', 1
                    from generate_series($3::int, $4::int) g returning *)
       insert into einv_private.webhook_deliveries (endpoint_id, event_id, org_id, document_id, state, attempts,
                                                    next_attempt_at, finished_at)
       select $2, e.id, e.org_id, e.document_id, case when e.id > $5 then 'pending' else 'delivered' end, 1,
              now() + interval '1 hour', case when e.id <= $5 then now() end
         from e`,
      [orgId, endpointId, start, end, size],
    );
  }
  await db.client.exec("vacuum analyze einv_private.outbox");
  await db.client.exec("vacuum analyze einv_private.webhook_deliveries");
}

/** The statements that must not read a growing table whole, EXPLAINed; the ones that do. */
async function sequentialScans(db: TestDatabase): Promise<string[]> {
  const statements: [string, string, string][] = [];
  for (const byOrg of [true, false]) {
    const [row] = await db.superuser<{ sql: string }>(`select einv_private.webhook_due_sql(${byOrg}) as sql`);
    statements.push([`pick (${byOrg ? "one org" : "every org"})`, row?.sql ?? "", "uuid, integer"]);
  }
  statements.push([
    "prune",
    `select x.id from einv_private.outbox x where x.occurred_at < now() - make_interval(days => $1)
      order by x.occurred_at limit $2`,
    "integer, integer",
  ]);
  const offending: string[] = [];
  for (const [name, sql, types] of statements) {
    const plan = await db.client.transaction(async (s) => {
      await s.query(`prepare q (${types}) as ${sql}`);
      const args = types.startsWith("uuid") ? "gen_random_uuid(), 25" : "7, 5000";
      const [explained] = await s.query<{ "QUERY PLAN": unknown }>(
        `explain (format json) execute q (${args})`,
      );
      await s.query("deallocate q");
      return JSON.stringify(explained?.["QUERY PLAN"]);
    });
    if (/"Node Type":"Seq Scan"/.test(plan)) offending.push(name);
  }
  return offending;
}
