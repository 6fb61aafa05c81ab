/**
 * The access matrix, generated: every route of tests/support/routes.ts × every case of
 * tests/support/access-matrix.ts (no token, each kind of bad token, no apikey, a stranger, each
 * role, another organization's document), through the real app, database and sandbox providers.
 * Each case asserts the status, the error code (in the one error shape), or the route's success
 * body; and a refused call leaves every table's rows, the provider edge and the sandbox's
 * submission log exactly as they were. Reconcile, with its own secret, has its own cases below.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_API_KEY } from "../../devkit/app.ts";
import { asRole, sqlState } from "../../devkit/database.ts";
import { createReconcileApp } from "../../functions/reconcile/app.ts";
import { sandboxSigners } from "../../sandbox/signers.ts";
import {
  ACCESS_CASES,
  type Call,
  MEMBER_READABLE,
  observe,
  ownerOf,
  READER_CASES,
  send,
} from "../support/access-matrix.ts";
import { errorShapeProblem } from "../support/responses.ts";
import {
  createRouteFixture,
  EINVOICING_ROUTES,
  RECONCILE_SECRET,
  type RouteFixture,
  type RouteSpec,
} from "../support/routes.ts";

let fx: RouteFixture;
// the sandbox signs AttachedDocuments with certificates it generates once per process (~0.4 s):
// generated before the timed provider calls that fetch them
beforeAll(() => sandboxSigners(), 60_000);
beforeAll(async () => {
  fx = await createRouteFixture();
});
afterAll(() => fx?.close());

describe("the route table", () => {
  it("lists every route the einvoicing app mounts, and only those", () => {
    const mounted = fx.t.app.routes
      .filter((r) => r.method === "POST")
      .map((r) => r.path.replace(/^\/einvoicing/, ""))
      .sort();
    expect(mounted).toEqual(EINVOICING_ROUTES.map((r) => r.path).sort());
  });

  it("has an oracle that notices any change: one column of one row, or one request to a provider", async () => {
    const before = await observe(fx);
    // a name nothing reads: the stranger organization's
    await fx.db.superuser("update public.organizations set name = name || '.' where id = $1", [
      fx.other.org.id,
    ]);
    const changed = await observe(fx);
    expect(Object.keys(changed.tables).filter((t) => changed.tables[t] !== before.tables[t])).toEqual([
      "public.organizations",
    ]);
    fx.edge.push(new Request("https://sandbox.provider.test/"));
    expect((await observe(fx)).edgeRequests).toBe(changed.edgeRequests + 1);
  });
});

/**
 * A refused call reuses one body per route and owner (it must not touch the document anyway); an
 * allowed one gets a fresh document, so that each role's call finds it in the state it needs.
 */
const refusalBodies = new Map<string, Promise<Record<string, unknown>>>();
function bodyFor(route: RouteSpec, call: Call, refused: boolean): Promise<Record<string, unknown>> {
  const build = () => route.body(fx, ownerOf(fx, call));
  if (!refused) return build();
  const key = `${route.path} ${call.owner}`;
  const known = refusalBodies.get(key) ?? build();
  refusalBodies.set(key, known);
  return known;
}

describe.each(EINVOICING_ROUTES)("POST $path", (route) => {
  it.each(ACCESS_CASES.map((c) => [c.name, c] as const))("%s", async (_name, access) => {
    const call = await access.call(fx);
    const refused = access.refused(route);
    const expected = access.expected(route);
    // the caller acts for the home organization, whoever owns the document
    const body = { ...(await bodyFor(route, call, refused)), org_id: fx.home.org.id };
    const before = refused ? await observe(fx) : undefined;

    const response = await send(fx, route, body, call);
    const text = await response.text();
    expect(response.status, text).toBe(expected.status);
    if (expected.code) {
      expect(errorShapeProblem(response.status, response.headers, text)).toBeUndefined();
      expect(JSON.parse(text).error.code).toBe(expected.code);
    } else {
      const parsed = route.response.safeParse(JSON.parse(text));
      expect(parsed.error?.issues ?? [], text).toEqual([]);
      if (expected.matches) expect(JSON.parse(text)).toMatchObject(expected.matches);
    }
    if (before) expect(await observe(fx)).toEqual(before);
  });
});

describe("what members read directly, under RLS (PostgREST and Storage)", () => {
  beforeAll(async () => {
    // a row in every readable table, for both organizations
    for (const owner of [fx.home, fx.other]) {
      const token = await fx.t.token(owner.operador);
      const invoice = await fx.transmitted(owner);
      for (const path of ["/representation", "/deliver"]) {
        const response = await fx.t.post(path, { org_id: owner.org.id, invoice_id: invoice.id }, token);
        expect(response.status).toBe(200);
      }
      await fx.creditNote(owner, "emitida");
      // a credential event (the admins' alone to read)
      const tested = await fx.t.post(
        "/integrations/test",
        { org_id: owner.org.id, company_id: owner.company.id, service: "adapter-tax", environment: "uat" },
        await fx.t.token(owner.admin),
      );
      expect(tested.status).toBe(200);
    }
  });

  it("lists every table authenticated may read", async () => {
    const readable = await fx.db.superuser<{ name: string }>(
      `select format('%s.%s', n.nspname, c.relname) as name from pg_class c
         join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p', 'v', 'm') and n.nspname in ('public', 'einv_private', 'storage')
          and has_any_column_privilege('authenticated', c.oid, 'SELECT')
          and not (n.nspname = 'storage' and c.relname = 'buckets')
        order by 1`,
    );
    expect(readable.map((r) => r.name)).toEqual([...new Set(MEMBER_READABLE.map((r) => r.table))].sort());
  });

  describe.each(MEMBER_READABLE)("$table where $rowsOf", ({ table, rowsOf, roles }) => {
    it.each(READER_CASES.map((c) => [c.name, c] as const))("%s", async (_name, { sees, reader }) => {
      const query = `select count(*)::int as n from ${table} where ${rowsOf}`;
      const [all] = await fx.db.superuser<{ n: number }>(query, [fx.home.org.id]);
      expect(all?.n).toBeGreaterThan(0);
      const user = reader(fx);
      const read = user
        ? asRole<{ n: number }>(fx.db, "authenticated", user.claims, query, [fx.home.org.id])
        : asRole<{ n: number }>(fx.db, "anon", { role: "anon" }, query, [fx.home.org.id]);
      if (sees(roles)) expect((await read)[0]?.n).toBe(all?.n);
      else {
        // nothing: no rows, or no privilege at all
        const seen = await read.then(
          (rows) => rows[0]?.n,
          () => sqlState(read),
        );
        expect([0, "42501"]).toContain(seen);
      }
    });
  });
});

describe("POST /reconcile (its own secret, no user token)", () => {
  const run = (headers: Record<string, string>) =>
    createReconcileApp(fx.t.deps).request("/reconcile", { method: "POST", headers });
  const cases: [string, () => Promise<Record<string, string>>][] = [
    ["no authorization", async () => ({})],
    ["a wrong secret", async () => ({ authorization: "Bearer wrong" })],
    ["the secret and one character more", async () => ({ authorization: `Bearer ${RECONCILE_SECRET}x` })],
    [
      "the secret less its last character",
      async () => ({ authorization: `Bearer ${RECONCILE_SECRET.slice(0, -1)}` }),
    ],
    ["the secret without the Bearer scheme", async () => ({ authorization: RECONCILE_SECRET })],
    ["the secret under another scheme", async () => ({ authorization: `Basic ${RECONCILE_SECRET}` })],
    [
      "an admin's valid session token",
      async () => ({ authorization: `Bearer ${await fx.t.token(fx.home.admin)}` }),
    ],
    [
      "the publishable apikey",
      async () => ({ authorization: `Bearer ${TEST_API_KEY}`, apikey: TEST_API_KEY }),
    ],
  ];

  it.each(cases)("answers 401 to %s, and runs nothing", async (_name, headers) => {
    // something a run would settle: an invoice left en_proceso, which the provider holds
    await fx.db.superuser("update invoices set status = 'en_proceso' where id = $1", [
      (await fx.transmitted(fx.home)).id,
    ]);
    const sent = await headers();
    const before = await observe(fx);
    const response = await run(sent);
    const text = await response.text();
    expect(response.status, text).toBe(401);
    expect(errorShapeProblem(response.status, response.headers, text)).toBeUndefined();
    expect(JSON.parse(text).error.code).toBe("unauthenticated");
    expect(await observe(fx)).toEqual(before);
  });

  it("runs a pass with the secret: the cases above are refused for their credentials alone", async () => {
    const before = await observe(fx);
    const response = await run({ authorization: `Bearer ${RECONCILE_SECRET}` });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ run_id: expect.any(String), picked: expect.any(Number) });
    expect(await observe(fx)).not.toEqual(before);
  });
});
