/**
 * The migrations applied as a hosted Supabase project applies them (devkit/hosted.ts): by `postgres`
 * without superuser (BYPASSRLS, the grants Supabase gives it on auth, storage, realtime and vault),
 * on Supabase's tables owned as the platform owns them, one transaction per file, supautils'
 * `policy_grants` stood in for — on a cluster of its own whose superuser is `supabase_admin`. Every
 * other database suite applies them as a superuser, which cannot see any of this.
 *
 * Also: where supabase/compat/bootstrap.sql differs from the platform, as its header says.
 */
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import {
  createHostedDatabase,
  type HostedOptions,
  PLATFORM_POLICY_GRANTS,
  pushAsHostedPostgres,
  realtimeConnects,
  sqlStatements,
} from "../../devkit/hosted.ts";
import {
  findPostgresBinaries,
  type PostgresServer,
  startPostgresServer,
} from "../../devkit/postgres-server.ts";
import { type SchemaFile, schemaFiles } from "../../devkit/schema.ts";
import { actualGrants, actualPolicies } from "./privileges-catalog.ts";

const onPostgres = inject("database").kind === "postgres";
let cluster: PostgresServer | undefined;
let migrations: SchemaFile[] = [];
const opened: postgres.Sql[] = [];

beforeAll(async () => {
  migrations = (await schemaFiles()).filter((f) => f.name.startsWith("migrations/"));
  if (!onPostgres) return;
  const bindir = await findPostgresBinaries();
  if (!bindir) throw new Error("PostgreSQL 15 binaries not found");
  cluster = await startPostgresServer(bindir, {}, { superuser: "supabase_admin", template: false });
}, 120_000);
afterAll(async () => {
  await Promise.all(opened.map((sql) => sql.end({ timeout: 5 })));
  await cluster?.stop();
});

/** The realtime migration: the last one, and the only one about Realtime. */
const isRealtime = (f: SchemaFile) => /_realtime\.sql$/.test(f.name);
/** supautils as the platform configures it, but without realtime.messages (supabase/cli#6116's project). */
const WITHOUT_REALTIME_GRANT = PLATFORM_POLICY_GRANTS.filter((t) => t !== "realtime.messages");

let databases = 0;
/** A new hosted project's database; answers its superuser client (for looking, never for applying). */
async function hostedProject(options: HostedOptions = {}): Promise<{ url: string; sql: postgres.Sql }> {
  const url = await createHostedDatabase(cluster?.adminUrl ?? "", `hosted_${++databases}`, options);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  opened.push(sql);
  return { url, sql };
}

/** A status change's event, written as `postgres` (the owner of the triggers that write them). */
async function statusChange(sql: postgres.Sql, orgId: string): Promise<void> {
  await sql.begin(async (tx) => {
    await tx.unsafe("set local role postgres");
    await tx.unsafe(
      "select einv_private.emit_event('invoice', $1::uuid, gen_random_uuid(), 'transmitida', 'accepted')",
      [orgId],
    );
  });
}
const broadcasts = async (sql: postgres.Sql, orgId: string) =>
  (await sql`select count(*)::int as n from realtime.messages where topic = ${`org:${orgId}:documents`}`)[0]
    ?.n;
const events = async (sql: postgres.Sql, orgId: string) =>
  (await sql`select count(*)::int as n from einv_private.outbox where org_id = ${orgId}`)[0]?.n;
const history = async (sql: postgres.Sql) =>
  (await sql`select count(*)::int as n from supabase_migrations.schema_migrations`)[0]?.n;

describe.skipIf(!onPostgres)("the migrations, applied as a hosted project's postgres", () => {
  it("runs as the platform's postgres: no superuser, BYPASSRLS, owning none of Supabase's tables", async () => {
    const { sql } = await hostedProject();
    const [role] = await sql`select rolsuper, rolbypassrls from pg_roles where rolname = 'postgres'`;
    expect(role).toEqual({ rolsuper: false, rolbypassrls: true });
    const owners = await sql`
      select c.oid::regclass::text as name, pg_get_userbyid(c.relowner) as owner,
             pg_has_role('postgres', c.relowner, 'member') as postgres_is_owner
        from pg_class c where c.oid in ('auth.users'::regclass, 'storage.objects'::regclass,
                                        'storage.buckets'::regclass, 'realtime.messages'::regclass)
       order by 1`;
    expect(owners).toEqual([
      { name: "auth.users", owner: "supabase_auth_admin", postgres_is_owner: false },
      { name: "realtime.messages", owner: "supabase_realtime_admin", postgres_is_owner: false },
      { name: "storage.buckets", owner: "supabase_storage_admin", postgres_is_owner: false },
      { name: "storage.objects", owner: "supabase_storage_admin", postgres_is_owner: false },
    ]);
    // and without the stand-in for supautils, a policy on realtime.messages is refused to it
    const refused = await sql
      .begin(async (tx) => {
        await tx.unsafe("set local role postgres");
        await tx.unsafe("create policy p on realtime.messages for select using (true)");
      })
      .catch((error: { code?: string; message?: string }) => `${error.code}: ${error.message}`);
    expect(refused).toBe("42501: must be owner of table messages");
  });

  it("applies every migration where supautils lets postgres manage the platform's policies, as on the platform", async () => {
    const { url, sql } = await hostedProject();
    const pushed = await pushAsHostedPostgres(url, migrations);
    expect(pushed).toEqual({ applied: migrations.map((f) => f.name) });
    expect(await history(sql)).toBe(migrations.length);

    // the same objects, grants and policies as the superuser's schema every other suite tests
    const reference: TestDatabase = await createTestDatabase();
    try {
      const hosted = {
        superuser: (text: string, params: unknown[] = []) => sql.unsafe(text, params as never[]),
      } as unknown as TestDatabase;
      expect(await actualGrants(hosted)).toEqual(await actualGrants(reference));
      expect(await actualPolicies(hosted)).toEqual(await actualPolicies(reference));
    } finally {
      await reference.close();
    }

    // a status change broadcasts as postgres, with the grants Realtime gives it (realtime.send turns
    // a refused insert into a warning, so nothing else would show a missing grant)
    const org = crypto.randomUUID();
    await statusChange(sql, org);
    expect(await broadcasts(sql, org)).toBe(1);
  });

  it("where postgres may not create policies on realtime.messages (supabase/cli#6116): every migration but Realtime's applies; the fallback completes it", async () => {
    const { url, sql } = await hostedProject();
    const pushed = await pushAsHostedPostgres(url, migrations, { policyGrants: WITHOUT_REALTIME_GRANT });
    expect(pushed.applied).toEqual(migrations.filter((f) => !isRealtime(f)).map((f) => f.name));
    expect(pushed.failed).toMatchObject({
      file: migrations.at(-1)?.name,
      code: "42501",
      message: "must be owner of table messages",
    });
    // not recorded: the next push tries it again; and nothing of it is applied, nothing before undone
    expect(await history(sql)).toBe(migrations.length - 1);
    const org = crypto.randomUUID();
    await statusChange(sql, org);
    expect({ events: await events(sql, org), broadcasts: await broadcasts(sql, org) }).toEqual({
      events: 1,
      broadcasts: 0,
    });
    expect(await sql`select 1 from pg_policies where schemaname = 'realtime'`).toEqual([]);

    // docs/deploying.md's fallback: the file's SQL run where policies on realtime.messages are allowed
    // (supabase/cli#6116: the SQL editor, as postgres), then `supabase migration repair --status applied`
    const realtime = migrations.filter(isRealtime);
    const fallback = await pushAsHostedPostgres(url, realtime, { policyGrants: PLATFORM_POLICY_GRANTS });
    expect(fallback).toEqual({ applied: realtime.map((f) => f.name) });
    expect(await history(sql)).toBe(migrations.length);
    await statusChange(sql, org);
    expect(await broadcasts(sql, org)).toBe(1);
  });

  it("with the Realtime policies back inside the events migration, that push loses the events migration whole", async () => {
    const { url, sql } = await hostedProject();
    const realtime = migrations.find(isRealtime) as SchemaFile;
    const merged = migrations
      .filter((f) => !isRealtime(f))
      .map((f) => (/_events\.sql$/.test(f.name) ? { ...f, sql: `${f.sql}\n${realtime.sql}` } : f));
    const pushed = await pushAsHostedPostgres(url, merged, { policyGrants: WITHOUT_REALTIME_GRANT });
    expect(pushed.failed).toMatchObject({ file: expect.stringMatching(/_events\.sql$/), code: "42501" });
    // the outbox, the webhooks and everything after went with it
    expect(await sql`select to_regclass('einv_private.outbox')::text as t`).toEqual([{ t: null }]);
  });

  it("on a new project whose Realtime has not connected yet: every migration but Realtime's applies, which says what to do, and applies once Realtime has", async () => {
    const { url, sql } = await hostedProject({ realtime: false });
    const pushed = await pushAsHostedPostgres(url, migrations);
    expect(pushed.applied).toEqual(migrations.filter((f) => !isRealtime(f)).map((f) => f.name));
    expect(pushed.failed).toMatchObject({
      file: migrations.at(-1)?.name,
      code: "P0001",
      message: expect.stringMatching(/^Realtime has not set up this project's realtime schema yet/),
      hint: expect.stringContaining("run db push again"),
    });
    // status changes work meanwhile: their events and webhooks, no broadcast
    const org = crypto.randomUUID();
    await statusChange(sql, org);
    expect(await events(sql, org)).toBe(1);

    await realtimeConnects(url);
    const again = await pushAsHostedPostgres(url, migrations);
    expect(again).toEqual({ applied: migrations.filter(isRealtime).map((f) => f.name) });
    await statusChange(sql, org);
    expect(await broadcasts(sql, org)).toBe(1);
  });

  it("reads Vault's secrets and rotates one only by its id, as supabase/schedule/reconcile.sql does", async () => {
    const { sql } = await hostedProject();
    const asPostgres = (text: string) =>
      sql.begin(async (tx) => {
        await tx.unsafe("set local role postgres");
        return tx.unsafe(text);
      });
    await asPostgres("select vault.create_secret('old', 'einv_reconcile_secret')");
    await asPostgres(`select vault.update_secret(
      (select id from vault.secrets where name = 'einv_reconcile_secret'), 'new')`);
    expect(
      await asPostgres(
        "select decrypted_secret from vault.decrypted_secrets where name = 'einv_reconcile_secret'",
      ),
    ).toEqual([{ decrypted_secret: "new" }]);
    const direct = await asPostgres("update vault.secrets set secret = 'x'").catch(
      (error: { code?: string }) => error.code,
    );
    expect(direct).toBe("42501");
  });
});

describe("the Realtime migration", () => {
  it("is the last, and the only one whose statements name the realtime schema", () => {
    const naming = migrations
      .filter((f) => sqlStatements(f.sql).some((statement) => /\brealtime\./i.test(statement)))
      .map((f) => f.name);
    expect(naming).toEqual([migrations.at(-1)?.name]);
    expect(migrations.at(-1)?.name).toMatch(/_realtime\.sql$/);
  });
});

describe("supabase/compat/bootstrap.sql, where it differs from the platform (its header)", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db?.close());

  it("realtime.messages: no binary_payload column, a default partition, nothing granted to postgres", async () => {
    const columns = await db.superuser<{ name: string }>(
      `select attname as name from pg_attribute
        where attrelid = 'realtime.messages'::regclass and attnum > 0 and not attisdropped order by attnum`,
    );
    expect(columns.map((c) => c.name)).not.toContain("binary_payload");
    expect(columns.map((c) => c.name)).toEqual(
      expect.arrayContaining(["topic", "extension", "payload", "event", "private", "inserted_at", "id"]),
    );
    const partitions = await db.superuser<{ name: string; bound: string }>(
      `select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound from pg_inherits i
         join pg_class c on c.oid = i.inhrelid where i.inhparent = 'realtime.messages'::regclass`,
    );
    expect(partitions).toEqual([{ name: "messages_default", bound: "DEFAULT" }]);
    const [acl] = await db.superuser<{ grantees: string[] }>(
      `select array(select distinct pg_get_userbyid(a.grantee) from pg_class c, aclexplode(c.relacl) a
                     where c.oid = 'realtime.messages'::regclass order by 1) as grantees`,
    );
    expect(acl?.grantees).not.toContain("postgres");
    expect(
      await db.superuser("select to_regprocedure('realtime.send_binary(bytea, text, text, boolean)') as f"),
    ).toEqual([{ f: null }]);
  });

  it("storage.objects: fewer columns than Storage's (no version, no user_metadata)", async () => {
    const columns = await db.superuser<{ name: string }>(
      `select attname as name from pg_attribute
        where attrelid = 'storage.objects'::regclass and attnum > 0 and not attisdropped order by attnum`,
    );
    // supabase/storage migrations/tenant/0014-add-version.sql, 0025-custom-metadata.sql
    expect(columns.map((c) => c.name)).not.toEqual(expect.arrayContaining(["version"]));
    expect(columns.map((c) => c.name)).not.toEqual(expect.arrayContaining(["user_metadata"]));
  });

  it("owns Supabase's tables as the platform does", async () => {
    const owners = await db.superuser<{ name: string; owner: string }>(
      `select c.oid::regclass::text as name, pg_get_userbyid(c.relowner) as owner from pg_class c
        where c.oid in ('auth.users'::regclass, 'storage.objects'::regclass, 'storage.buckets'::regclass,
                        'realtime.messages'::regclass) order by 1`,
    );
    expect(owners).toEqual([
      { name: "auth.users", owner: "supabase_auth_admin" },
      { name: "realtime.messages", owner: "supabase_realtime_admin" },
      { name: "storage.buckets", owner: "supabase_storage_admin" },
      { name: "storage.objects", owner: "supabase_storage_admin" },
    ]);
  });
});
