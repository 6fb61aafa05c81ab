/**
 * `DATABASE_URL=… npm start` on a fresh PostgreSQL database, as the README tells a developer to run
 * it: the local server (scripts/local/serve.ts under Deno) applies the bootstrap, the migrations and
 * the seed through a pooled postgres.js client, serves the function, and a second start applies
 * nothing. Also the migration runner itself, on this run's engine: a script of several statements is
 * one transaction, a failed migration leaves nothing behind, and the bootstrap runs once.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { schemaFiles } from "../../devkit/schema.ts";
import { migrate } from "../../scripts/db/migrate.ts";
import { connectPostgres, fromPGlite, type SqlClient } from "../../shared/db/sql-client.ts";
import {
  createFreshDatabase,
  type FreshDatabase,
  type LocalServer,
  removeDataDir,
  startLocalServer,
} from "../support/local-server.ts";

const target = inject("database");
const onPostgres = target.kind === "postgres";
let fresh: FreshDatabase | undefined;
let dataDir = "";

beforeAll(async () => {
  if (target.kind !== "postgres") return;
  fresh = await createFreshDatabase(target.adminUrl);
  dataDir = await mkdtemp(join(tmpdir(), "einv-local-"));
});
afterAll(async () => {
  await fresh?.drop();
  if (dataDir) await removeDataDir(dataDir);
});

const startLocal = () => startLocalServer(fresh?.url ?? "", { dataDir });

describe.skipIf(!onPostgres)("DATABASE_URL=… npm start on a fresh database", () => {
  it("migrates and seeds it, transmits the demo invoices, and starts again without migrating", async () => {
    let server: LocalServer = await startLocal();
    try {
      expect(server.output()).toMatch(
        /database: DATABASE_URL; [1-9][0-9]* migration\(s\) applied, demo data seeded/,
      );
      const local = await server.local();
      const operador = local.users.find((u) => u.role === "operador");
      if (!operador) throw new Error("the seed has no operador");
      const pending = local.invoices.filter((i) => i.status === "pendiente" && i.org_id === operador.org_id);
      expect(pending.length).toBeGreaterThanOrEqual(2);
      // local.json's base_url is the functions root, as the contract's {base_url}
      expect(local.base_url).toBe(`${server.baseUrl}/functions`);
      const response = await fetch(`${local.base_url}/v1/einvoicing/transmit`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${operador.access_token}`,
          apikey: local.apikey,
          "content-type": "application/json",
        },
        body: JSON.stringify({
          org_id: operador.org_id,
          invoice_ids: pending.slice(0, 2).map((i) => i.id),
        }),
      });
      expect(response.status).toBe(200);
      const { results } = await response.json();
      expect(results.map((r: { status: string }) => r.status)).toEqual(["transmitida", "transmitida"]);

      // the reconcile function, opened by the secret local.json names, settles the demo's open ones
      const reconcile = await fetch(local.reconcile.url, {
        method: "POST",
        headers: { authorization: `Bearer ${local.reconcile.secret}` },
      });
      expect(reconcile.status).toBe(200);
      expect(await reconcile.json()).toMatchObject({
        run_id: expect.any(String),
        picked: expect.any(Number),
      });
      expect((await fetch(local.reconcile.url, { method: "POST" })).status).toBe(401);
    } finally {
      await server.stop();
    }

    server = await startLocal();
    try {
      expect(server.output()).toMatch(/database: DATABASE_URL; 0 migration\(s\) applied\b/);
      expect(server.output()).not.toMatch(/seeded/);
    } finally {
      await server.stop();
    }
  }, 120_000);
});

describe("a script of several statements (how each migration is applied)", () => {
  async function isAtomic(client: SqlClient): Promise<boolean> {
    await expect(
      client.exec(
        "create table public.half_done (x int);\ninsert into public.half_done values (1);\nselect 1 / 0;",
      ),
    ).rejects.toThrow(/division by zero/);
    const [row] = await client.transaction((s) =>
      s.query<{ exists: boolean }>("select to_regclass('public.half_done') is not null as exists"),
    );
    return row?.exists === false;
  }

  it.skipIf(!onPostgres)("is one transaction through a pooled postgres.js client", async () => {
    const client = await connectPostgres(fresh?.url ?? "", { max: 4 });
    try {
      expect(await isAtomic(client)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("is one transaction on PGlite", async () => {
    const { PGlite } = await import("@electric-sql/pglite");
    const client = fromPGlite(await PGlite.create());
    try {
      expect(await isAtomic(client)).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe("migrate() on a fresh database", () => {
  /** A client on an empty database of this run's engine, and a way to drop it. */
  async function freshClient(): Promise<{ client: SqlClient; drop(): Promise<void> }> {
    if (target.kind === "postgres") {
      const fresh = await createFreshDatabase(target.adminUrl);
      const client = await connectPostgres(fresh.url, { max: 4 });
      return {
        client,
        drop: async () => {
          await client.close();
          await fresh.drop();
        },
      };
    }
    const { PGlite } = await import("@electric-sql/pglite");
    const client = fromPGlite(await PGlite.create());
    return { client, drop: () => client.close() };
  }

  const query = <R>(client: SqlClient, sql: string) => client.transaction((s) => s.query<R>(sql));

  it("leaves nothing of a migration that fails midway, then applies it once fixed, and seeds", async () => {
    const { client, drop } = await freshClient();
    try {
      const files = await schemaFiles({ seed: true });
      const broken = {
        name: "migrations/20991231000000_broken.sql",
        sql: "create table public.half_done (x int);\nselect 1 / 0;",
      };
      const fixed = { ...broken, sql: "create table public.half_done (x int);" };
      await expect(migrate(client, { seed: true, files: [...files, broken] })).rejects.toThrow(
        /migration migrations\/20991231000000_broken.sql failed: division by zero/,
      );
      const [after] = await query<{ table: boolean; recorded: boolean }>(
        client,
        `select to_regclass('public.half_done') is not null as table,
                exists (select 1 from supabase_migrations.schema_migrations where version = '20991231000000') as recorded`,
      );
      expect(after).toEqual({ table: false, recorded: false });

      const report = await migrate(client, { seed: true, files: [...files, fixed] });
      expect(report).toEqual({ applied: [fixed.name], seeded: true });
      const [orgs] = await query<{ n: number }>(
        client,
        "select count(*)::int as n from public.organizations",
      );
      expect(orgs?.n).toBeGreaterThan(0);
      expect(await migrate(client, { seed: true, files: [...files, fixed] })).toEqual({
        applied: [],
        seeded: false,
      });
    } finally {
      await drop();
    }
  }, 60_000);

  it("runs the bootstrap once: a second start does not hand the API roles sequences again", async () => {
    const { client, drop } = await freshClient();
    try {
      await migrate(client, { seed: false });
      await migrate(client, { seed: false });
      await client.exec("create sequence public.made_later_seq");
      const [row] = await query<{ anon: boolean; authenticated: boolean }>(
        client,
        `select has_sequence_privilege('anon', 'public.made_later_seq', 'UPDATE') as anon,
                has_sequence_privilege('authenticated', 'public.made_later_seq', 'UPDATE') as authenticated`,
      );
      expect(row).toEqual({ anon: false, authenticated: false });
    } finally {
      await drop();
    }
  }, 60_000);
});
