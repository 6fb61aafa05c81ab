/**
 * The membership check in the same round trip as a request's first call: the `_authorized` SQL
 * functions make their call only for a member with one of the roles, and the gate of
 * `operation()` (shared/http/authorize.ts) lets nothing be read, written or stored before the
 * check — with one round trip when the first call can carry it, with two otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createTestApp, type TestApp } from "../../devkit/app.ts";
import { saveCredential } from "../../devkit/credentials.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createInvoice, createTenant, type Tenant, type User } from "../../devkit/factories.ts";
import { authorizationGate, type Role } from "../../shared/http/authorize.ts";
import { operation, orgScoped } from "../../shared/http/route.ts";
import { ApiError, NotFoundError } from "../../shared/kernel/errors.ts";
import { type Caller, callAuthorized, type Db, type DbScope } from "../../shared/ports/db/port.ts";
import type { DocumentStore } from "../../shared/ports/storage.ts";

const DOCUMENT_ROLES: Role[] = ["admin", "operador"];

let db: TestDatabase;
let t: TestApp;
let tenant: Tenant;
let stranger: Tenant;

beforeAll(async () => {
  db = await createTestDatabase();
  t = await createTestApp(db);
  tenant = await createTenant(db);
  stranger = await createTenant(db);
  await saveCredential(t.deps, tenant);
});
afterAll(() => db?.close());

const service = () => t.deps.db.asService();

const getAuthorized = (user: User, documentId: string, roles: Role[] = DOCUMENT_ROLES) =>
  service().call("einv_document_get_with_credentials_authorized", {
    p_user_id: user.id,
    p_roles: roles,
    p_org_id: tenant.org.id,
    p_kind: "invoice",
    p_document_id: documentId,
    p_service: "adapter-tax",
  });

const claimAuthorized = (user: User, ids: string[]) =>
  service().call("einv_document_claim_sending_authorized", {
    p_user_id: user.id,
    p_roles: DOCUMENT_ROLES,
    p_org_id: tenant.org.id,
    p_kind: "invoice",
    p_document_ids: ids,
    p_reissue: false,
    p_actor_id: user.id,
    p_lease_seconds: 60,
    p_issued_at: new Date().toISOString(),
    p_service: "adapter-tax",
  });

const statusOf = async (id: string) =>
  (await db.superuser<{ status: string }>("select status from invoices where id = $1", [id]))[0]?.status;
const eventsOf = async (id: string) =>
  (await db.superuser<{ n: number }>("select count(*)::int as n from events where document_id = $1", [id]))[0]
    ?.n;

describe("einv_document_get_with_credentials_authorized", () => {
  it("answers a member with a listed role the membership, the document and its credential", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const answer = await getAuthorized(tenant.operador, invoice.id);
    expect(answer.membership).toEqual({
      org_id: tenant.org.id,
      user_id: tenant.operador.id,
      role: "operador",
    });
    expect(answer.result?.record.document.id).toBe(invoice.id);
    expect(answer.result?.credentials.map((c) => [c.company_id, c.service, c.environment])).toEqual([
      [tenant.company.id, "adapter-tax", "uat"],
    ]);
    // the same as the call on its own
    expect(answer.result).toEqual(
      await service().call("einv_document_get_with_credentials", {
        p_org_id: tenant.org.id,
        p_kind: "invoice",
        p_document_id: invoice.id,
        p_service: "adapter-tax",
      }),
    );
  });

  it("answers a member without a listed role their membership and nothing else", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const answer = await getAuthorized(tenant.lector, invoice.id);
    expect(answer).toEqual({
      membership: { org_id: tenant.org.id, user_id: tenant.lector.id, role: "lector" },
    });
  });

  it("fails closed on roles that are not an array of names", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    // as JSON: null, a string, an object, an empty array, an array without names
    for (const roles of [null, '"admin"', { admin: 1 }, [], [null]]) {
      const answer = await getAuthorized(tenant.admin, invoice.id, roles as never);
      expect(answer).toEqual({ membership: expect.objectContaining({ role: "admin" }) });
    }
  });

  it("answers a stranger no membership before looking for the document, even one that does not exist", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    expect(await getAuthorized(stranger.admin, invoice.id)).toEqual({ membership: null });
    expect(await getAuthorized(stranger.admin, crypto.randomUUID())).toEqual({ membership: null });
    // a member asking for what is not there is told so
    await expect(getAuthorized(tenant.admin, crypto.randomUUID())).rejects.toMatchObject({
      code: "not_found",
    });
  });
});

describe("einv_document_claim_sending_authorized", () => {
  it("claims nothing for a stranger or a lector, and leaves no event", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    expect(await claimAuthorized(stranger.operador, [invoice.id])).toEqual({ membership: null });
    const lector = await claimAuthorized(tenant.lector, [invoice.id]);
    expect(lector.membership?.role).toBe("lector");
    expect(lector.result).toBeUndefined();
    expect(await statusOf(invoice.id)).toBe("pendiente");
    expect(await eventsOf(invoice.id)).toBe(0);
  });

  it("claims for an operador as einv_document_claim_sending does", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const answer = await claimAuthorized(tenant.operador, [invoice.id]);
    expect(answer.membership?.role).toBe("operador");
    expect(answer.result?.entries.map((e) => [e.document_id, e.action])).toEqual([[invoice.id, "send"]]);
    expect(answer.result?.credentials).toHaveLength(1);
    expect(await statusOf(invoice.id)).toBe("en_proceso");
  });
});

describe("the gate of operation()", () => {
  /** The app's database, recording each call by name. */
  function counting(): { db: Db; calls: string[] } {
    const calls: string[] = [];
    const wrap = (scope: DbScope): DbScope => ({
      call: (fn, args) => {
        calls.push(fn);
        return scope.call(fn, args);
      },
    });
    const real = t.deps.db;
    return {
      calls,
      db: { asUser: (c) => wrap(real.asUser(c)), asService: () => wrap(real.asService()), close: real.close },
    };
  }
  const stored: string[] = [];
  const store: DocumentStore = {
    put: async (path) => void stored.push(`put ${path}`),
    get: async (path) => {
      stored.push(`get ${path}`);
      return null;
    },
  };
  const callerOf = (user: User): Caller => ({ accessToken: "not used", claims: { sub: user.id } });
  const gateFor = (user: User, database: Db) =>
    authorizationGate({
      db: database,
      caller: callerOf(user),
      documents: store,
      orgId: tenant.org.id,
      roles: DOCUMENT_ROLES,
    });
  const readDocument = (scope: DbScope, id: string) =>
    callAuthorized(scope, "einv_document_get_with_credentials_authorized", {
      p_org_id: tenant.org.id,
      p_kind: "invoice",
      p_document_id: id,
      p_service: "docsgen",
    });

  it("checks a member with the first call that can carry it: one round trip, then none for the check", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    const { db: database, calls } = counting();
    const gate = gateFor(tenant.operador, database);
    const { record } = await readDocument(gate.serviceDb, invoice.id);
    expect(record.document.id).toBe(invoice.id);
    await expect(gate.authorize()).resolves.toMatchObject({ role: "operador" });
    expect(calls).toEqual(["einv_document_get_with_credentials_authorized"]);
  });

  it("refuses a stranger and a lector with that call, which read nothing for them", async () => {
    const invoice = await createInvoice(db, tenant.org, tenant.company);
    for (const [user, message] of [
      [stranger.operador, /not a member/],
      [tenant.lector, /needs the role admin or operador; you are lector/],
    ] as const) {
      const { db: database, calls } = counting();
      const gate = gateFor(user, database);
      const refusal = await readDocument(gate.serviceDb, invoice.id).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(ApiError);
      expect(refusal).toMatchObject({
        status: 403,
        code: "forbidden",
        message: expect.stringMatching(message),
      });
      // a later use is refused the same way, without asking again
      await expect(
        gate.serviceDb.call("einv_credential_get", {
          p_org_id: tenant.org.id,
          p_company_id: tenant.company.id,
          p_service: "adapter-tax",
          p_environment: "uat",
        }),
      ).rejects.toMatchObject({ code: "forbidden" });
      await expect(gate.documents.get("x")).rejects.toMatchObject({ code: "forbidden" });
      expect(calls).toEqual(["einv_document_get_with_credentials_authorized"]);
    }
    expect(stored).toEqual([]);
  });

  it("checks on its own first when the first use cannot carry it: another call, the user scope, the store", async () => {
    const uses: [string, (gate: ReturnType<typeof gateFor>) => Promise<unknown>][] = [
      [
        "einv_credential_get",
        (gate) =>
          gate.serviceDb.call("einv_credential_get", {
            p_org_id: tenant.org.id,
            p_company_id: tenant.company.id,
            p_service: "adapter-tax",
            p_environment: "uat",
          }),
      ],
      [
        "einv_caller_membership",
        (gate) => gate.userDb.call("einv_caller_membership", { p_org_id: tenant.org.id }),
      ],
      ["store", (gate) => gate.documents.get(`${tenant.org.id}/x.pdf`)],
    ];
    for (const [what, use] of uses) {
      stored.length = 0;
      const stranger_ = counting();
      await expect(use(gateFor(stranger.admin, stranger_.db))).rejects.toMatchObject({ code: "forbidden" });
      expect(stranger_.calls).toEqual(["einv_caller_membership"]);
      expect(stored).toEqual([]);

      const member = counting();
      await use(gateFor(tenant.admin, member.db));
      expect(member.calls[0]).toBe("einv_caller_membership");
      expect(member.calls.slice(1)).toEqual(what === "store" ? [] : [what]);
      expect(stored).toEqual(what === "store" ? [`get ${tenant.org.id}/x.pdf`] : []);
    }
  });

  it("checks before answering, whatever the handler did: used nothing, or failed before its first call", async () => {
    const refusals: unknown[] = [];
    for (const handle of [
      async () => ({}),
      async () => Promise.reject(new NotFoundError("No such thing.")),
    ]) {
      const route = operation({
        summary: "a probe",
        input: orgScoped,
        output: z.object({}),
        roles: DOCUMENT_ROLES,
        errors: ["not_found"],
        firstCallAuthorizes: true,
        handle,
      });
      const { db: database, calls } = counting();
      const values: Record<string, unknown> = {
        body: { org_id: tenant.org.id },
        deps: { ...t.deps, db: database },
        caller: callerOf(stranger.admin),
        requestId: "probe",
        log: t.deps.logger,
      };
      const context = {
        get: (name: string) => values[name],
        req: { header: () => undefined, routePath: "/probe" },
        json: (body: unknown, status: number) => Response.json(body, { status }),
      };
      refusals.push(
        await Promise.resolve(route(context as never, async () => {})).catch((error: unknown) => error),
      );
      expect(calls).toEqual(["einv_caller_membership"]);
    }
    expect(refusals).toEqual([
      expect.objectContaining({ code: "forbidden" }),
      expect.objectContaining({ code: "forbidden" }),
    ]);
  });

  it("checks before answering a handler that used nothing", async () => {
    const { db: database, calls } = counting();
    await expect(gateFor(stranger.admin, database).authorize()).rejects.toMatchObject({ code: "forbidden" });
    expect(calls).toEqual(["einv_caller_membership"]);
  });
});
