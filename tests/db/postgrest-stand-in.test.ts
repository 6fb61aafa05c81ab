/**
 * The PostgREST stand-in (devkit/postgrest/index.ts) answers as PostgREST v14 does where our
 * transport depends on it: the status of each SQLSTATE, READ ONLY transactions for STABLE and
 * IMMUTABLE functions, JSON null as SQL NULL, PGRST202 before any SQL for missing or unknown
 * arguments, 204 for `void`, and Supabase's statement timeouts. It speaks HTTP here, as supabase-js
 * does, to functions this file adds to its own database.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTenant, type Tenant } from "../../devkit/factories.ts";
import { createTransports, type Transports } from "../support/transports.ts";

let db: TestDatabase;
let tenant: Tenant;
let api: Transports;
let userToken: string;

beforeAll(async () => {
  db = await createTestDatabase();
  tenant = await createTenant(db);
  api = await createTransports(db.client, { name: "stand-in" });
  userToken = (await api.callerOf(tenant.operador)).accessToken;
  await db.client.exec(`
    create sequence public.einv_test_calls;
    create table public.einv_test_writes (n bigint);
    create function public.einv_test_raise(p_code text) returns jsonb language plpgsql as $$
    begin
      raise exception 'raised %', p_code using errcode = p_code, detail = 'the detail', hint = 'the hint';
    end $$;
    create function public.einv_test_nulls(p_value jsonb, p_text text, p_ids uuid[]) returns jsonb
    language sql as $$
      select jsonb_build_object('value', p_value is null, 'text', p_text is null, 'ids', p_ids is null)
    $$;
    create function public.einv_test_next() returns bigint language sql volatile as $$
      select nextval('public.einv_test_calls')
    $$;
    create function public.einv_test_stable_next() returns bigint language sql stable as $$
      select public.einv_test_next()
    $$;
    create function public.einv_test_immutable_write(p_n bigint) returns bigint language plpgsql immutable as $$
    begin
      perform public.einv_test_record(p_n);
      return p_n;
    end $$;
    create function public.einv_test_record(p_n bigint) returns void language sql as $$
      insert into public.einv_test_writes values (p_n)
    $$;
    create function public.einv_test_defaults(p_a integer, p_b integer default 7) returns jsonb
    language sql stable as $$ select jsonb_build_object('a', p_a, 'b', p_b) $$;
    create function public.einv_test_settings() returns jsonb language sql stable as $$
      select jsonb_build_object(
        'statement_timeout', current_setting('statement_timeout'),
        'read_only', current_setting('transaction_read_only'),
        'role', current_user)
    $$;
    grant execute on all functions in schema public to anon, authenticated, service_role;
    grant all on public.einv_test_writes to anon, authenticated, service_role;
    grant usage on sequence public.einv_test_calls to anon, authenticated, service_role;
  `);
});
afterAll(() => db?.close());

type Who = "service" | "user" | "anon";

function rpc(fn: string, args: Record<string, unknown>, who: Who = "service"): Promise<Response> {
  const bearer = who === "service" ? api.secretKey : who === "user" ? userToken : api.publishableKey;
  return api.postgrest(`${api.url}/rest/v1/rpc/${fn}`, {
    method: "POST",
    headers: {
      apikey: who === "service" ? api.secretKey : api.publishableKey,
      authorization: `Bearer ${bearer}`,
      "content-type": "application/json",
    },
    body: JSON.stringify(args),
  });
}

const writes = async () =>
  Number((await db.superuser<{ n: number }>("select count(*)::int as n from public.einv_test_writes"))[0]?.n);

describe("the PostgREST stand-in", () => {
  // src/PostgREST/Error.hs pgErrorStatus at v14.17
  it.each([
    ["23505", 409],
    ["23503", 409],
    ["23514", 400],
    ["40001", 500],
    ["40P01", 500],
    ["57014", 500],
    ["25006", 405],
    ["42883", 404],
    ["P0001", 400],
    ["P0002", 500],
    ["08006", 503],
    ["53300", 503],
    ["57P01", 503],
    ["PT418", 418],
  ])("answers SQLSTATE %s with HTTP %i and PostgREST's error body", async (code, status) => {
    const response = await rpc("einv_test_raise", { p_code: code });
    expect(response.status).toBe(status);
    expect(await response.json()).toEqual({
      code,
      message: `raised ${code}`,
      details: "the detail",
      hint: "the hint",
    });
  });

  it("answers 42501 with 403 to a signed-in user and 401 (WWW-Authenticate) to anon", async () => {
    const user = await rpc("einv_test_raise", { p_code: "42501" }, "user");
    expect(user.status).toBe(403);
    const anon = await rpc("einv_test_raise", { p_code: "42501" }, "anon");
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toBe("Bearer");
  });

  it("runs STABLE and IMMUTABLE functions READ ONLY (25006 → 405), VOLATILE ones read-write", async () => {
    const stable = await rpc("einv_test_stable_next", {});
    expect(stable.status).toBe(405);
    expect(await stable.json()).toMatchObject({ code: "25006" });
    const immutable = await rpc("einv_test_immutable_write", { p_n: 1 });
    expect(immutable.status).toBe(405);
    expect(await writes()).toBe(0);
    const volatile = await rpc("einv_test_next", {});
    expect(volatile.status).toBe(200);
    expect(await volatile.json()).toEqual(expect.any(Number));
    expect(await (await rpc("einv_test_settings", {})).json()).toMatchObject({ read_only: "on" });
  });

  it("passes a JSON null as SQL NULL, for jsonb arguments too", async () => {
    const response = await rpc("einv_test_nulls", { p_value: null, p_text: null, p_ids: null });
    expect(await response.json()).toEqual({ value: true, text: true, ids: true });
    const given = await rpc("einv_test_nulls", { p_value: {}, p_text: "", p_ids: [] });
    expect(await given.json()).toEqual({ value: false, text: false, ids: false });
  });

  it("answers PGRST202 (404) for a missing or unknown argument, before any SQL runs", async () => {
    const before = await writes();
    const missing = await rpc("einv_test_record", {});
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      code: "PGRST202",
      message: "Could not find the function public.einv_test_record without parameters in the schema cache",
      details:
        "Searched for the function public.einv_test_record without parameters or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
      hint: null,
    });
    const unknown = await rpc("einv_test_record", { p_n: 1, p_extra: 2 });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      code: "PGRST202",
      message: "Could not find the function public.einv_test_record(p_extra, p_n) in the schema cache",
    });
    const partly = await rpc("einv_test_nulls", { p_value: 1 });
    expect(partly.status).toBe(404);
    expect(await writes()).toBe(before);
    // an argument with a default may be left out, and keeps its default
    expect(await (await rpc("einv_test_defaults", { p_a: 1 })).json()).toEqual({ a: 1, b: 7 });
  });

  it("answers 204 with no body for a void function", async () => {
    const response = await rpc("einv_test_record", { p_n: 2 });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
  });

  it("runs each role under Supabase's statement_timeout: 8 s, 3 s for anon", async () => {
    const settings = async (who: Who) => (await (await rpc("einv_test_settings", {}, who)).json()) as object;
    expect(await settings("service")).toMatchObject({ statement_timeout: "8s", role: "service_role" });
    expect(await settings("user")).toMatchObject({ statement_timeout: "8s", role: "authenticated" });
    expect(await settings("anon")).toMatchObject({ statement_timeout: "3s", role: "anon" });
  });
});
