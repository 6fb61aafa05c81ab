/**
 * One contract, two transports: the same database API calls through the direct `postgres`
 * transport and through supabase-js (`supabase` transport) against a PostgREST stand-in, both on
 * the real SQL. Any difference in results, grants or error mapping fails here.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Tenant, type User } from "../../devkit/factories.ts";
import { connectPostgres, type SqlClient } from "../../shared/db/sql-client.ts";
import {
  DatabaseUnavailableError,
  ForbiddenError,
  InvalidStateError,
  NotFoundError,
  toApiError,
} from "../../shared/kernel/errors.ts";
import type { Caller, Db } from "../../shared/ports/db/port.ts";
import { createTransports, TRANSPORTS, type Transports } from "../support/transports.ts";

let db: TestDatabase;
let tenant: Tenant;
let other: Tenant;
let transports: Transports["db"];
let callerOf: (user: User) => Promise<Caller>;
/** The direct transport's client as a deployment opens it (shared/compose.ts): no array types. */
let direct: SqlClient | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  [tenant, other] = await Promise.all([createTenant(db), createTenant(db)]);
  direct = db.url ? await connectPostgres(db.url, { max: 4, arrayTypes: false }) : undefined;
  ({ db: transports, callerOf } = await createTransports(db.client, {
    name: "contract",
    ...(direct ? { direct } : {}),
  }));
});
afterAll(async () => {
  await direct?.close();
  await db?.close();
});

// The deployed `postgres` transport's client does not fetch the database's array types on connecting
// (shared/compose.ts): it is only right while every function it calls answers a scalar it parses
// without them.
it("every public einv_ function answers jsonb, boolean or nothing: no array the transport would read as text", async () => {
  const answers = await db.client.script<{ fn: string; answers: string }>(
    `select p.proname as fn, format_type(p.prorettype, null) || case when p.proretset then ' (a set)' else '' end as answers
       from pg_proc p where p.pronamespace = 'public'::regnamespace and p.proname like 'einv\\_%'
        and (p.proretset or format_type(p.prorettype, null) not in ('jsonb', 'boolean', 'void'))`,
  );
  expect(answers).toEqual([]);
});

/** A credential save of the tenant's company, its key sealed elsewhere (the database only stores it). */
const saveArgs = (of: Tenant, service: string, environment: string) => ({
  p_org_id: of.org.id,
  p_company_id: of.company.id,
  p_service: service,
  p_environment: environment,
  p_url: "https://provider.example/v1",
  p_settings: {},
  p_api_key_ciphertext: "v1:aaaa:bbbb",
  p_api_key_hint: "wxyz",
  p_key_id: "0123456789abcdef",
  p_key_source: "given" as const,
  p_message: "accepted",
  p_actor_id: null,
});

describe.each(TRANSPORTS)("the %s transport", (name) => {
  const transport = (): Db => transports[name];

  it("returns the caller's membership, and null in an organization the caller is not in", async () => {
    const caller = await callerOf(tenant.operador);
    const user = transport().asUser(caller);
    expect(await user.call("einv_caller_membership", { p_org_id: tenant.org.id })).toEqual({
      org_id: tenant.org.id,
      user_id: tenant.operador.id,
      role: "operador",
    });
    expect(await user.call("einv_caller_membership", { p_org_id: other.org.id })).toBeNull();
  });

  it("refuses a service-only function to a user", async () => {
    const user = transport().asUser(await callerOf(tenant.admin));
    const call = user.call("einv_credential_get", {
      p_org_id: tenant.org.id,
      p_company_id: tenant.company.id,
      p_service: "adapter-tax",
      p_environment: "uat",
    });
    await expect(call).rejects.toBeInstanceOf(ForbiddenError);
  });

  it("passes jsonb arguments and returns jsonb results unchanged", async () => {
    const saved = await transport()
      .asService()
      .call("einv_integration_save", {
        ...saveArgs(tenant, "docsgen", "uat"),
        p_url: "https://docs.example/v1",
        p_settings: { template: "clásico", copies: 2, nested: { ok: true } },
        p_actor_id: tenant.admin.id,
      });
    expect(saved).toMatchObject({
      company_id: tenant.company.id,
      settings: { template: "clásico", copies: 2, nested: { ok: true } },
      api_key_hint: "wxyz",
    });
    expect(saved).not.toHaveProperty("api_key_ciphertext");
  });

  it("passes hostile text through unchanged", async () => {
    const hostile = `it's \\'; drop table public.invoices; -- \\x41 \\n E'\\' ''$$ ñ 東京 🙂`;
    const saved = await transport()
      .asService()
      .call("einv_integration_save", {
        ...saveArgs(tenant, "deliver", "prd"),
        p_url: "https://mail.example/v1",
        p_settings: { note: hostile, [hostile]: [hostile] },
        p_message: hostile,
      });
    expect(saved.settings).toEqual({ note: hostile, [hostile]: [hostile] });
    expect(await db.superuser("select count(*)::int as n from public.invoices")).toHaveLength(1);
  });

  it("maps a raised not_found to NotFoundError", async () => {
    const call = transport()
      .asService()
      .call("einv_integration_save", {
        ...saveArgs(tenant, "docsgen", "uat"),
        p_company_id: other.company.id,
      });
    await expect(call).rejects.toBeInstanceOf(NotFoundError);
  });

  it("claims in request order, and maps a stale outcome to InvalidStateError", async () => {
    const [a, b] = await Promise.all([
      createInvoice(db, tenant.org, tenant.company),
      createInvoice(db, tenant.org, tenant.company),
    ]);
    const missing = crypto.randomUUID();
    const service = transport().asService();
    const claims = await service.call("einv_document_claim", {
      p_org_id: tenant.org.id,
      p_kind: "invoice",
      p_document_ids: [b.id, missing, a.id],
      p_reissue: false,
      p_actor_id: tenant.operador.id,
      p_lease_seconds: 60,
      p_issued_at: new Date().toISOString(),
    });
    expect(claims.map((c) => [c.document_id, c.action])).toEqual([
      [b.id, "send"],
      [missing, "skip"],
      [a.id, "send"],
    ]);
    const stale = service.call("einv_document_record", {
      p_org_id: tenant.org.id,
      p_kind: "invoice",
      p_document_id: a.id,
      p_attempt: 7,
      p_outcome: { status: "error", code: "rejected", message: "late" },
    });
    await expect(stale).rejects.toBeInstanceOf(InvalidStateError);
  });

  it("passes booleans through: reissue: true claims an invoice in error for a query", async () => {
    const failed = await createInvoice(db, tenant.org, tenant.company, { status: "error" });
    const [entry] = await transport()
      .asService()
      .call("einv_document_claim", {
        p_org_id: tenant.org.id,
        p_kind: "invoice",
        p_document_ids: [failed.id],
        p_reissue: true,
        p_actor_id: tenant.operador.id,
        p_lease_seconds: 60,
        p_issued_at: new Date().toISOString(),
      });
    expect(entry).toMatchObject({ document_id: failed.id, action: "query", attempt: 2 });
  });
});

// Supabase's API roles time out after 8 s (devkit/postgrest/index.ts); here 300 ms, on a call that
// waits for a lock someone else holds. PostgREST answers it 500; we answer a retryable 503.
describe.each(TRANSPORTS)("a statement timeout on the %s transport", (name) => {
  const onPostgres = inject("database").kind === "postgres";
  let timed: SqlClient | undefined;
  let slow: Transports;
  beforeAll(async () => {
    if (!onPostgres) return;
    // the direct transport's connection times out; the stand-in sets the roles' timeouts itself
    timed = await connectPostgres(`${db.url}?statement_timeout=300`, { max: 2 });
    slow = await createTransports(db.client, {
      name: `slow-${name}`,
      direct: timed,
      statementTimeouts: { authenticator: "300ms", authenticated: "300ms" },
    });
  });
  afterAll(() => timed?.close());

  it.skipIf(!onPostgres)(
    "is DatabaseUnavailableError: 503 database_unavailable with Retry-After",
    async () => {
      const user = slow.db[name].asUser(await slow.callerOf(tenant.operador));
      const failure = await db.client.transaction(async (s) => {
        await s.query("lock table public.memberships in access exclusive mode");
        return user.call("einv_caller_membership", { p_org_id: tenant.org.id }).then(
          () => undefined,
          (error: unknown) => error,
        );
      });
      expect(failure).toBeInstanceOf(DatabaseUnavailableError);
      expect((failure as Error).message).toMatch(/57014/);
      const answer = toApiError(failure);
      expect([answer.status, answer.code, answer.headers]).toEqual([
        503,
        "database_unavailable",
        { "Retry-After": "1" },
      ]);
      expect(answer.message).not.toMatch(/57014|statement|cancel/);
    },
  );
});
