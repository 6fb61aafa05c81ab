/**
 * The PostgREST stand-in's tables over HTTP, header by header, against tables this file adds to its
 * own database: the statuses, `Content-Range`, `Preference-Applied`, embeds of every cardinality
 * (and PGRST200/201 when there is none or more than one), upserts, PUT, strict preferences, media
 * types, the errors PostgREST answers before any SQL (PGRST1xx/2xx), tokens (PGRST301/303), CORS,
 * and the stand-in's own bounds. docs/postgrest-stand-in.md cites PostgREST v14.17 for each.
 */
import { createClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import { createTenant, type Tenant } from "../../devkit/factories.ts";
import { MAX_BODY_BYTES, MAX_URL_LENGTH } from "../../devkit/postgrest/index.ts";
import { createTransports, type Transports } from "../support/transports.ts";

let db: TestDatabase;
let tenant: Tenant;
let api: Transports;
let token: string;

beforeAll(async () => {
  db = await createTestDatabase();
  tenant = await createTenant(db);
  await db.client.exec(`
    create table public.einv_test_items (
      id integer primary key, name text not null, price numeric(10, 2), active boolean not null default true,
      tags text[] not null default '{}', made date not null default '2026-01-02');
    create table public.einv_test_tags (id integer primary key, label text not null);
    create table public.einv_test_item_tags (
      item_id integer references public.einv_test_items (id), tag_id integer references public.einv_test_tags (id),
      primary key (item_id, tag_id));
    create table public.einv_test_reviews (
      id integer primary key, item_id integer not null references public.einv_test_items (id),
      reviewer_id integer references public.einv_test_items (id), stars integer);
    grant select, insert, update, delete on public.einv_test_items, public.einv_test_tags,
      public.einv_test_item_tags, public.einv_test_reviews to authenticated;
    insert into public.einv_test_items (id, name, price, active)
      select n, 'item ' || n, n, n % 2 = 0 from generate_series(1, 1005) n;
    insert into public.einv_test_tags values (1, 'rojo'), (2, 'azul');
    insert into public.einv_test_item_tags values (1, 1), (1, 2), (2, 2);
    insert into public.einv_test_reviews values (1, 1, 2, 5), (2, 1, null, 3);
    update public.einv_test_items set name = $$O'Brien "x"; drop table y$$ where id = 7;
  `);
  api = await createTransports(db.client, { name: "tables-http" });
  token = (await api.callerOf(tenant.operador)).accessToken;
});
afterAll(() => db?.close());

function rest(path: string, init: RequestInit & { bearer?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("apikey", api.publishableKey);
  headers.set("authorization", `Bearer ${init.bearer ?? token}`);
  if (init.body !== undefined && !headers.has("content-type"))
    headers.set("content-type", "application/json");
  return api.postgrest(`${api.url}/rest/v1/${path}`, { ...init, headers });
}

const json = async (response: Response) => ({ status: response.status, body: await response.json() });

describe("reads", () => {
  it("answers a read with Content-Range, Content-Location and, asked, the exact count", async () => {
    const response = await rest("einv_test_items?select=id&id=lte.3&order=id.desc", {
      headers: { prefer: "count=exact" },
    });
    expect({
      status: response.status,
      range: response.headers.get("content-range"),
      location: response.headers.get("content-location"),
      applied: response.headers.get("preference-applied"),
      type: response.headers.get("content-type"),
      body: await response.json(),
    }).toEqual({
      status: 200,
      range: "0-2/3",
      location: "/einv_test_items?id=lte.3&order=id.desc&select=id",
      applied: "count=exact",
      type: "application/json; charset=utf-8",
      body: [{ id: 3 }, { id: 2 }, { id: 1 }],
    });
  });

  it("answers the schema supabase-js names (Accept-Profile: public), and 406 PGRST106 for another", async () => {
    const named = await rest("einv_test_items?select=id&id=eq.1", {
      headers: { "accept-profile": "public" },
    });
    expect({ status: named.status, profile: named.headers.get("content-profile") }).toEqual({
      status: 200,
      profile: "public",
    });
    expect(
      await json(await rest("einv_test_items", { headers: { "accept-profile": "einv_private" } })),
    ).toEqual({
      status: 406,
      body: {
        code: "PGRST106",
        message: "Invalid schema: einv_private",
        details: null,
        hint: "Only the following schemas are exposed: public",
      },
    });
  });

  it("returns at most Supabase's max-rows (1000), 206 with the count", async () => {
    const all = await rest("einv_test_items?select=id", { headers: { prefer: "count=exact" } });
    expect({
      status: all.status,
      range: all.headers.get("content-range"),
      rows: (await all.json()).length,
    }).toEqual({
      status: 206,
      range: "0-999/1005",
      rows: 1000,
    });
    const planned = await rest("einv_test_items?select=id&limit=1", { headers: { prefer: "count=planned" } });
    expect(planned.headers.get("content-range")).toMatch(/^0-0\/\d+$/);
  });

  it("takes limit=0, refuses a negative limit and a reversed Range header with 416 PGRST103", async () => {
    const zero = await rest("einv_test_items?select=id&limit=0");
    expect({
      status: zero.status,
      range: zero.headers.get("content-range"),
      body: await zero.json(),
    }).toEqual({
      status: 200,
      range: "*/*",
      body: [],
    });
    expect(await json(await rest("einv_test_items?limit=-1"))).toEqual({
      status: 416,
      body: {
        code: "PGRST103",
        message: "Requested range not satisfiable",
        details: "Limit should be greater than or equal to zero.",
        hint: null,
      },
    });
    const reversed = await rest("einv_test_items", { headers: { range: "5-2" } });
    expect((await json(reversed)).body.details).toBe(
      "The lower boundary must be lower than or equal to the upper boundary in the Range header.",
    );
    const ranged = await rest("einv_test_items?select=id&order=id", { headers: { range: "2-3" } });
    expect({ range: ranged.headers.get("content-range"), body: await ranged.json() }).toEqual({
      range: "2-3/*",
      body: [{ id: 3 }, { id: 4 }],
    });
  });

  it("sends every value as a parameter of type unknown: a boolean, a date, quotes and SQL stay values", async () => {
    const found = await rest(
      `einv_test_items?select=id&active=eq.true&made=eq.2026-01-02&id=lt.5&name=neq.${encodeURIComponent("x'); drop")}`,
    );
    expect(await json(found)).toEqual({ status: 200, body: [{ id: 2 }, { id: 4 }] });
    const quoted = await rest(
      `einv_test_items?select=id&name=eq.${encodeURIComponent(`O'Brien "x"; drop table y`)}`,
    );
    expect(await json(quoted)).toEqual({ status: 200, body: [{ id: 7 }] });
    const listed = await rest(
      `einv_test_items?select=id&name=in.(${encodeURIComponent(`"O'Brien \\"x\\"; drop table y",item 8`)})&order=id`,
    );
    expect(await json(listed)).toEqual({ status: 200, body: [{ id: 7 }, { id: 8 }] });
    const badDate = await rest("einv_test_items?made=eq.yesterday-ish");
    expect(await json(badDate)).toMatchObject({ status: 400, body: { code: "22007" } });
    const nul = await rest("einv_test_items?name=eq.a%00b");
    expect(await json(nul)).toMatchObject({ status: 400, body: { code: "22021" } });
    const anyOf = await rest("einv_test_items?select=id&name=like(any).{item 1,item 20}&order=id");
    expect(await json(anyOf)).toEqual({ status: 200, body: [{ id: 1 }, { id: 20 }] });
    const contains = await rest("einv_test_items?select=id&tags=cs.{}&id=eq.1");
    expect(await json(contains)).toEqual({ status: 200, body: [{ id: 1 }] });
  });

  it("embeds many-to-one as an object, one-to-many and many-to-many as arrays", async () => {
    const response = await rest(
      "einv_test_items?select=id,einv_test_tags(label),einv_test_item_tags(tag_id)&id=in.(1,3)&order=id" +
        "&einv_test_tags.order=label",
    );
    expect(await json(response)).toEqual({
      status: 200,
      body: [
        {
          id: 1,
          einv_test_tags: [{ label: "azul" }, { label: "rojo" }],
          einv_test_item_tags: [{ tag_id: 1 }, { tag_id: 2 }],
        },
        { id: 3, einv_test_tags: [], einv_test_item_tags: [] },
      ],
    });
    const reviews = await rest(
      "einv_test_reviews?select=id,item:einv_test_items!item_id(name),reviewer:einv_test_items!reviewer_id(id)&order=id",
    );
    expect(await json(reviews)).toEqual({
      status: 200,
      body: [
        { id: 1, item: { name: "item 1" }, reviewer: { id: 2 } },
        { id: 2, item: { name: "item 1" }, reviewer: null },
      ],
    });
    const inner = await rest(
      "einv_test_items?select=id,einv_test_item_tags!inner()&einv_test_item_tags.tag_id=eq.2&order=id",
      {
        headers: { prefer: "count=exact" },
      },
    );
    expect({ range: inner.headers.get("content-range"), body: await inner.json() }).toEqual({
      range: "0-1/2",
      body: [{ id: 1 }, { id: 2 }],
    });
    // the legacy count, PostgREST's `"rel"."count"` read by PostgreSQL as count(rel): per parent, and alone
    const counted = await rest(
      "einv_test_items?select=id,einv_test_reviews!item_id(count)&id=in.(1,2)&order=id",
    );
    expect(await json(counted)).toEqual({
      status: 200,
      body: [
        { id: 1, einv_test_reviews: [{ count: 2 }] },
        { id: 2, einv_test_reviews: [{ count: 0 }] },
      ],
    });
    expect(await json(await rest("einv_test_reviews?select=count"))).toEqual({
      status: 200,
      body: [{ count: 2 }],
    });
    const withReviews = await rest(
      "einv_test_items?select=id,einv_test_reviews!item_id(id)&einv_test_reviews=not.is.null",
    );
    expect(await json(withReviews)).toEqual({
      status: 200,
      body: [{ id: 1, einv_test_reviews: [{ id: 1 }, { id: 2 }] }],
    });
  });

  it("answers PostgREST's errors for what it cannot plan, before any SQL", async () => {
    const cases: [string, number, Record<string, unknown>][] = [
      [
        "nope",
        404,
        {
          code: "PGRST205",
          message: "Could not find the table 'public.nope' in the schema cache",
          details: null,
          hint: null,
        },
      ],
      [
        "einv_test_items?select=id,,name",
        400,
        { code: "PGRST100", message: '"failed to parse select parameter (id,,name)" (line 1, column 4)' },
      ],
      [
        "einv_test_items?id=noop.1",
        400,
        { code: "PGRST100", message: '"failed to parse filter (noop.1)" (line 1, column 1)' },
      ],
      [
        "einv_test_items?select=nope",
        400,
        { code: "42703", message: "column einv_test_items.nope does not exist" },
      ],
      [
        "einv_test_items?select=id,einv_test_nothing(id)",
        400,
        {
          code: "PGRST200",
          message:
            "Could not find a relationship between 'einv_test_items' and 'einv_test_nothing' in the schema cache",
        },
      ],
      ["einv_test_reviews?select=einv_test_items(id)", 300, { code: "PGRST201" }],
      [
        "einv_test_items?einv_test_tags.id=eq.1",
        400,
        { code: "PGRST108", message: "'einv_test_tags' is not an embedded resource in this request" },
      ],
      [
        "einv_test_items?select=id,einv_test_reviews!item_id(id)&order=einv_test_reviews(id)",
        400,
        { code: "PGRST118" },
      ],
      [
        "einv_test_items?select=count()",
        400,
        { code: "PGRST123", message: "Use of aggregate functions is not allowed" },
      ],
      [
        "einv_test_reviews?select=...einv_test_items!item_id(name)",
        400,
        { code: "PGRST127", message: "Feature not implemented" },
      ],
      ["einv_test_items?select=name->x", 400, { code: "PGRST127" }],
      // the root (PostgREST's OpenAPI description) is not served; `rpc` alone names a table, as in PostgREST
      ["", 400, { code: "PGRST127" }],
      ["rpc", 404, { code: "PGRST205" }],
      ["a/b", 404, { code: "PGRST125", message: "Invalid path specified in request URL" }],
    ];
    for (const [path, status, body] of cases) {
      const response = await rest(path);
      expect({ path, status: response.status, body: await response.json() }).toMatchObject({
        path,
        status,
        body,
      });
      expect(response.headers.get("proxy-status")).toBe(`PostgREST; error=${body.code}`);
    }
    const ambiguous = await json(await rest("einv_test_reviews?select=einv_test_items(id)"));
    expect(ambiguous.body.details).toEqual([
      {
        embedding: "einv_test_reviews with einv_test_items",
        cardinality: "many-to-one",
        relationship:
          "einv_test_reviews_item_id_fkey using einv_test_reviews(item_id) and einv_test_items(id)",
      },
      {
        embedding: "einv_test_reviews with einv_test_items",
        cardinality: "many-to-one",
        relationship:
          "einv_test_reviews_reviewer_id_fkey using einv_test_reviews(reviewer_id) and einv_test_items(id)",
      },
    ]);
  });

  it("negotiates the media type: CSV, a single object, and 406 PGRST107 for one it cannot produce", async () => {
    const csv = await rest("einv_test_items?select=id,name&id=lte.2&order=id", {
      headers: { accept: "text/csv" },
    });
    expect({ type: csv.headers.get("content-type"), body: await csv.text() }).toEqual({
      type: "text/csv; charset=utf-8",
      body: 'id,name\n1,"item 1"\n2,"item 2"',
    });
    const xml = await rest("einv_test_items", { headers: { accept: "application/xml" } });
    expect(await json(xml)).toMatchObject({
      status: 406,
      body: { code: "PGRST107", message: "None of these media types are available: application/xml" },
    });
    const stripped = await rest("einv_test_reviews?select=id,reviewer_id&id=eq.2", {
      headers: { accept: "application/vnd.pgrst.object+json;nulls=stripped" },
    });
    expect(await json(stripped)).toEqual({ status: 200, body: { id: 2 } });
  });
});

describe("writes", () => {
  const post = (path: string, body: unknown, prefer: string) =>
    rest(path, { method: "POST", body: JSON.stringify(body), headers: { prefer } });

  it("inserts, upserts (201 new, 200 merged) and ignores duplicates, with Content-Range and Preference-Applied", async () => {
    const created = await post(
      "einv_test_items?select=id,name",
      { id: 2001, name: "nuevo" },
      "return=representation",
    );
    expect({
      status: created.status,
      range: created.headers.get("content-range"),
      applied: created.headers.get("preference-applied"),
      body: await created.json(),
    }).toEqual({
      status: 201,
      range: "*/*",
      applied: "return=representation",
      body: [{ id: 2001, name: "nuevo" }],
    });
    const merged = await post(
      "einv_test_items?select=id,name",
      [{ id: 2001, name: "cambiado" }],
      "resolution=merge-duplicates,return=representation",
    );
    expect({
      status: merged.status,
      applied: merged.headers.get("preference-applied"),
      body: await merged.json(),
    }).toEqual({
      status: 200,
      applied: "resolution=merge-duplicates, return=representation",
      body: [{ id: 2001, name: "cambiado" }],
    });
    const mixed = await post(
      "einv_test_items?columns=id,name",
      [{ id: 2001, name: "otra vez" }, { id: 2002 }],
      "resolution=merge-duplicates",
    );
    // `columns`: a missing key is NULL, so the second row breaks name's NOT NULL and nothing is written
    expect(await json(mixed)).toMatchObject({ status: 400, body: { code: "23502" } });
    const ignored = await post(
      "einv_test_items",
      { id: 2001, name: "ignorado" },
      "resolution=ignore-duplicates,count=exact",
    );
    expect({
      status: ignored.status,
      range: ignored.headers.get("content-range"),
      text: await ignored.text(),
    }).toEqual({
      status: 201,
      range: "*/0",
      text: "",
    });
    const [row] = await db.superuser<{ name: string }>(
      "select name from public.einv_test_items where id = 2001",
    );
    expect(row?.name).toBe("cambiado");
    const defaults = await post(
      "einv_test_items?select=made,active",
      [{ id: 2003, name: "d" }],
      "return=representation,missing=default",
    );
    expect(await json(defaults)).toEqual({ status: 201, body: [{ made: "2026-01-02", active: true }] });
  });

  it("answers PostgREST's PGRST127, naming what it lacks, to each feature docs/postgrest-stand-in.md lists as not done", async () => {
    // as supabase-js sends them
    const supabase = createClient(api.url, api.publishableKey, {
      accessToken: async () => token,
      global: { fetch: api.postgrest as typeof fetch },
    });
    const items = () => supabase.from("einv_test_items");
    const lacking = (details: string) => ({
      status: 400,
      error: { code: "PGRST127", message: "Feature not implemented", details, hint: null },
    });
    const answers: [string, { status: number; error: unknown }][] = [
      [
        "a spread embed",
        await supabase.from("einv_test_reviews").select("id, ...einv_test_items!item_id(name)"),
      ],
      ["a JSON path in select", await items().select("id, tags->0")],
      ["a JSON path in a filter", await items().select("id").eq("tags->>0", "x")],
      ["a JSON path in order", await items().select("id").order("tags->0")],
      ["a cast", await items().select("id, price::text")],
      ["a function called with GET", await supabase.rpc("einv_anything", {}, { get: true })],
      ["a function called with HEAD", await supabase.rpc("einv_anything", {}, { head: true })],
      ["a filter on a function call", await supabase.rpc("einv_anything", {}).eq("id", 1)],
    ];
    expect(answers.map(([what, { status, error }]) => [what, { status, error }])).toEqual([
      ["a spread embed", lacking("the stand-in does not spread embeds (...relation(…))")],
      ["a JSON path in select", lacking("the stand-in does not select JSON paths (col->key)")],
      ["a JSON path in a filter", lacking("the stand-in does not filter on JSON paths (col->key)")],
      ["a JSON path in order", lacking("the stand-in does not order by JSON paths")],
      ["a cast", lacking("the stand-in does not cast selected columns (col::type)")],
      ["a function called with GET", lacking("the stand-in calls functions with POST only")],
      // HEAD has no body (nor has PostgREST's answer): supabase-js reports the status, and an empty message
      ["a function called with HEAD", { status: 400, error: { message: "" } }],
      ["a filter on a function call", lacking("the stand-in takes no query parameters on a function call")],
    ]);
    // CSV and form bodies, and the root (PostgREST's OpenAPI description)
    for (const [type, body] of [
      ["text/csv", "id,name\n4000,csv"],
      ["application/x-www-form-urlencoded", "id=4000&name=form"],
    ] as const) {
      const response = await rest("einv_test_items", {
        method: "POST",
        body,
        headers: { "content-type": type },
      });
      expect(await json(response)).toEqual({
        status: 400,
        body: lacking(`the stand-in takes JSON bodies only, not ${type}`).error,
      });
    }
    expect(await json(await rest(""))).toEqual({
      status: 400,
      body: lacking("the stand-in does not serve the OpenAPI description").error,
    });
    // the code is in Proxy-Status; the body PostgREST would have sent is not (Warp drops it for HEAD)
    for (const path of ["rpc/einv_anything", "nope", "einv_test_items?select=id,,name"]) {
      const head = await rest(path, { method: "HEAD" });
      expect({
        path,
        status: head.status,
        proxy: head.headers.get("proxy-status"),
        body: await head.text(),
      }).toEqual({
        path,
        status: path === "nope" ? 404 : 400,
        proxy: `PostgREST; error=${path.startsWith("rpc") ? "PGRST127" : path === "nope" ? "PGRST205" : "PGRST100"}`,
        body: "",
      });
    }
    const [written] = await db.superuser<{ n: number }>(
      "select count(*)::int as n from public.einv_test_items where id = 4000",
    );
    expect(written?.n).toBe(0);
  });

  it("refuses bodies PostgREST refuses: PGRST102, PGRST204", async () => {
    const bad = await rest("einv_test_items", { method: "POST", body: "{" });
    expect(await json(bad)).toEqual({
      status: 400,
      body: { code: "PGRST102", message: "Empty or invalid json", details: null, hint: null },
    });
    const uneven = await rest("einv_test_items", {
      method: "POST",
      body: JSON.stringify([{ id: 1 }, { name: "x" }]),
    });
    expect((await json(uneven)).body.message).toBe("All object keys must match");
    const unknown = await rest("einv_test_items", {
      method: "POST",
      body: JSON.stringify({ id: 3000, colour: "red" }),
    });
    expect(await json(unknown)).toEqual({
      status: 400,
      body: {
        code: "PGRST204",
        message: "Could not find the 'colour' column of 'einv_test_items' in the schema cache",
        details: null,
        hint: null,
      },
    });
  });

  it("updates and deletes what the filters select, counted in Content-Range, 204 unless asked to return", async () => {
    const updated = await rest("einv_test_items?id=in.(11,12)", {
      method: "PATCH",
      body: JSON.stringify({ price: 1.5 }),
      headers: { prefer: "count=exact" },
    });
    expect({ status: updated.status, range: updated.headers.get("content-range") }).toEqual({
      status: 204,
      range: "0-1/2",
    });
    const deleted = await rest("einv_test_items?id=eq.11&select=id,price", {
      method: "DELETE",
      headers: { prefer: "return=representation" },
    });
    expect(await json(deleted)).toEqual({ status: 200, body: [{ id: 11, price: 1.5 }] });
  });

  it("rolls back what a check refuses: single object (PGRST116), max-affected (PGRST124)", async () => {
    const single = await rest("einv_test_items?id=in.(21,22)", {
      method: "DELETE",
      headers: { accept: "application/vnd.pgrst.object+json", prefer: "return=representation" },
    });
    expect(await json(single)).toMatchObject({
      status: 406,
      body: { code: "PGRST116", details: "The result contains 2 rows" },
    });
    const capped = await rest("einv_test_items?id=in.(21,22)", {
      method: "DELETE",
      headers: { prefer: "handling=strict,max-affected=1" },
    });
    expect(await json(capped)).toMatchObject({
      status: 400,
      body: { code: "PGRST124", details: "The query affects 2 rows" },
    });
    const [left] = await db.superuser<{ n: number }>(
      "select count(*)::int as n from public.einv_test_items where id in (21, 22)",
    );
    expect(left?.n).toBe(2);
    const strict = await rest("einv_test_items?id=eq.21", {
      headers: { prefer: "handling=strict,nonsense" },
    });
    expect(await json(strict)).toMatchObject({
      status: 400,
      body: { code: "PGRST122", details: "Invalid preferences: nonsense" },
    });
  });

  it("upserts one row with PUT on its primary key, and refuses PUT filters that are not exactly it", async () => {
    const put = await rest("einv_test_items?id=eq.4000", {
      method: "PUT",
      body: JSON.stringify({ id: 4000, name: "puesto" }),
      headers: { prefer: "return=representation" },
    });
    expect(await json(put)).toMatchObject({ status: 201, body: [{ id: 4000, name: "puesto" }] });
    const other = await rest("einv_test_items?name=eq.x", {
      method: "PUT",
      body: JSON.stringify({ id: 4001, name: "x" }),
    });
    expect(await json(other)).toMatchObject({ status: 405, body: { code: "PGRST105" } });
    const mismatch = await rest("einv_test_items?id=eq.4002", {
      method: "PUT",
      body: JSON.stringify({ id: 4003, name: "x" }),
    });
    expect(await json(mismatch)).toMatchObject({ status: 400, body: { code: "PGRST115" } });
  });
});

describe("the request around it", () => {
  it("answers tokens as PostgREST does: PGRST301 for a malformed one, PGRST303 for an expired one", async () => {
    const garbage = await rest("einv_test_items?limit=1", { bearer: "abc" });
    expect({ ...(await json(garbage)), www: garbage.headers.get("www-authenticate") }).toEqual({
      status: 401,
      body: { code: "PGRST301", message: "Expected 3 parts in JWT; got 1", details: null, hint: null },
      www: 'Bearer error="invalid_token", error_description="Expected 3 parts in JWT; got 1"',
    });
    const expired = await rest("einv_test_items?limit=1", {
      bearer: await api.token(tenant.operador, { expiresIn: "1h ago" }),
    });
    expect(await json(expired)).toEqual({
      status: 401,
      body: { code: "PGRST303", message: "JWT expired", details: null, hint: null },
    });
  });

  it("answers CORS as PostgREST does, and OPTIONS with the table's methods", async () => {
    const preflight = await rest("einv_test_items", {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:5173",
        "access-control-request-method": "POST",
        "access-control-request-headers": "prefer, apikey",
      },
    });
    expect({
      status: preflight.status,
      origin: preflight.headers.get("access-control-allow-origin"),
      headers: preflight.headers.get("access-control-allow-headers"),
    }).toEqual({ status: 200, origin: "*", headers: "Authorization, prefer, apikey" });
    const read = await rest("einv_test_items?limit=1", { headers: { origin: "http://localhost:5173" } });
    expect(read.headers.get("access-control-expose-headers")).toContain("Content-Range");
    const options = await rest("einv_test_items", { method: "OPTIONS" });
    expect(options.headers.get("allow")).toBe("OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE");
    const method = await rest("einv_test_items", { method: "PROPFIND" });
    expect(await json(method)).toMatchObject({ status: 405, body: { code: "PGRST117" } });
  });

  it("bounds what a caller controls: the URL, the body, embeds, filters and nesting", async () => {
    const long = await rest(`einv_test_items?name=eq.${"x".repeat(MAX_URL_LENGTH)}`);
    expect(long.status).toBe(414);
    const big = await rest("einv_test_items", {
      method: "POST",
      body: JSON.stringify({ name: "x".repeat(MAX_BODY_BYTES) }),
    });
    expect(big.status).toBe(413);
    const deep =
      "einv_test_items(einv_test_reviews!item_id(einv_test_items!item_id(einv_test_reviews!item_id(einv_test_items!item_id(id)))))";
    expect(await json(await rest(`einv_test_items?select=${deep}`))).toMatchObject({
      status: 400,
      body: { code: "PGRST127" },
    });
    const filters = Array.from({ length: 65 }, (_, i) => `id=neq.${i}`).join("&");
    expect(await json(await rest(`einv_test_items?${filters}`))).toMatchObject({
      status: 400,
      body: { code: "PGRST127" },
    });
    const nested = `${"or(".repeat(10)}id.eq.1${")".repeat(10)}`;
    expect(await json(await rest(`einv_test_items?or=(${nested})`))).toMatchObject({
      status: 400,
      body: { code: "PGRST127" },
    });
  });
});
