/**
 * The tables through the PostgREST stand-in (devkit/postgrest/), driven by the real supabase-js as a
 * web app drives PostgREST: invoices listed with their lines, filtered and paged with a count; a
 * draft and its lines written as the operador, refused to a lector (RLS: 42501 → 403), updated,
 * deleted; upserts merged or ignored (and refused where the grants refuse); single() and
 * maybeSingle(). Every call runs as the signed-in user under the real grants and RLS of the
 * migrations. docs/postgrest-stand-in.md cites PostgREST's source for each behaviour.
 */
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../client/database.ts";
import { createTestDatabase, type TestDatabase } from "../../devkit/database.ts";
import {
  createCompany,
  createInvoice,
  createTenant,
  type Invoice,
  setInvoiceStatus,
  type Tenant,
  type User,
} from "../../devkit/factories.ts";
import { createTransports, type Transports } from "../support/transports.ts";

let db: TestDatabase;
let tenant: Tenant;
let stranger: Tenant;
let api: Transports;
/** Three invoices of `tenant` (its second company's, so no other test's rows mix in). */
let listed: Invoice[];
let listedCompany: string;

beforeAll(async () => {
  db = await createTestDatabase();
  [tenant, stranger] = await Promise.all([createTenant(db), createTenant(db)]);
  // a table of this file's own whose columns authenticated may all insert and update, under an RLS
  // policy of the same form as the migrations' (the members of the row's organization)
  await db.client.exec(`
    create table public.einv_test_labels (
      org_id uuid not null, code text not null, name text not null, primary key (org_id, code));
    alter table public.einv_test_labels enable row level security;
    grant select, insert, update, delete on public.einv_test_labels to authenticated;
    create policy "members write their organization's labels" on public.einv_test_labels
      for all to authenticated
      using (org_id in (select einv_private.my_org_ids()))
      with check (org_id in (select einv_private.my_org_ids()));
  `);
  api = await createTransports(db.client, { name: "tables" });
  const company = await createCompany(db, tenant.org);
  listedCompany = company.id;
  listed = [];
  for (const lines of [1, 2, 3]) {
    listed.push(
      await createInvoice(db, tenant.org, company, {
        lines: Array.from({ length: lines }, (_, i) => ({
          description: `Línea ${i + 1}`,
          quantity: 1,
          unitPrice: 1000 * lines,
          taxRate: 19,
        })),
      }),
    );
  }
  await setInvoiceStatus(db, (listed[2] as Invoice).id, "error");
});
afterAll(() => db?.close());

async function as(user: User | "anon"): Promise<SupabaseClient<Database>> {
  const token = user === "anon" ? undefined : (await api.callerOf(user)).accessToken;
  return createClient<Database>(api.url, api.publishableKey, {
    ...(token ? { accessToken: async () => token } : {}),
    global: { fetch: api.postgrest as typeof fetch },
  });
}

const ids = (rows: { id: string }[] | null) => (rows ?? []).map((r) => r.id).sort();
const sorted = (invoices: Invoice[]) => invoices.map((i) => i.id).sort();

describe("reading invoices as a member", () => {
  it("lists invoices with their embedded lines, ordered, and each line's invoice as an object", async () => {
    const supabase = await as(tenant.lector);
    const { data, error, status } = await supabase
      .from("invoices")
      .select("id, number, status, invoice_lines(position, description, invoices(number))")
      .eq("company_id", listedCompany)
      .order("total", { ascending: true })
      .order("position", { referencedTable: "invoice_lines", ascending: false });
    expect({ error, status }).toEqual({ error: null, status: 200 });
    expect(data?.map((i) => i.id)).toEqual(listed.map((i) => i.id));
    const third = data?.[2];
    expect(third?.invoice_lines.map((l) => l.position)).toEqual([3, 2, 1]);
    expect(third?.invoice_lines[0]?.invoices).toEqual({ number: listed[2]?.number });
  });

  it("filters with eq, neq, in, gt, gte, lt, lte, like, ilike, is, or and not", async () => {
    const supabase = await as(tenant.operador);
    const [one, two, three] = listed as [Invoice, Invoice, Invoice];
    const base = () => supabase.from("invoices").select("id").eq("company_id", listedCompany);
    const cases: [string, PromiseLike<{ data: { id: string }[] | null; error: unknown }>, Invoice[]][] = [
      ["eq", base().eq("number", two.number), [two]],
      ["neq", base().neq("status", "pendiente"), [three]],
      ["in", base().in("id", [one.id, three.id]), [one, three]],
      ["gt", base().gt("total", 4760), [three]],
      ["gte", base().gte("total", 4760), [two, three]],
      ["lt", base().lt("subtotal", 2000), [one]],
      ["lte", base().lte("subtotal", 4000), [one, two]],
      ["like", base().like("number", `%${two.number.slice(-6)}`), [two]],
      ["ilike", base().ilike("buyer_name", "cliente prueba%"), [one, two, three]],
      ["is", base().is("due_date", null), [one, two, three]],
      ["not is", base().not("last_code", "is", null), [three]],
      ["or", base().or(`number.eq.${one.number},status.eq.error`), [one, three]],
      ["not in", base().not("id", "in", `(${one.id},${two.id})`), [three]],
      ["and inside or", base().or(`and(status.eq.pendiente,total.gt.2000),id.eq.${one.id}`), [one, two]],
    ];
    for (const [name, query, expected] of cases) {
      const { data, error } = await query;
      expect({ name, error, ids: ids(data) }).toEqual({ name, error: null, ids: sorted(expected) });
    }
  });

  it("pages with range and an exact count, as Content-Range says (206 for a part)", async () => {
    const supabase = await as(tenant.admin);
    const page = await supabase
      .from("invoices")
      .select("id", { count: "exact" })
      .eq("company_id", listedCompany)
      .order("total")
      .range(1, 2);
    expect({ count: page.count, status: page.status, ids: page.data?.map((r) => r.id) }).toEqual({
      count: 3,
      status: 206,
      ids: [listed[1]?.id, listed[2]?.id],
    });
    const head = await supabase
      .from("invoices")
      .select("*", { count: "exact", head: true })
      .eq("company_id", listedCompany);
    expect({ count: head.count, data: head.data, status: head.status }).toEqual({
      count: 3,
      data: null,
      status: 200,
    });
    const beyond = await supabase
      .from("invoices")
      .select("id", { count: "exact" })
      .eq("company_id", listedCompany)
      .range(5, 9);
    expect({ status: beyond.status, code: beyond.error?.code, details: beyond.error?.details }).toEqual({
      status: 416,
      code: "PGRST103",
      details: "An offset of 5 was requested, but there are only 3 rows.",
    });
  });

  it("shows a member nothing of another organization, and anon nothing at all", async () => {
    const outsider = await as(stranger.admin);
    const { data, error } = await outsider.from("invoices").select("id").in("id", sorted(listed));
    expect({ data, error }).toEqual({ data: [], error: null });
    const anon = await as("anon");
    const denied = await anon.from("invoices").select("id").limit(1);
    // anon holds no privilege on the table: 42501, which PostgREST answers 401 to an anonymous caller
    expect({ status: denied.status, code: denied.error?.code }).toEqual({ status: 401, code: "42501" });
  });

  it("answers single() with the object, and PGRST116 (406) when the rows are not exactly one", async () => {
    const supabase = await as(tenant.lector);
    const one = await supabase
      .from("invoices")
      .select("number")
      .eq("id", (listed[0] as Invoice).id)
      .single();
    expect({ data: one.data, status: one.status }).toEqual({
      data: { number: listed[0]?.number },
      status: 200,
    });
    const none = await supabase.from("invoices").select("number").eq("id", crypto.randomUUID()).single();
    expect({ status: none.status, error: none.error }).toEqual({
      status: 406,
      error: {
        code: "PGRST116",
        message: "Cannot coerce the result to a single JSON object",
        details: "The result contains 0 rows",
        hint: null,
      },
    });
    const maybe = await supabase
      .from("invoices")
      .select("number")
      .eq("id", crypto.randomUUID())
      .maybeSingle();
    expect({ data: maybe.data, error: maybe.error }).toEqual({ data: null, error: null });
  });
});

describe("writing a draft as the signed-in user", () => {
  it("inserts a draft and its lines as the operador, updates and deletes it", async () => {
    const supabase = await as(tenant.operador);
    const draft = await supabase
      .from("invoices")
      .insert({
        org_id: tenant.org.id,
        company_id: tenant.company.id,
        number: "99001",
        buyer_name: "Comprador",
      })
      .select("id, status, number")
      .single();
    expect({
      error: draft.error,
      status: draft.status,
      row: draft.data && { ...draft.data, id: "…" },
    }).toEqual({
      error: null,
      status: 201,
      row: { id: "…", status: "pendiente", number: "99001" },
    });
    const id = draft.data?.id as string;
    const lines = await supabase
      .from("invoice_lines")
      .insert(
        [1, 2].map((position) => ({
          invoice_id: id,
          org_id: tenant.org.id,
          position,
          description: `Servicio ${position}`,
          quantity: 2,
          unit_price: 500,
        })),
      )
      .select("position, line_extension");
    expect({ error: lines.error, status: lines.status, data: lines.data }).toEqual({
      error: null,
      status: 201,
      data: [
        { position: 1, line_extension: 1000 },
        { position: 2, line_extension: 1000 },
      ],
    });
    // return=minimal (supabase-js without select()): 201 and no body
    const minimal = await supabase.from("invoice_lines").insert({
      invoice_id: id,
      org_id: tenant.org.id,
      position: 3,
      description: "x",
      quantity: 1,
      unit_price: 1,
    });
    expect({ error: minimal.error, status: minimal.status, data: minimal.data }).toEqual({
      error: null,
      status: 201,
      data: null,
    });
    const updated = await supabase
      .from("invoices")
      .update({ notes: "Revisada" })
      .eq("id", id)
      .select("notes, total, lines:invoice_lines(position)")
      .order("position", { referencedTable: "lines" });
    expect({ error: updated.error, data: updated.data }).toEqual({
      error: null,
      data: [{ notes: "Revisada", total: 2001, lines: [{ position: 1 }, { position: 2 }, { position: 3 }] }],
    });
    const deleted = await supabase.from("invoices").delete().eq("id", id).select("id");
    expect({ error: deleted.error, data: deleted.data }).toEqual({ error: null, data: [{ id }] });
    const [left] = await db.superuser<{ n: number }>(
      "select count(*)::int as n from public.invoice_lines where invoice_id = $1",
      [id],
    );
    expect(left?.n).toBe(0);
  });

  it("refuses a lector's draft as PostgREST does: 42501 from RLS, 403", async () => {
    const supabase = await as(tenant.lector);
    const { error, status } = await supabase
      .from("invoices")
      .insert({ org_id: tenant.org.id, company_id: tenant.company.id, number: "99002" });
    expect({ status, error }).toEqual({
      status: 403,
      error: {
        code: "42501",
        message: 'new row violates row-level security policy for table "invoices"',
        details: null,
        hint: null,
      },
    });
  });

  it("refuses a fiscal column (no grant: 42501, 403) and a sent invoice's content (the trigger's P0001, 400)", async () => {
    const supabase = await as(tenant.operador);
    const fiscal = await supabase.from("invoices").insert({
      org_id: tenant.org.id,
      company_id: tenant.company.id,
      number: "99003",
      status: "transmitida",
    });
    expect({ status: fiscal.status, code: fiscal.error?.code, message: fiscal.error?.message }).toEqual({
      status: 403,
      code: "42501",
      message: "permission denied for table invoices",
    });
    const sent = await createInvoice(db, tenant.org, tenant.company, { status: "error" });
    const edit = await supabase
      .from("invoice_lines")
      .update({ description: "otra" })
      .eq("invoice_id", sent.id);
    expect({ status: edit.status, code: edit.error?.code, message: edit.error?.message }).toEqual({
      status: 400,
      code: "P0001",
      message: "the lines of a error invoice can no longer change",
    });
  });

  it("upserts as supabase-js asks: merged or ignored duplicates, under RLS, and PostgreSQL's 42501 where the grants refuse", async () => {
    const token = (await api.callerOf(tenant.operador)).accessToken;
    // the labels table is not in the generated Database type: an untyped client
    const supabase = createClient(api.url, api.publishableKey, {
      accessToken: async () => token,
      global: { fetch: api.postgrest as typeof fetch },
    });
    const org_id = tenant.org.id;
    const first = await supabase
      .from("einv_test_labels")
      .upsert([
        { org_id, code: "a", name: "Uno" },
        { org_id, code: "b", name: "Dos" },
      ])
      .select("code, name");
    expect({ status: first.status, error: first.error, data: first.data }).toEqual({
      status: 201,
      error: null,
      data: [
        { code: "a", name: "Uno" },
        { code: "b", name: "Dos" },
      ],
    });
    // every row already there: merged, 200 (PostgREST's pgrst.inserted count is 0), with an exact count
    const merged = await supabase
      .from("einv_test_labels")
      .upsert({ org_id, code: "a", name: "Uno bis" }, { onConflict: "org_id,code", count: "exact" })
      .select("code, name");
    expect({ status: merged.status, count: merged.count, data: merged.data }).toEqual({
      status: 200,
      count: 1,
      data: [{ code: "a", name: "Uno bis" }],
    });
    const ignored = await supabase
      .from("einv_test_labels")
      .upsert(
        [
          { org_id, code: "b", name: "ignorado" },
          { org_id, code: "c", name: "Tres" },
        ],
        { ignoreDuplicates: true },
      )
      .select("code, name");
    expect({ status: ignored.status, data: ignored.data }).toEqual({
      status: 201,
      data: [{ code: "c", name: "Tres" }],
    });
    // another organization's row: RLS's WITH CHECK refuses it, as for an insert
    const foreign = await supabase
      .from("einv_test_labels")
      .upsert({ org_id: stranger.org.id, code: "a", name: "ajeno" });
    expect({ status: foreign.status, code: foreign.error?.code, message: foreign.error?.message }).toEqual({
      status: 403,
      code: "42501",
      message: 'new row violates row-level security policy for table "einv_test_labels"',
    });
    const rows = await db.superuser<{ code: string; name: string }>(
      "select code, name from public.einv_test_labels order by org_id, code",
    );
    expect(rows).toEqual([
      { code: "a", name: "Uno bis" },
      { code: "b", name: "Dos" },
      { code: "c", name: "Tres" },
    ]);

    // a draft's lines: DO UPDATE SET names every column of the body, and authenticated may not
    // update invoice_id or org_id, so PostgreSQL refuses the merge (as it would behind PostgREST);
    // ignoring duplicates needs only the insert grant
    const typed = await as(tenant.operador);
    const invoice = await createInvoice(db, tenant.org, tenant.company, {
      lines: [{ description: "Primera", quantity: 1, unitPrice: 1000, taxRate: 19 }],
    });
    const line = (position: number, description: string) => ({
      invoice_id: invoice.id,
      org_id,
      position,
      description,
      quantity: 1,
      unit_price: 1000,
    });
    const lines = await typed
      .from("invoice_lines")
      .upsert([line(1, "cambiada"), line(2, "Segunda")], {
        onConflict: "invoice_id,position",
        ignoreDuplicates: true,
      })
      .select("position, description");
    expect({ status: lines.status, error: lines.error, data: lines.data }).toEqual({
      status: 201,
      error: null,
      data: [{ position: 2, description: "Segunda" }],
    });
    const merge = await typed
      .from("invoice_lines")
      .upsert(line(1, "cambiada"), { onConflict: "invoice_id,position" });
    expect({ status: merge.status, error: merge.error }).toEqual({
      status: 403,
      error: {
        code: "42501",
        message: "permission denied for table invoice_lines",
        details: null,
        hint: null,
      },
    });
    const kept = await db.superuser<{ position: number; description: string }>(
      "select position, description from public.invoice_lines where invoice_id = $1 order by position",
      [invoice.id],
    );
    expect(kept).toEqual([
      { position: 1, description: "Primera" },
      { position: 2, description: "Segunda" },
    ]);
  });

  it("writes all rows of a request or none: one bad line rolls back the others", async () => {
    const supabase = await as(tenant.operador);
    const invoice = await createInvoice(db, tenant.org, tenant.company, { lines: [] });
    const line = (position: number) => ({
      invoice_id: invoice.id,
      org_id: tenant.org.id,
      position,
      description: "ok",
      quantity: 1,
      unit_price: 1,
    });
    const { status, error } = await supabase.from("invoice_lines").insert([line(1), line(2000)]);
    expect({ status, code: error?.code }).toEqual({ status: 400, code: "23514" });
    const [count] = await db.superuser<{ n: number }>(
      "select count(*)::int as n from public.invoice_lines where invoice_id = $1",
      [invoice.id],
    );
    expect(count?.n).toBe(0);
  });
});
