/**
 * Scale (`npm run bench -- --scale`): what one request costs as one organization's data grows. A
 * throwaway PostgreSQL 15 cluster; one organization seeded in SQL (generate_series) with 10,000,
 * then 100,000, then 1,000,000 invoices, each with two lines and three events, and credit notes
 * (with their lines), representations and open documents in proportion; at each size, the service
 * time (as in `npm run bench`, in-process, sandbox provider answering instantly) of:
 *   - /transmit of one pending invoice,
 *   - /credit-notes for a transmitted invoice,
 *   - a cached /representation,
 *   - one reconcile batch (25 open documents picked, queried and settled).
 * The cost must stay flat: within 1.5× from the smallest size to the largest.
 *
 * Then every SQL statement those four paths execute — the database API calls and every statement
 * inside them — is planned with EXPLAIN (auto_explain on one connection, nested statements
 * included) at the largest size, and each plan is checked for a sequential scan of a table holding
 * more than SEQ_SCAN_ROWS rows.
 *
 *   npm run bench -- --scale [--sizes=10000,100000,1000000] [--shared-buffers=1GB] [--reconcile-old]
 *                            [--json[=path]]
 */
import postgres from "postgres";
import { PUBLIC_TEST_ADDRESS, TEST_API_KEY, TEST_CREDENTIALS_KEY } from "../devkit/app.ts";
import { createLocalSigner } from "../devkit/auth.ts";
import { saveCredential } from "../devkit/credentials.ts";
import type { TestDatabase } from "../devkit/database.ts";
import { createInvoice, createTenant, type Tenant } from "../devkit/factories.ts";
import { createFilesystemStore } from "../devkit/filesystem-store.ts";
import { createApp } from "../functions/einvoicing/app.ts";
import { createReconcileApp } from "../functions/reconcile/app.ts";
import { createSandboxProvider } from "../sandbox/provider.ts";
import { buildDeps } from "../shared/compose.ts";
import { createPostgresDb } from "../shared/db/postgres-transport.ts";
import { connectPostgres, type SqlClient } from "../shared/db/sql-client.ts";
import type { FetchLike } from "../shared/providers/tax/client.ts";
import { cloneTemplate, openBenchDatabase, superuserOf } from "./database.ts";
import { type Figure, jsonPath, printFigures, writeFigures } from "./report.ts";
import { median } from "./stats.ts";

const SIZES = [10_000, 100_000, 1_000_000];
const FLAT = 1.5;
const SEQ_SCAN_ROWS = 10_000;
const SEED_CHUNK = 100_000;
/** The seeded invoices' taxes per scheme and rate, as …_amounts.sql computes them for their two lines. */
const TAX_TOTALS = JSON.stringify([
  {
    code: "01",
    name: "IVA",
    tax_amount: 19000,
    subtotals: [
      { percent: 0, taxable_amount: 10000, tax_amount: 0 },
      { percent: 19, taxable_amount: 100000, tax_amount: 19000 },
    ],
  },
]);
const RECONCILE_SECRET = "bench-reconcile-secret-0123456789abcdef";
const ISSUER = "http://supabase.test/auth/v1";
const ENV = {
  SUPABASE_URL: "http://supabase.test",
  SUPABASE_PUBLISHABLE_KEYS: JSON.stringify({ default: TEST_API_KEY }),
  EINV_DB_TRANSPORT: "embedded",
  EINV_CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
  EINV_LOG_LEVEL: "silent",
  EINV_RECONCILE_SECRET: RECONCILE_SECRET,
  EINV_RECONCILE_GRACE_SECONDS: "60",
  EINV_RECONCILE_BATCH: "25",
};

type Path = "transmit" | "credit_notes" | "representation" | "reconcile";

interface Site {
  size: number;
  db: TestDatabase;
  tenant: Tenant;
  /** Service-time samples of `calls` requests of the path (after its own warm-up). */
  run: Record<Path, (calls: number) => Promise<number[]>>;
  seedSeconds: number;
}

export async function measureScale(argv: string[]): Promise<Figure[]> {
  const sizes =
    argv
      .find((a) => a.startsWith("--sizes="))
      ?.slice("--sizes=".length)
      .split(",")
      .map(Number) ?? SIZES;
  // PostgreSQL's default shared_buffers (128 MB) is below what a production instance holding a
  // million invoices gives it; --shared-buffers=128MB measures the default
  const sharedBuffers = argv.find((a) => a.startsWith("--shared-buffers="))?.split("=")[1] ?? "1GB";
  const { label, server, stop } = await openBenchDatabase({
    poolSize: 1,
    settings: { shared_buffers: sharedBuffers },
  });
  if (!server) throw new Error("--scale needs PostgreSQL 15 (postgresql-15): PGlite is not what it is about");
  const sites: Site[] = [];
  try {
    const signer = await createLocalSigner(ISSUER);
    // one database per size, each holding one organization of that size
    for (const size of sizes) {
      const url = await cloneTemplate(server, `scale_${size}`);
      const client = await connectPostgres(url, { max: 5 });
      const db: TestDatabase = {
        engine: "postgres",
        url,
        client,
        superuser: superuserOf(client),
        close: () => client.close(),
      };
      const site = await openSite(db, size, signer, { reconcileOld: argv.includes("--reconcile-old") });
      sites.push(site);
      console.log(`  ${size.toLocaleString("en")} invoices seeded in ${site.seedSeconds.toFixed(0)} s`);
    }
    // each path once untimed everywhere (caches, JIT), then rounds that visit every size in turn, so
    // that a machine busier at one moment weighs on every size alike
    for (const site of sites) for (const path of PATHS) await site.run[path](1);
    const samples = new Map<string, number[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const site of sites) {
        for (const path of PATHS) {
          const key = `${site.size}/${path}`;
          samples.set(key, [...(samples.get(key) ?? []), ...(await site.run[path](PER_ROUND[path]))]);
        }
      }
    }
    const ms = (size: number, path: Path) => median(samples.get(`${size}/${path}`) ?? []);

    // EXPLAIN of every statement of the four paths, on the largest database
    const largest = sites.at(-1) as Site;
    const plans = await explainPaths(largest.db.url as string, largest.tenant, signer);

    const names: Record<Path, string> = {
      transmit: "/transmit of 1",
      credit_notes: "/credit-notes",
      representation: "cached /representation",
      reconcile: "one reconcile batch (25 documents)",
    };
    const figures: Figure[] = [];
    for (const site of sites) {
      for (const path of PATHS) {
        figures.push({
          id: `scale.${site.size}.${path}`,
          what: `${site.size.toLocaleString("en")} invoices: ${names[path]}, service time p50`,
          value: ms(site.size, path),
          unit: "ms",
        });
      }
    }
    const first = sites[0];
    if (first && largest !== first) {
      for (const path of PATHS) {
        figures.push({
          id: `scale.flat.${path}`,
          what: `${names[path]}: ${largest.size.toLocaleString("en")} ÷ ${first.size.toLocaleString("en")} invoices`,
          value: ms(largest.size, path) / ms(first.size, path),
          unit: "ratio",
          max: FLAT,
        });
      }
    }
    figures.push({
      id: "scale.explain.seq_scans",
      what: `statements planned (EXPLAIN) with a sequential scan of a table over ${SEQ_SCAN_ROWS.toLocaleString("en")} rows`,
      value: plans.offending.length,
      unit: "ratio",
      max: 0,
      note: `${plans.statements} plans of ${plans.distinct} distinct statements captured at ${largest.size.toLocaleString("en")} invoices`,
    });
    const rows = await Promise.all(sites.map((site) => counts(site.db)));
    printFigures(`scale — ${label}, shared_buffers ${sharedBuffers}, ${ROUNDS} interleaved rounds`, figures, [
      ...sites.map(
        (site, i) =>
          `${site.size.toLocaleString("en")} invoices: ${Object.entries(rows[i] ?? {})
            .map(([t, n]) => `${t} ${n.toLocaleString("en")}`)
            .join(", ")}; seeded in ${site.seedSeconds.toFixed(0)} s`,
      ),
      ...plans.offending.map((o) => `SEQ SCAN: ${o}`),
    ]);
    const path = jsonPath(argv, "reports/bench/scale.json");
    if (path) writeFigures(path, "scale", label, figures);
    return figures;
  } finally {
    for (const site of sites) await site.db.close().catch(() => {});
    await stop();
  }
}

const PATHS: Path[] = ["transmit", "credit_notes", "representation", "reconcile"];
const ROUNDS = 6;
const PER_ROUND: Record<Path, number> = { transmit: 10, credit_notes: 5, representation: 20, reconcile: 1 };

/** Seeds one organization of `size` invoices in `db` and builds the app that measures it. */
async function openSite(
  db: TestDatabase,
  size: number,
  signer: Awaited<ReturnType<typeof createLocalSigner>>,
  options: { reconcileOld: boolean },
): Promise<Site> {
  const sandbox = createSandboxProvider();
  let providerMs = 0;
  const providerFetch: FetchLike = async (input, init) => {
    const t0 = performance.now();
    try {
      return await sandbox.fetch(input, init);
    } finally {
      providerMs += performance.now() - t0;
    }
  };
  const deps = await buildDeps(
    { ...ENV, SUPABASE_JWKS: JSON.stringify(signer.jwks) },
    {
      db: createPostgresDb(db.client),
      providerFetch,
      resolver: async () => [PUBLIC_TEST_ADDRESS],
      documents: createFilesystemStore(
        `${process.env.TMPDIR ?? "/tmp"}/einv-scale-${size}-${Date.now()}`,
        db.client,
      ),
    },
  );
  const app = createApp(deps);
  const reconcileApp = createReconcileApp(deps);
  const tenant = await createTenant(db);
  await saveCredential(deps, tenant);
  const token = await signer.sign(tenant.operador);
  const t0 = performance.now();
  await seedInvoices(db, tenant, 0, size);
  await db.superuser("checkpoint");
  const seedSeconds = (performance.now() - t0) / 1000;

  const post = async (path: string, body: unknown) => {
    providerMs = 0;
    const t1 = performance.now();
    const response = await app.request(`/einvoicing${path}`, {
      method: "POST",
      headers: { apikey: TEST_API_KEY, "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, unknown>;
    const ms = performance.now() - t1 - providerMs;
    if (response.status !== 200) throw new Error(`${path}: HTTP ${response.status} ${JSON.stringify(json)}`);
    return { ms, json };
  };
  const [cachedId] = await fresh(db, tenant, 1);
  const representation = { org_id: tenant.org.id, invoice_id: cachedId };
  await post("/representation", representation);

  return {
    size,
    db,
    tenant,
    seedSeconds,
    run: {
      transmit: async (calls) => {
        const times: number[] = [];
        for (const id of await fresh(db, tenant, calls)) {
          const { ms, json } = await post("/transmit", { org_id: tenant.org.id, invoice_ids: [id] });
          if ((json.results as { status: string }[])[0]?.status !== "transmitida")
            throw new Error("not transmitted");
          times.push(ms);
        }
        return times;
      },
      credit_notes: async (calls) => {
        const ids = await fresh(db, tenant, calls);
        await post("/transmit", { org_id: tenant.org.id, invoice_ids: ids });
        const times: number[] = [];
        for (const id of ids) {
          const body = {
            org_id: tenant.org.id,
            invoice_id: id,
            concept_code: "2",
            reason: "Anulación (escala)",
          };
          const { ms, json } = await post("/credit-notes", body);
          if (json.status !== "emitida") throw new Error(`credit note: ${JSON.stringify(json)}`);
          times.push(ms);
        }
        return times;
      },
      representation: async (calls) => {
        const times: number[] = [];
        for (let i = 0; i < calls; i++) {
          const { ms, json } = await post("/representation", representation);
          if (json.cached !== true) throw new Error("not cached");
          times.push(ms);
        }
        return times;
      },
      reconcile: async (calls) => {
        const times: number[] = [];
        for (let i = 0; i < calls; i++) {
          // one batch: 25 documents a transmission left en_proceso an hour ago (a run takes all it
          // finds). Recent documents, as the ones reconcile finds are: --reconcile-old picks 25 of
          // the seeded history at random instead, whose pages are cold
          if (options.reconcileOld) {
            await db.superuser(
              `update public.invoices set status = 'en_proceso', lease_until = null,
                      claimed_at = now() - interval '1 hour', status_checked_at = now() - interval '1 hour'
                where id in (select id from public.invoices where org_id = $1 and status = 'error' limit 25)`,
              [tenant.org.id],
            );
          } else {
            const ids = await fresh(db, tenant, 25);
            await db.superuser(
              `update public.invoices set status = 'en_proceso', environment = 'uat', attempt_count = 1,
                      submitted_attempt = 1, issuer_snapshot = einv_private.issuer_of(company_id),
                      claimed_at = now() - interval '1 hour', status_checked_at = now() - interval '1 hour'
                where id = any ($1::uuid[])`,
              [`{${ids.join(",")}}`],
            );
          }
          providerMs = 0;
          const t1 = performance.now();
          const response = await reconcileApp.request("/reconcile", {
            method: "POST",
            headers: { authorization: `Bearer ${RECONCILE_SECRET}` },
          });
          const body = (await response.json()) as { settled?: number };
          if (response.status !== 200 || body.settled !== 25) {
            throw new Error(`reconcile: HTTP ${response.status} ${JSON.stringify(body)}`);
          }
          times.push(performance.now() - t1 - providerMs);
        }
        return times;
      },
    },
  };
}

/** `n` pending invoices of the tenant's company, made by the tests' factory (fresh ids). */
async function fresh(db: TestDatabase, tenant: Tenant, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 5) {
    const made = await Promise.all(
      Array.from({ length: Math.min(5, n - i) }, () => createInvoice(db, tenant.org, tenant.company)),
    );
    ids.push(...made.map((m) => m.id));
  }
  return ids;
}

/**
 * Grows the tenant's organization from `from` to `to` seeded invoices, in chunks, with the triggers
 * off (session_replication_role = replica: the rows are consistent by construction). Per invoice n:
 * two lines and three events; 90 % transmitida, 6 % error, 4 % pendiente, none en_proceso (in the
 * steady state reconcile settles those within minutes: what it costs grows with how many are open,
 * not with the history, see docs/scaling.md); every 20th transmitted one has an `emitida` credit note of its
 * first line; every 5th a stored representation. Numbers 1xxxxxxxx, outside the factory's range.
 */
export async function seedInvoices(
  db: TestDatabase,
  tenant: Tenant,
  from: number,
  to: number,
): Promise<void> {
  const url = db.url as string;
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe("set session_replication_role = replica");
    const [row] = await sql.unsafe("select einv_private.issuer_of($1)::text as issuer", [tenant.company.id]);
    const issuer = row?.issuer as string;
    for (let start = from + 1; start <= to; start += SEED_CHUNK) {
      const end = Math.min(to, start + SEED_CHUNK - 1);
      await sql.begin(async (tx) => {
        await tx.unsafe(
          `insert into public.invoices (id, org_id, company_id, number, issue_date, issue_time, currency,
             buyer_id_type, buyer_id_number, buyer_check_digit, buyer_name, buyer_email, buyer_address,
             buyer_city_code, subtotal, tax_total, total, tax_exclusive_amount, tax_inclusive_amount,
             net_payable_amount, tax_totals, status, authority_code, qr_text, provider_reference,
             environment, last_message, attempt_count, submitted_attempt, issuer_snapshot, claimed_at,
             transmitted_at, status_checked_at, lease_until)
           select md5($1 || n)::uuid, $2::uuid, $3::uuid, 'SETP' || (100000000 + n), date '2026-01-01' + (n % 300),
                  time with time zone '10:15:00-05', 'COP', '31', (860000000 + n % 100000)::text,
                  einv_private.nit_check_digit((860000000 + n % 100000)::text),
                  'Cliente ' || n, 'cliente' || n || '@cliente.test', 'Avenida 68 # 1-' || n % 100, '11001',
                  110000, 19000, 129000, 110000, 129000, 129000, $5::jsonb, s.status,
                  case when s.status = 'transmitida' then encode(sha384(convert_to('scale-' || n, 'UTF8')), 'hex') end,
                  case when s.status = 'transmitida' then 'https://qr.test/' || n end,
                  case when s.status <> 'pendiente' then 'sandbox-' || n end,
                  case when s.status <> 'pendiente' then 'uat' end,
                  case s.status when 'transmitida' then 'accepted by the authority' when 'error' then 'Rechazo FAD06'
                                when 'en_proceso' then 'sent; waiting for the authority' end,
                  case when s.status = 'pendiente' then 0 else 1 end,
                  case when s.status = 'pendiente' then null else 1 end,
                  case when s.status = 'pendiente' then null else $4::jsonb end,
                  case when s.status = 'en_proceso' then now()
                       when s.status <> 'pendiente' then now() - interval '1 hour' end,
                  case when s.status = 'transmitida' then now() - interval '1 hour' end,
                  case when s.status in ('transmitida', 'error') then now() - interval '1 hour' end,
                  case when s.status = 'en_proceso' then now() + interval '1 day' end
             from generate_series($6::int, $7::int) n
            cross join lateral (select case when n % 100 < 90 then 'transmitida' when n % 100 < 96 then 'error'
                                            else 'pendiente' end as status) s`,
          [
            `scale-invoice-${tenant.org.id}-`,
            tenant.org.id,
            tenant.company.id,
            issuer,
            TAX_TOTALS,
            start,
            end,
          ],
        );
        // with the triggers off, the amounts …_amounts.sql would compute are written as they come out
        await tx.unsafe(
          `insert into public.invoice_lines (id, invoice_id, org_id, position, code, description, quantity,
             unit_price, taxes, price_amount, line_extension, tax_amount, tax_subtotals)
           select md5($1 || n || '-' || p)::uuid, md5($2 || n)::uuid, $3::uuid, p,
                  case p when 1 then 'SRV-01' else 'LIB-07' end,
                  case p when 1 then 'Servicio de consultoría' else 'Libro técnico (exento)' end,
                  case p when 1 then 2 else 1 end, case p when 1 then 50000 else 10000 end,
                  jsonb_build_array(jsonb_build_object('code', '01', 'percent', case p when 1 then 19 else 0 end)),
                  case p when 1 then 50000 else 10000 end, case p when 1 then 100000 else 10000 end,
                  case p when 1 then 19000 else 0 end,
                  jsonb_build_array(jsonb_build_object('code', '01', 'name', 'IVA', 'percent', case p when 1 then 19 else 0 end,
                    'taxable_amount', case p when 1 then 100000 else 10000 end, 'tax_amount', case p when 1 then 19000 else 0 end))
             from generate_series($4::int, $5::int) n, generate_series(1, 2) p`,
          [`scale-line-${tenant.org.id}-`, `scale-invoice-${tenant.org.id}-`, tenant.org.id, start, end],
        );
        await tx.unsafe(
          `insert into public.events (org_id, document_type, document_id, kind, actor_id, data, created_at)
           select $1::uuid, 'invoice', md5($2 || n)::uuid, e.kind, null, jsonb_build_object('attempt', 1),
                  now() - interval '1 hour'
             from generate_series($3::int, $4::int) n
            cross join (values ('transmit_claimed'), ('transmit_attempt'), ('status_refreshed')) e (kind)`,
          [tenant.org.id, `scale-invoice-${tenant.org.id}-`, start, end],
        );
        await tx.unsafe(
          `with notes as (
             insert into public.credit_notes (id, org_id, company_id, invoice_id, number, issue_date, issue_time,
               concept_code, reason, currency, subtotal, tax_total, total, status, authority_code, environment,
               last_message, attempt_count, submitted_attempt, issuer_snapshot, claimed_at, transmitted_at)
             select md5($1 || n)::uuid, $2::uuid, $3::uuid, md5($4 || n)::uuid, 'NC' || (100000000 + n),
                    date '2026-11-01', time with time zone '09:30:00-05', '1', 'Devolución parcial', 'COP',
                    100000, 19000, 119000, 'emitida', encode(sha384(convert_to('scale-note-' || n, 'UTF8')), 'hex'),
                    'uat', 'accepted by the authority', 1, 1, $5::jsonb, now() - interval '1 hour',
                    now() - interval '1 hour'
               from generate_series($6::int, $7::int) n
              where n % 100 < 90 and n % 20 = 0
             returning id, invoice_id)
           insert into public.credit_note_lines (credit_note_id, org_id, invoice_line_id, position, code,
             description, unit_code, quantity, unit_price, line_extension, tax_subtotals, tax_amount,
             credited_quantity)
           select n.id, $2::uuid, l.id, 1, l.code, l.description, l.unit_code, l.quantity, l.price_amount,
                  l.line_extension, l.tax_subtotals, l.tax_amount, l.quantity
             from notes n join public.invoice_lines l on l.invoice_id = n.invoice_id and l.position = 1`,
          [
            `scale-note-${tenant.org.id}-`,
            tenant.org.id,
            tenant.company.id,
            `scale-invoice-${tenant.org.id}-`,
            issuer,
            start,
            end,
          ],
        );
        await tx.unsafe(
          `insert into public.representations (org_id, document_type, document_id, path, filename, fingerprint,
             stamped, renderer, generated_at)
           select $1::uuid, 'invoice', md5($2 || n)::uuid, $1 || '/invoices/' || md5($2 || n)::uuid || '/f.pdf',
                  'f.pdf', md5('fp' || n), n % 100 < 90, 'builtin', now() - interval '1 hour'
             from generate_series($3::int, $4::int) n where n % 5 = 0`,
          [tenant.org.id, `scale-invoice-${tenant.org.id}-`, start, end],
        );
      });
    }
    await sql.unsafe("vacuum analyze");
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function counts(db: TestDatabase): Promise<Record<string, number>> {
  const rows = await db.superuser<{ name: string; n: string }>(
    `select c.relname as name, c.reltuples::bigint::text as n from pg_class c
      where c.relnamespace = 'public'::regnamespace and c.relkind = 'r'
        and c.relname in ('invoices', 'invoice_lines', 'events', 'credit_notes', 'credit_note_lines', 'representations')
      order by c.relname`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.n)]));
}

/**
 * Runs each path once through an app whose database is one connection with auto_explain logging
 * the plan of every statement, nested ones included, and collects the plans that scan a big table
 * sequentially.
 */
async function explainPaths(
  url: string,
  tenant: Tenant,
  signer: Awaited<ReturnType<typeof createLocalSigner>>,
): Promise<{ statements: number; distinct: number; offending: string[] }> {
  const plans: string[] = [];
  const sql = postgres(url, {
    max: 1,
    prepare: false,
    onnotice: (notice) => {
      const message = String(notice.message ?? "");
      if (notice.severity === "LOG" && /plan:/.test(message)) plans.push(message);
    },
  });
  await sql.unsafe(
    `load 'auto_explain'; set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on;
     set auto_explain.log_level = log; set client_min_messages = log`,
  );
  const client: SqlClient = {
    exec: async (script) => {
      await sql.unsafe(script).simple();
    },
    script: async (statements) => {
      const results = (await sql.unsafe(statements).simple()) as unknown[];
      return (Array.isArray(results[0]) ? results.at(-1) : results) as never;
    },
    transaction: (work) =>
      sql.begin((tx) =>
        work({ query: async (text, params = []) => (await tx.unsafe(text, params as never[])) as never }),
      ) as never,
    close: () => sql.end({ timeout: 5 }),
  };
  const big = new Set(
    (
      await sql.unsafe(
        `select c.relname from pg_class c where c.relkind = 'r' and c.reltuples > ${SEQ_SCAN_ROWS}`,
      )
    ).map((r) => r.relname as string),
  );
  // the same app, its database API calls on the explaining connection
  const sandbox = createSandboxProvider();
  const deps = await buildDeps(
    { ...ENV, SUPABASE_JWKS: JSON.stringify(signer.jwks) },
    {
      db: createPostgresDb(client),
      providerFetch: (input, init) => sandbox.fetch(input, init),
      resolver: async () => [PUBLIC_TEST_ADDRESS],
      documents: createFilesystemStore(
        `${process.env.TMPDIR ?? "/tmp"}/einv-scale-explain-${Date.now()}`,
        client,
      ),
    },
  );
  const app = createApp(deps);
  const reconcileApp = createReconcileApp(deps);
  const token = await signer.sign(tenant.operador);
  const factoryDb: TestDatabase = {
    engine: "postgres",
    url,
    client,
    superuser: superuserOf(client),
    close: () => client.close(),
  };
  const [a = "", b = "", c = ""] = await fresh(factoryDb, tenant, 3);
  plans.length = 0; // only the paths' statements, not the fixtures'
  const post = (path: string, body: unknown) =>
    app.request(`/einvoicing${path}`, {
      method: "POST",
      headers: { apikey: TEST_API_KEY, "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
  await post("/transmit", { org_id: tenant.org.id, invoice_ids: [a, b] });
  await post("/credit-notes", { org_id: tenant.org.id, invoice_id: b, concept_code: "2", reason: "EXPLAIN" });
  await post("/representation", { org_id: tenant.org.id, invoice_id: c });
  await post("/representation", { org_id: tenant.org.id, invoice_id: c });
  await reconcileApp.request("/reconcile", {
    method: "POST",
    headers: { authorization: `Bearer ${RECONCILE_SECRET}` },
  });
  await client.close();

  const offending: string[] = [];
  const distinct = new Set<string>();
  for (const plan of plans) {
    const query = /Query Text: ([\s\S]*?)\n[A-Z][a-zA-Z ]+ {2}\(cost|Query Text: ([^\n]*)/.exec(plan);
    const text = (query?.[1] ?? query?.[2] ?? plan).replace(/\s+/g, " ").trim();
    distinct.add(text);
    for (const match of plan.matchAll(/Seq Scan on (\w+)/g)) {
      if (big.has(match[1] as string)) offending.push(`${match[1]}: ${text.slice(0, 160)}`);
    }
  }
  return { statements: plans.length, distinct: distinct.size, offending: [...new Set(offending)] };
}
