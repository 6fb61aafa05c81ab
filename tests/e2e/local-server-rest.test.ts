/**
 * `npm start`'s `/rest/v1` as a web app uses it, with the real supabase-js and the demo users'
 * tokens from `.data/local.json`: the demo invoices listed with their lines, filtered and paged
 * with a count; a draft and its lines written as the operador, which the einvoicing function then
 * transmits; a lector refused; single() and maybeSingle(); a browser's CORS preflight.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { describe, expect, inject, it } from "vitest";
import type { Database } from "../../client/database.ts";
import { nitCheckDigit } from "../../shared/co/check-digit.ts";
import { useLocalServer } from "../support/local-server.ts";

const target = inject("database");
const server = useLocalServer(target);

function as(role: "admin" | "operador" | "lector"): {
  supabase: SupabaseClient<Database>;
  orgId: string;
  token: string;
} {
  const { run: local, baseUrl } = server.get();
  const user = local.users.find((u) => u.role === role && u.org_id === local.orgs[0]?.id);
  if (!user) throw new Error(`no demo ${role}`);
  const supabase = createClient<Database>(baseUrl, local.apikey, {
    accessToken: async () => user.access_token,
  });
  return { supabase, orgId: user.org_id, token: user.access_token };
}

describe.skipIf(target.kind !== "postgres")("npm start's /rest/v1", () => {
  it("holds the demo invoices the README counts, per organization and state", async () => {
    const readme = readFileSync(fileURLToPath(new URL("../../README.md", import.meta.url)), "utf8");
    const said =
      /Demo Org: (\d+) `pendiente` and (\d+) in each other state; Otra Org: (\d+) `pendiente`\s+and (\d+) in each other state/.exec(
        readme.replace(/\s+/g, " "),
      );
    expect(said).not.toBeNull();
    const { run: local } = server.get();
    const { supabase } = as("admin");
    const counts = async (orgId: string) => {
      const { data, error } = await supabase.from("invoices").select("status").eq("org_id", orgId);
      expect(error).toBeNull();
      const by = new Map<string, number>();
      for (const { status } of data ?? []) by.set(status, (by.get(status) ?? 0) + 1);
      return by;
    };
    const [demo, other] = local.orgs.map((o) => o.id) as [string, string];
    const states = ["en_proceso", "transmitida", "error"];
    const demoCounts = await counts(demo);
    expect([demoCounts.get("pendiente"), ...states.map((s) => demoCounts.get(s))]).toEqual([
      Number(said?.[1]),
      ...states.map(() => Number(said?.[2])),
    ]);
    // the admin of Demo Org sees none of Otra Org's: local.json, written by the seeding superuser, does
    const otherCounts = new Map<string, number>();
    for (const { status } of local.invoices.filter((i) => i.org_id === other))
      otherCounts.set(status, (otherCounts.get(status) ?? 0) + 1);
    expect((await counts(other)).size).toBe(0);
    expect([otherCounts.get("pendiente"), ...states.map((s) => otherCounts.get(s))]).toEqual([
      Number(said?.[3]),
      ...states.map(() => Number(said?.[4])),
    ]);
  });

  it("lists the demo organization's invoices with their lines, filtered and paged with a count", async () => {
    const { run: local } = server.get();
    const { supabase, orgId } = as("lector");
    const pending = local.invoices.filter((i) => i.org_id === orgId && i.status === "pendiente");
    const page = await supabase
      .from("invoices")
      .select("id, number, status, last_code, authority_rules, invoice_lines(position, description)", {
        count: "exact",
      })
      .eq("org_id", orgId)
      .eq("status", "pendiente")
      .order("number")
      .order("position", { referencedTable: "invoice_lines" })
      .range(0, 9);
    expect({ error: page.error, status: page.status, count: page.count, rows: page.data?.length }).toEqual({
      error: null,
      status: 206,
      count: pending.length,
      rows: 10,
    });
    const first = page.data?.[0];
    const expected = local.invoices.find((i) => i.id === first?.id);
    expect(first?.invoice_lines.map((l) => l.position)).toEqual(expected?.line_ids.map((_, i) => i + 1));
    const rejected = await supabase
      .from("invoices")
      .select("id, last_code, authority_rules")
      .eq("org_id", orgId)
      .eq("status", "error");
    expect(rejected.error).toBeNull();
    expect(rejected.data?.length).toBe(
      local.invoices.filter((i) => i.org_id === orgId && i.status === "error").length,
    );
  });

  it("writes a draft and its lines as the operador, which the einvoicing function transmits", async () => {
    const { run: local } = server.get();
    const { supabase, orgId, token } = as("operador");
    const { data: company, error: companyError } = await supabase
      .from("companies")
      .select("id, invoice_prefix, resolution_from, invoices(number)")
      .eq("org_id", orgId)
      .eq("id", local.invoices.find((i) => i.org_id === orgId)?.company_id as string)
      .single();
    expect(companyError).toBeNull();
    const taken = (company?.invoices ?? []).map((i) =>
      Number(i.number.slice(company?.invoice_prefix.length)),
    );
    const number = `${company?.invoice_prefix}${Math.max(company?.resolution_from ?? 1, ...taken) + 1}`;
    const buyer = "900123456";
    const draft = await supabase
      .from("invoices")
      .insert({
        org_id: orgId,
        company_id: company?.id as string,
        number,
        buyer_id_type: "31",
        buyer_id_number: buyer,
        buyer_check_digit: nitCheckDigit(buyer),
        buyer_name: "Comprador de la aplicación S.A.S.",
        buyer_email: "compras@comprador.test",
        buyer_address: "Carrera 7 # 70-10",
        buyer_city_code: "11001",
      })
      .select("id, status")
      .single();
    expect({ error: draft.error, status: draft.data?.status }).toEqual({ error: null, status: "pendiente" });
    const invoiceId = draft.data?.id as string;
    const lines = await supabase.from("invoice_lines").insert([
      {
        invoice_id: invoiceId,
        org_id: orgId,
        position: 1,
        description: "Desarrollo de software",
        quantity: 2,
        unit_price: 50_000,
        // the inputs only: the database computes the line's base, its tax and the totals
        taxes: [{ code: "01", percent: 19 }],
      },
    ]);
    expect({ error: lines.error, status: lines.status }).toEqual({ error: null, status: 201 });
    const edited = await supabase
      .from("invoices")
      .update({ notes: "Desde la app" })
      .eq("id", invoiceId)
      .select("notes")
      .single();
    expect(edited.data).toEqual({ notes: "Desde la app" });

    const transmit = await fetch(`${local.base_url}/v1/einvoicing/transmit`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, apikey: local.apikey, "content-type": "application/json" },
      body: JSON.stringify({ org_id: orgId, invoice_ids: [invoiceId] }),
    });
    const { results } = (await transmit.json()) as { results: { status: string; code: string }[] };
    expect(results).toMatchObject([{ status: "transmitida", code: "accepted" }]);
    // the in-process sandbox reads request.signal: with npm start's --unstable-no-legacy-abort, Deno
    // does not warn that the signal aborts on successful responses (its legacy behavior)
    expect(server.get().output()).not.toContain("Deno.serve:");

    // once sent, RLS hides it from writes: an update or delete matches nothing
    const late = await supabase.from("invoices").delete().eq("id", invoiceId).select("id");
    expect({ error: late.error, data: late.data }).toEqual({ error: null, data: [] });
    const sent = await supabase
      .from("invoices")
      .select("status, authority_code")
      .eq("id", invoiceId)
      .maybeSingle();
    expect(sent.data?.status).toBe("transmitida");
  });

  it("refuses a lector's draft with PostgREST's 403 (42501)", async () => {
    const { supabase, orgId } = as("lector");
    const { run: local } = server.get();
    const { error, status } = await supabase
      .from("invoices")
      .insert({ org_id: orgId, company_id: local.companies[0]?.id as string, number: "1" });
    expect({ status, code: error?.code }).toEqual({ status: 403, code: "42501" });
  });

  it("answers a browser page of another origin: the preflight, and Content-Range exposed", async () => {
    const { baseUrl, run: local } = server.get();
    const preflight = await fetch(`${baseUrl}/rest/v1/invoices`, {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:5173",
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization, apikey, prefer, range",
      },
    });
    expect({
      status: preflight.status,
      origin: preflight.headers.get("access-control-allow-origin"),
    }).toEqual({
      status: 200,
      origin: "*",
    });
    const read = await fetch(`${baseUrl}/rest/v1/organizations?select=name`, {
      headers: {
        origin: "http://localhost:5173",
        apikey: local.apikey,
        authorization: `Bearer ${as("lector").token}`,
      },
    });
    expect({ status: read.status, exposed: read.headers.get("access-control-expose-headers") }).toMatchObject(
      {
        status: 200,
        exposed: expect.stringContaining("Content-Range"),
      },
    );
  });
});
